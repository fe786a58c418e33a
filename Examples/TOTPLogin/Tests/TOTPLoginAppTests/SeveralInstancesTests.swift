import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IdentityOTP
import IdentityServerState
import IdentityToolkitAsyncHTTPClient
import IdentityToolkitEmulator
import Logging
import Testing

@testable import TOTPLoginApp

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The app as a fleet behind a round-robin balancer: state that every instance reads, limits that hold across them.
extension TOTPLoginAppTests {
    // MARK: Several instances

    /// Behind a round-robin balancer: each request reaches the other
    /// instance, so the password step, the code step and the enrollment are
    /// each finished by an instance that did not start them.
    @Test(arguments: [SharedState.store, .sealed])
    func everyStepFinishesOnAnotherInstance(state: SharedState) async throws {
        try await withInstances(count: 2, state: state) { _, emulator, browser in
            let email = "fleet-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            try await browser.signUpAndVerify(email: email, password: "password-123456")
            _ = try await browser.get("/login")
            var page = try await browser.post("/login", ["email": email, "password": "password-123456"])
            #expect(page.location == "/account")
            #expect(browser.followed?.status == .ok, "the account page, served by the other instance")
            let totp = try await browser.enroll(clock: emulator.emulator.clock)
            _ = try await browser.post("/logout", [:])

            page = try await browser.post("/login", ["email": email, "password": "password-123456"])
            #expect(page.location == "/login/totp")
            #expect(browser.followed?.body.contains("phone") == true, "the other instance reads the pending sign-in")
            let step = try totp.step(at: Int64(emulator.emulator.clock.now.timeIntervalSince1970)) + 1
            page = try await browser.post("/login/totp", ["code": totp.code(step: step)])
            #expect(page.location == "/account")
            #expect(browser.followed?.element(id: "second-factor") == "totp")
            #expect(Set(browser.instances) == [0, 1])
        }
    }

    /// The sealed cookie holds a whole sign-in (tokens and a pending TOTP
    /// key) and still fits a browser's cookie limit.
    @Test func theSealedStateFitsInACookie() async throws {
        try await withInstances(count: 1, state: .sealed) { _, _, browser in
            let email = "size-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            try await browser.signUpAndVerify(email: email, password: "password-123456")
            _ = try await browser.get("/login")
            _ = try await browser.post("/login", ["email": email, "password": "password-123456"])
            _ = try await browser.get("/enroll")
            let cookie = try #require(browser.cookies[browser.cookieName])
            #expect(cookie.hasPrefix("s1."))
            #expect(cookie.utf8.count <= SealedCookieStorage.maximumCookieLength, "\(cookie.utf8.count) bytes")
            // Another key ring cannot read it: the browser starts afresh.
            let other = SealedCookieStorage(keyRing: try SealingKeyRing([SealingKey.random(id: "k1")]))
            #expect(try await other.load(cookie: cookie) == nil)
        }
    }

    /// A new cookie and CSRF token at each sign-in: a cookie planted before
    /// it carries nothing after it (session fixation), and the old form
    /// token is refused.
    @Test func theBrowserCookieAndTokenChangeAtSignIn() async throws {
        try await withApp { _, _, browser in
            let email = "rotate-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            try await browser.signUpAndVerify(email: email, password: "password-123456")
            _ = try await browser.get("/login")
            let before = try #require(browser.cookies[browser.cookieName])
            let csrfBefore = browser.csrf
            let page = try await browser.post("/login", ["email": email, "password": "password-123456"])
            #expect(page.location == "/account")
            let after = try #require(browser.cookies[browser.cookieName])
            #expect(after != before)
            #expect(browser.csrf != csrfBefore)
            // The planted (old) cookie carries nothing of the sign-in: it held
            // only a token (sealed in itself, no row), and the sign-in's state
            // went to a new cookie.
            #expect(before.hasPrefix("p.") && !after.hasPrefix("p."))
            let planted = browser.stranger()
            planted.cookies[browser.cookieName] = before
            #expect(try await planted.post("/login/totp", ["code": "000000"], csrf: csrfBefore).location == "/login")
            #expect(try await planted.post("/logout", [:], csrf: "not-the-token").status == .forbidden)
        }
    }

