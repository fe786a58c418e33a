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

/// The app's ways back in and its notices: recovery codes, security activity, the enrolment campaign, the blocking function, roles, clock drift.
extension TOTPLoginAppTests {
    // MARK: A lost authenticator

    /// The lost-phone chapter, across two instances: enroll (the codes are
    /// shown once), sign out, sign in, recover with a code, enroll a new
    /// authenticator; the old authenticator and the used code are refused.
    @Test func aRecoveryCodeReplacesALostAuthenticator() async throws {
        try await withInstances(count: 2) { apps, emulator, browser in
            let email = "lost-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            try await browser.signUpAndVerify(email: email, password: "password-123456")
            _ = try await browser.get("/login")
            _ = try await browser.post("/login", ["email": email, "password": "password-123456"])
            let lostPhone = try await browser.enroll(clock: emulator.emulator.clock)
            let codes = browser.lastRecoveryCodes
            #expect(codes.count == 10)
            #expect(try await browser.get("/account").element(id: "remaining-codes") == "10")
            // A second enrollment shows no codes (the user has them).
            _ = try await browser.post("/logout", [:])

            var page = try await browser.post("/login", ["email": email, "password": "password-123456"])
            #expect(page.location == "/login/totp")
            #expect(browser.followed?.body.contains("id=\"use-recovery-code\"") == true)
            _ = try await browser.get("/login/recovery")
            page = try await browser.post("/login/recovery", ["code": "0000-0000-0000"])
            #expect(page.status == .unauthorized)
            // A wrong code ends the sign-in on this browser: a second code needs the password again.
            #expect(try await browser.post("/login/recovery", ["code": codes[0].lowercased()]).location == "/login")
            #expect(
                try await browser.post("/login", ["email": email, "password": "password-123456"]).location
                    == "/login/totp")
            _ = try await browser.get("/login/recovery")
            page = try await browser.post("/login/recovery", ["code": codes[0].lowercased()])
            #expect(
                page.location == "/enroll?reason=recovered",
                "\(page.status) \(page.element(id: "error") ?? "") \(page.element(id: "error-code") ?? "")")
            #expect(browser.followed?.body.contains("Your lost authenticator was removed") == true)
            let account = try await browser.get("/account")
            #expect(account.body.contains("id=\"no-factors\""))
            #expect(account.element(id: "remaining-codes") == "9")
            let uid = try await apps[0].backend.admin.getUser(email: email).uid
            #expect(try await apps[0].backend.admin.getUser(uid: uid).multiFactor.enrolledFactors.isEmpty)

