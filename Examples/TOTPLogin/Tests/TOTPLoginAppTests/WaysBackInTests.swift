import Foundation
import IdentityOTP
import IdentityServerState
import IdentityToolkitEmulator
import Testing

@testable import TOTPLoginApp

/// The ways back in, through the app's pages.
extension TOTPLoginAppTests {
    /// After 100 wrong passwords in a row from anywhere, the right password
    /// is refused with the reset page; the reset (the app is the email's
    /// action handler) clears the count, and the new password signs in.
    @Test func aPasswordResetIsTheWayBackAfterAHundredWrongPasswords() async throws {
        try await withInstances(count: 2) { apps, _, browser in
            let email = "reset-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            try await browser.signUpAndVerify(email: email, password: "password-123456")
            let account = AttemptLimits.accountKey(email: email)
            var counted = 0
            for index in 0..<200 where counted < 100 {
                if await apps[0].limits.admit(
                    .password, account: account, address: "10.0.\(index / 250).\(index % 250)") == .admitted
                {
                    counted += 1
                }
            }
            _ = try await browser.get("/login")
            let refused = try await browser.post("/login", ["email": email, "password": "password-123456"])
            #expect(
                refused.status == .tooManyRequests && refused.body.contains("data-reason=\"password-reset-required\""))
            _ = try await browser.get("/login/reset")
            let sent = try await browser.post("/login/reset", ["email": email])
            #expect(sent.status == .ok && sent.body.contains("id=\"reset-sent\""))
            let link = try #require(sent.firstMatch(of: #/id="reset-link" href="([^"]+)"/#)).replacingOccurrences(
                of: "&amp;", with: "&")
            #expect(try await browser.get(link).status == .ok)
            let changed = try await browser.post(
                TOTPLoginApp.passwordResetPath,
                [
                    "oobCode": try #require(
                        URLComponents(string: link)?
                            .queryItems?.first { $0.name == "oobCode" }?.value), "password": "new-password-654321",
                ])
            #expect(changed.location == "/login?reason=password-reset")
            #expect(
                try await browser.post("/login", ["email": email, "password": "new-password-654321"]).location
                    == "/account")
            // A stranger's request for another address says the same, and sends nothing.
            _ = try await browser.get("/login/reset")
            let unknown = try await browser.post(
                "/login/reset", ["email": "nobody-\(UUID().uuidString.prefix(6))@example.com"])
            #expect(
                unknown.status == .ok && unknown.body.contains("id=\"reset-sent\"")
                    && !unknown.body.contains("reset-link"))
        }
    }

    /// After 100 wrong codes the account's codes stay locked until a
    /// recovery, which now clears that count: the new authenticator is
    /// accepted (it was refused with `attempt-limit`).
    @Test func aRecoveryLetsTheNewAuthenticatorIn() async throws {
        try await withInstances(count: 2) { apps, emulator, browser in
            let email = "relock-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            try await browser.signUpAndVerify(email: email, password: "password-123456")
            _ = try await browser.get("/login")
            _ = try await browser.post("/login", ["email": email, "password": "password-123456"])
            _ = try await browser.enroll(clock: emulator.emulator.clock)
            let codes = browser.lastRecoveryCodes
            _ = try await browser.post("/logout", [:])
            let account = AttemptLimits.accountKey(email: email)
            var now = Date()
            var counted = 0
            while counted < 100 {
                switch await apps[0].limits.admit(.code, account: account, address: "198.51.100.1", at: now) {
                case .admitted: counted += 1
                case .refused(.until(let until)): now = until
                case .refused:
                    Issue.record("refused for good after \(counted)")
                    return
                }
            }
            #expect(
                try await browser.post("/login", ["email": email, "password": "password-123456"]).location
                    == "/login/totp")
            _ = try await browser.get("/login/recovery")
            #expect(
                try await browser.post("/login/recovery", ["code": codes[0]]).location == "/enroll?reason=recovered")
            let newPhone = try await browser.enroll(clock: emulator.emulator.clock)
            _ = try await browser.post("/logout", [:])
            #expect(
                try await browser.post("/login", ["email": email, "password": "password-123456"]).location
                    == "/login/totp")
            // The next step's code: the enrolment used this one.
            let step = try newPhone.step(at: Int64(emulator.emulator.clock.now.timeIntervalSince1970)) + 1
            let page = try await browser.post("/login/totp", ["code": newPhone.code(step: step)])
            #expect(page.location == "/account", "\(page.status) \(page.element(id: "error") ?? "")")
        }
    }

    /// A sign-out on an instance that cannot fetch the session cookie's keys
    /// (Identity Platform out of reach) read the cookie as invalid, skipped
    /// the revocation and said "You are signed out". Now it revokes the
    /// browser's own user, and says so when that fails too.
    @Test func aSignOutWhoseCookieCannotBeCheckedStillRevokes() async throws {
        let project = "totp-login-\(UUID().uuidString.prefix(8).lowercased())"
        try await IdentityToolkitEmulator(
            configuration: EmulatorConfiguration(port: 0, projectID: project)
        ).serving { emulator in
            let state = BrowserStateConfiguration.store(
                InMemoryExpiringStateStore(), name: "memory", keyRing: try SealingKeyRing([SealingKey.random(id: "k")]))
            let (attempts, recoveryCodes) = (ExpiringStateTOTPVerificationStore(), ExpiringStateRecoveryCodeStore())
            // Two instances with their own admin clients, so their key caches are their own.
            let apps = try (0..<2).map { _ in
                TOTPLoginApp(
                    backend: try IdentityBackend(
                        emulatorHost: emulator.host, emulatorPort: emulator.port, projectID: project), state: state,
                    attempts: attempts, recoveryCodes: recoveryCodes, logger: AttemptLimitTests.quiet)
            }
            try await Self.withClients(apps[...], []) { clients in
                // Everything on the first instance, so the second never fetched the keys.
                let first = TestBrowser(clients: [clients[0]], cookieName: apps[0].cookies.browserCookieName)
                let email = "keys-\(UUID().uuidString.prefix(8).lowercased())@example.com"
                try await first.signUpAndVerify(email: email, password: "password-123456")
                _ = try await first.get("/login")
                _ = try await first.post("/login", ["email": email, "password": "password-123456"])
                #expect(try await first.get("/account").status == .ok)
                _ = try await first.get("/logout")
                let second = TestBrowser(clients: [clients[1]], cookieName: apps[1].cookies.browserCookieName)
                second.cookies = first.cookies
                second.csrf = first.csrf
                try await Self.cutOff(emulator)
                let page = try await second.post("/logout", [:])
                #expect(page.status == .serviceUnavailable, "\(page.status) \(page.location ?? "")")
                #expect(page.body.contains("data-reason=\"sessions-not-revoked\""))
                #expect(!page.body.contains("You are signed out."))
            }
        }
    }
}