    /// Over HTTPS the browser cookie is `__Host-` and every cookie Secure.
    @Test func httpsCookiesAreSecureAndHostOnly() async throws {
        try await withInstances(count: 1, publicURL: URL(string: "https://login.example.com")) { _, _, browser in
            #expect(browser.cookieName == "__Host-totplogin_browser")
            _ = try await browser.get("/login")
            let line = try #require(browser.lastSetCookies[browser.cookieName])
            #expect(line.contains("Secure"))
            #expect(line.contains("HttpOnly"))
            #expect(line.contains("Path=/"))
            #expect(!line.contains("Domain="))
        }
    }

    /// Wrong codes count per account across instances and challenges: the
    /// 11th is refused by the app (429, `attempt-limit`), although each
    /// challenge saw fewer than Identity Platform's own limit.
    @Test func wrongCodesAreLimitedPerAccountAcrossInstances() async throws {
        try await withInstances(count: 2) { _, emulator, browser in
            let email = "limit-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            try await browser.signUpAndVerify(email: email, password: "password-123456")
            _ = try await browser.get("/login")
            _ = try await browser.post("/login", ["email": email, "password": "password-123456"])
            let totp = try await browser.enroll(clock: emulator.emulator.clock)
            _ = try await browser.post("/logout", [:])
            var wrong = 0
            while wrong < 10 {
                #expect(
                    try await browser.post("/login", ["email": email, "password": "password-123456"]).location
                        == "/login/totp")
                for _ in 0..<4 where wrong < 10 {
                    #expect(try await browser.post("/login/totp", ["code": "000000"]).status == .unauthorized)
                    wrong += 1
                }
            }
            #expect(
                try await browser.post("/login", ["email": email, "password": "password-123456"]).location
                    == "/login/totp")
            let step = try totp.step(at: Int64(emulator.emulator.clock.now.timeIntervalSince1970)) + 2
            let page = try await browser.post("/login/totp", ["code": totp.code(step: step)])
            #expect(page.status == .tooManyRequests, "even the right code, once the account is at its limit")
            #expect(page.body.contains("data-reason=\"attempt-limit\""))
            #expect(page.element(id: "error-code") == nil, "the app refused, not Identity Platform")
        }
    }

    /// Wrong passwords count per client address, taken from the last
    /// X-Forwarded-For entry when the app is told to trust it.
    @Test func passwordsAreLimitedPerAddress() async throws {
        try await withInstances(count: 2, trustForwardedFor: true) { _, _, browser in
            browser.headers[HTTPField.Name("X-Forwarded-For")!] = "203.0.113.9, 198.51.100.7"
            _ = try await browser.get("/login")
            // Distinct accounts from one address: the per-account count never
            // trips, the per-address one does (100 by default).
            var statuses: [HTTPResponse.Status] = []
            for index in 0..<101 {
                statuses.append(
                    try await browser.post(
                        "/login", ["email": "spray-\(index)@example.com", "password": "wrong-password"]
                    ).status)
            }
            #expect(statuses.prefix(100).allSatisfy { $0 == .unauthorized })
            #expect(statuses.last == .tooManyRequests)
            // Another address is not affected.
            browser.headers[HTTPField.Name("X-Forwarded-For")!] = "203.0.113.9, 198.51.100.8"
            #expect(
                try await browser.post("/login", ["email": "spray-x@example.com", "password": "wrong-password"]).status
                    == .unauthorized)
        }
    }

    /// A store that cannot be reached: 503, and no form is let through.
    @Test func anUnreachableStoreFailsClosed() async throws {
        let project = "totp-login-\(UUID().uuidString.prefix(8).lowercased())"
        let backend = try IdentityBackend(emulatorHost: "127.0.0.1", emulatorPort: 1, projectID: project)
        var quiet = Logger(label: "TOTPLoginTests")
        quiet.logLevel = .critical
        let app = TOTPLoginApp(
            backend: backend,
            state: .store(
                UnreachableStore(), name: "down", keyRing: try! SealingKeyRing([SealingKey.random(id: "test")])),
            attempts: ExpiringStateTOTPVerificationStore(),
            recoveryCodes: ExpiringStateRecoveryCodeStore(), logger: quiet)
        try await Application(router: app.router()).test(.router) { (client: any TestClientProtocol) async throws in
            let browser = TestBrowser(clients: [client], cookieName: app.cookies.browserCookieName)
            browser.cookies[browser.cookieName] = "some-id"
            #expect(try await browser.get("/login").status == .serviceUnavailable)
            #expect(
                try await browser.post("/login", ["email": "a@example.com", "password": "x"], csrf: "t").status
                    == .serviceUnavailable)
        }
    }

    /// Requests without a cookie, which anyone can send, once each inserted
    /// a state row: now a browser that only loads pages keeps its CSRF token
    /// sealed in its cookie, and its first form post is accepted from it;
    /// rows are written once the state holds a sign-in step.
    @Test func pagesWithoutACookieWriteNoStateRow() async throws {
        let project = "totp-login-\(UUID().uuidString.prefix(8).lowercased())"
        try await IdentityToolkitEmulator(
            configuration: EmulatorConfiguration(port: 0, projectID: project)
        ).serving { emulator in
            let backend = try IdentityBackend(
                emulatorHost: emulator.host, emulatorPort: emulator.port, projectID: project)
            var quiet = Logger(label: "TOTPLoginTests")
            quiet.logLevel = .critical
            let store = InMemoryExpiringStateStore()
            let app = TOTPLoginApp(
                backend: backend,
                state: .store(store, name: "memory", keyRing: try SealingKeyRing([SealingKey.random(id: "k1")])),
                attempts: ExpiringStateTOTPVerificationStore(), recoveryCodes: ExpiringStateRecoveryCodeStore(),
                logger: quiet)
            try await Application(router: app.router()).test(.router) { (client: any TestClientProtocol) async throws in
                for path in Array(repeating: "/login", count: 40) + ["/signup"] {
                    let stranger = TestBrowser(clients: [client], cookieName: app.cookies.browserCookieName)
                    _ = try await stranger.get(path)
                    #expect(stranger.cookies[stranger.cookieName]?.hasPrefix("p.") == true)
                }
                #expect(await store.count == 0, "pages without a cookie wrote rows")
                // The first form is accepted from the sealed token (not 403), and a wrong password keeps nothing.
                let browser = TestBrowser(clients: [client], cookieName: app.cookies.browserCookieName)
                _ = try await browser.get("/login")
                #expect(
                    try await browser.post("/login", ["email": "nobody@example.com", "password": "wrong-password-1"])
                        .status == .unauthorized)
                #expect(await store.count == 0)
                // A tampered sealed token is a new browser: its form is refused.
                browser.cookies[browser.cookieName] = "p.forged"
                #expect(
                    try await browser.post("/login", ["email": "nobody@example.com", "password": "x"], csrf: "t").status
                        == .forbidden)
            }
        }
    }

    @Test func theProjectMustBeTheEmulators() throws {
        #expect(try IdentityBackend.agreedProject(requested: nil, served: "demo-a", fallback: "demo-x") == "demo-a")
        #expect(
            try IdentityBackend.agreedProject(requested: "demo-a", served: "demo-a", fallback: "demo-x") == "demo-a")
        #expect(try IdentityBackend.agreedProject(requested: nil, served: nil, fallback: "demo-x") == "demo-x")
        let error = #expect(throws: AppError.self) {
            try IdentityBackend.agreedProject(requested: "demo-b", served: "demo-a", fallback: "demo-x")
        }
        #expect(error.map { "\($0)" }?.contains("demo-b") == true)
        #expect(error.map { "\($0)" }?.contains("demo-a") == true)
    }
}