            let newPhone = try await browser.enroll(clock: emulator.emulator.clock)
            #expect(browser.lastRecoveryCodes.isEmpty, "the user still has 9 codes")
            _ = try await browser.post("/logout", [:])
            #expect(
                try await browser.post("/login", ["email": email, "password": "password-123456"]).location
                    == "/login/totp")
            let step = try lostPhone.step(at: Int64(emulator.emulator.clock.now.timeIntervalSince1970)) + 1
            #expect(
                try await browser.post("/login/totp", ["code": lostPhone.code(step: step)]).status == .unauthorized,
                "the lost phone's code")
            _ = try await browser.get("/login/recovery")
            #expect(
                try await browser.post("/login/recovery", ["code": codes[0]]).status == .unauthorized,
                "a used recovery code")
            #expect(
                try await browser.post("/login", ["email": email, "password": "password-123456"]).location
                    == "/login/totp")
            page = try await browser.post("/login/totp", ["code": newPhone.code(step: step)])
            #expect(page.location == "/account")
        }
    }

    /// The account page lists the account's security events (the app's and
    /// the SDK's, from both instances); the ones a user should hear about
    /// become "was this you?" notifications in the outbox; an enrolment
    /// deadline shows as a reminder before it and sends to /enroll after it.
    @Test func securityActivityNotificationsAndTheEnrolmentCampaign() async throws {
        let deadline = Date().addingTimeInterval(7 * 86_400)
        try await withInstances(count: 2, enrollmentDeadline: deadline) { apps, emulator, browser in
            let email = "activity-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            try await browser.signUpAndVerify(email: email, password: "password-123456")
            _ = try await browser.get("/login")
            _ = try await browser.post("/login", ["email": email, "password": "password-123456"])
            var page = try await browser.get("/account")
            #expect(page.element(id: "enrollment-due")?.contains("Add an authenticator app by") == true)
            #expect(page.body.contains("id=\"no-activity\""))

            let totp = try await browser.enroll(clock: emulator.emulator.clock)
            page = try await browser.get("/account")
            #expect(page.element(id: "enrollment-due") == nil)
            #expect(page.body.contains("data-kind=\"factor_enrolled\""))
            #expect(page.body.contains("data-kind=\"recovery_codes_issued\""))
            let notified = try await apps[0].outbox.pending(limit: 10)
            #expect(notified.map(\.kind) == ["factor_enrolled"])
            #expect(notified.first?.recipient == email)
            #expect(notified.first?.subject == "A second factor was added to your account")

            _ = try await browser.post("/logout", [:])
            #expect(
                try await browser.post("/login", ["email": email, "password": "password-123456"]).location
                    == "/login/totp")
            let step = try totp.step(at: Int64(emulator.emulator.clock.now.timeIntervalSince1970)) + 1
            #expect(
                try await browser.post("/login/totp", ["code": Self.wrong(totp.code(step: step))]).status
                    == .unauthorized)
            #expect(try await browser.post("/login/totp", ["code": totp.code(step: step)]).location == "/account")
            page = try await browser.get("/account")
            let kinds = page.body.matches(of: #/data-kind="([a-z_]+)"/#).map { String($0.output.1) }
            #expect(Array(kinds.prefix(2)) == ["code_refused", "sessions_revoked"], "\(kinds)")
            #expect(Set(kinds.dropFirst(2)) == ["factor_enrolled", "recovery_codes_issued"], "\(kinds)")
            #expect(page.body.contains("signed out everywhere (by you)"))
            // Signing out oneself is no news to mail.
            #expect(try await apps[1].outbox.pending(limit: 10).count == 1)
            let uid = try await apps[0].backend.admin.getUser(email: email).uid
            let events = try await apps[0].securityEvents.recentEvents(for: UserKey(uid: uid), limit: 10)
            #expect(events.allSatisfy { $0.context?.requestID != nil })
            #expect(!"\(events)".contains(email))
        }
        // After the deadline, an account without a factor can only enroll.
        try await withInstances(count: 1, enrollmentDeadline: Date().addingTimeInterval(-60)) { _, _, browser in
            let email = "late-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            try await browser.signUpAndVerify(email: email, password: "password-123456")
            _ = try await browser.get("/login")
            _ = try await browser.post("/login", ["email": email, "password": "password-123456"])
            let page = try await browser.get("/account")
            #expect(page.location == "/enroll?reason=required")
            #expect(
                try await browser.get("/enroll?reason=required").body.contains(
                    "This account needs an authenticator app now"))
        }
    }

    /// The app's `beforeSignIn` blocking function, called by the emulator
    /// over HTTP (the app is live): in the app's tenant a new account signs
    /// in and enrols; one past the enrolment grace without TOTP is refused
    /// (the sign-in page shows the function's message), while one with
    /// TOTP signs in; a listed address gets its `role` claim.
    @Test func theBlockingFunctionRefusesATenantsUserWithoutTOTPAndAddsTheRole() async throws {
        let project = "totp-login-\(UUID().uuidString.prefix(8).lowercased())"
        try await IdentityToolkitEmulator(
            configuration: EmulatorConfiguration(port: 0, projectID: project)
        ).serving { emulator in
            let tenantID = try await IdentityBackend.tenant(
                named: "Staff", emulatorHost: emulator.host, emulatorPort: emulator.port, projectID: project)
            #expect(
                try await IdentityBackend.tenant(
                    named: "Staff", emulatorHost: emulator.host, emulatorPort: emulator.port, projectID: project)
                    == tenantID,
                "found again by its name, not made twice")
            let backend = try IdentityBackend(
                emulatorHost: emulator.host, emulatorPort: emulator.port, projectID: project, tenantID: tenantID)
            try await backend.enableTOTP()
            var quiet = Logger(label: "TOTPLoginTests")
            quiet.logLevel = .critical
            let app = TOTPLoginApp(
                backend: backend, state: .sealedCookie(keyRing: try SealingKeyRing([SealingKey.random(id: "k1")])),
                attempts: ExpiringStateTOTPVerificationStore(), recoveryCodes: ExpiringStateRecoveryCodeStore(),
                logger: quiet,
                signInRules: SignInRules(
                    totpTenant: tenantID, enrollmentGrace: .seconds(30),
                    roles: InMemoryRoleDirectory(["Alice@Example.com": "admin"])))
            try await Application(router: app.router(), configuration: .init(address: .hostname("127.0.0.1", port: 0)))
                .test(.live) { client in
                    let url = "http://127.0.0.1:\(client.port!)" + TOTPLoginApp.beforeSignInPath
                    app.serveBlockingFunction(at: url, replayStore: ExpiringStateTOTPVerificationStore())
                    try await backend.configureBeforeSignIn(functionURL: url)
                    let clock = emulator.emulator.clock
                    let alice = TestBrowser(clients: [client], cookieName: app.cookies.browserCookieName)
                    let bob = alice.stranger()

                    // A new account of the tenant signs in (within the grace), sees its role, and enrols.
                    try await alice.signUpAndVerify(email: "alice@example.com", password: "password-123456")
                    _ = try await alice.get("/login")
                    #expect(
                        try await alice.post("/login", ["email": "alice@example.com", "password": "password-123456"])
                            .location == "/account")
                    #expect(try await alice.get("/account").element(id: "role") == "admin")
                    let totp = try await alice.enroll(clock: clock)
                    try await bob.signUpAndVerify(email: "bob@example.com", password: "password-123456")
                    _ = try await alice.post("/logout", [:])

                    // Past the grace (Identity Platform's clock: the event's own), without TOTP: refused, nothing signed in.
                    clock.advance(by: 40)
                    _ = try await bob.get("/login")
                    let refused = try await bob.post(
                        "/login", ["email": "bob@example.com", "password": "password-123456"])
                    #expect(refused.status == .unauthorized)
                    #expect(refused.body.contains("This organisation requires an authenticator app"), "\(refused.body)")
                    #expect(try await bob.get("/account").location?.hasPrefix("/login") == true)

                    // With TOTP: the function is called after the second factor, and allows it.
                    _ = try await alice.get("/login")
                    #expect(
                        try await alice.post("/login", ["email": "alice@example.com", "password": "password-123456"])
                            .location == "/login/totp")
                    let step = try totp.step(at: Int64(clock.now.timeIntervalSince1970)) + 1
                    #expect(try await alice.post("/login/totp", ["code": totp.code(step: step)]).location == "/account")
                    let account = try await alice.get("/account")
                    #expect(account.element(id: "role") == "admin")
                    #expect(account.element(id: "second-factor") == "totp")
                    let stored = try await backend.admin.getUser(email: "alice@example.com")
                    #expect(stored.tenantID == tenantID)
                    #expect(stored.customClaims?[SignInRules.roleClaim] == .string("admin"))
                    #expect(
                        try await backend.admin.getUser(email: "bob@example.com").customClaims?[SignInRules.roleClaim]
                            == nil)
                }
        }
    }

    @Test func rolesParseOrSayWhichEntryIsWrong() async throws {
        let roles = try InMemoryRoleDirectory.parse(" Alice@Example.com = admin , bob@example.com=support,")
        #expect(roles == ["alice@example.com": "admin", "bob@example.com": "support"])
        #expect(try await InMemoryRoleDirectory(roles).role(forEmail: "ALICE@example.com") == "admin")
        for bad in [
            "alice@example.com", "admin=alice", "alice@example.com=", "a@b.c=" + String(repeating: "x", count: 65),
        ] {
            #expect(throws: AppError.self) { try InMemoryRoleDirectory.parse(bad) }
        }
    }

    /// A phone 90 s fast enrolls (Identity Platform's window takes its
    /// code), and the app, which holds the key only then, says so on the
    /// account page and records the drift; a phone on time hears nothing.
    @Test func enrolmentNoticesAPhoneWhoseClockIsOff() async throws {
        try await withApp { app, emulator, browser in
            let email = "drift-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            try await browser.signUpAndVerify(email: email, password: "password-123456")
            _ = try await browser.get("/login")
            _ = try await browser.post("/login", ["email": email, "password": "password-123456"])
            let page = try await browser.get("/enroll")
            let totp = try TestBrowser.generator(page)
            let fast = try totp.code(at: Int64(emulator.emulator.clock.now.timeIntervalSince1970) + 90)
            let done = try await browser.post("/enroll", ["displayName": "fast phone", "code": fast])
            #expect(done.body.contains("href=\"/account?done=enrolled&amp;clock=90\""))
            let account = try await browser.get("/account?done=enrolled&clock=90")
            #expect(account.body.contains("Your phone&#39;s clock seems about 90 seconds fast"))
            #expect(account.body.contains("data-kind=\"clock_drift_noticed\""))
            let uid = try await app.backend.admin.getUser(email: email).uid
            let drift = try await app.securityEvents.recentEvents(for: UserKey(uid: uid), limit: 10).first {
                $0.kind == .clockDriftNoticed
            }
            #expect(drift?.clockOffsetSeconds == 90)
            // (A phone on time hears nothing: theWholeStory's next link has no `clock`.)
        }
    }

    /// New codes need a sign-in that used the authenticator minutes ago.
    @Test func newRecoveryCodesNeedAFreshTOTPSignIn() async throws {
        try await withApp { _, emulator, browser in
            let email = "codes-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            try await browser.signUpAndVerify(email: email, password: "password-123456")
            _ = try await browser.get("/login")
            _ = try await browser.post("/login", ["email": email, "password": "password-123456"])
            _ = try await browser.get("/account")
            // A password-only session cannot make codes.
            #expect(try await browser.post("/recovery-codes", [:]).location == "/login?reason=recent-sign-in")
            _ = try await browser.get("/login")
            _ = try await browser.post("/login", ["email": email, "password": "password-123456"])
            try await browser.enroll(clock: emulator.emulator.clock)
            let first = browser.lastRecoveryCodes
            _ = try await browser.get("/account")
            let page = try await browser.post("/recovery-codes", [:])
            #expect(page.status == .ok)
            #expect(page.recoveryCodes.count == 10)
            #expect(Set(page.recoveryCodes).isDisjoint(with: first), "a new set replaces the old one")
            #expect(page.body.contains("download=\"recovery-codes.txt\""))
        }
    }
}
