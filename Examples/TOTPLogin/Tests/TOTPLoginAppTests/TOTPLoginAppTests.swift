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

/// The app's routes driven as a browser would (cookies kept, forms posted
/// with their CSRF token), against an emulator in this process.
@Suite struct TOTPLoginAppTests {
    /// The whole story: sign-up → verify → sign-in → enroll → sign-out →
    /// sign-in with TOTP → remove the factor.
    @Test func theWholeStory() async throws {
        try await withApp { app, emulator, browser in
            let email = "story-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            let password = "story-password-\(UUID().uuidString)"
            try await browser.signUpAndVerify(email: email, password: password)

            var page = try await browser.post("/login", ["email": email, "password": password])
            #expect(page.location == "/account")
            #expect(page.setCookies[TOTPLoginApp.sessionCookieName]?.contains("HttpOnly") == true)
            #expect(page.setCookies[TOTPLoginApp.sessionCookieName]?.contains("SameSite=Lax") == true)
            page = try await browser.get("/account")
            #expect(page.status == .ok)
            #expect(page.body.contains("id=\"no-factors\""))
            #expect(page.body.contains("with a password only"))

            page = try await browser.get("/enroll")
            #expect(page.status == .ok)
            #expect(page.body.contains("<svg"))
            let secret = try #require(page.element(id: "secret"))
            let uri = try #require(page.element(id: "otpauth-uri"))
            #expect(uri.hasPrefix("otpauth://totp/"))
            let totp = try TOTP(key: try Base32.decode(secret), digits: 6, period: 30)
            let step = try totp.step(at: Int64(emulator.emulator.clock.now.timeIntervalSince1970))

            page = try await browser.post(
                "/enroll", ["displayName": "Test phone", "code": Self.wrong(totp.code(step: step))])
            #expect(page.status == .badRequest)
            #expect(page.body.contains("ERROR_INVALID_VERIFICATION_CODE"))
            #expect(page.element(id: "secret") == secret, "a mistyped code keeps the same key on the page")

            page = try await browser.post("/enroll", ["displayName": "Test phone", "code": totp.code(step: step)])
            // The first authenticator comes with recovery codes, shown once.
            #expect(page.status == .ok)
            #expect(page.recoveryCodes.count == 10)
            #expect(page.body.contains("id=\"next\" href=\"/account?done=enrolled\""))
            #expect(
                page.setCookies[TOTPLoginApp.sessionCookieName] != nil,
                "the session cookie is made anew from the enrollment's token")
            page = try await browser.get("/account")
            #expect(page.body.contains("Test phone"))
            #expect(page.element(id: "second-factor") == "totp")

            page = try await browser.post("/logout", [:])
            #expect(page.location == "/login?reason=signed-out")
            #expect(try await browser.get("/account").location == "/login")

            page = try await browser.post("/login", ["email": email, "password": password])
            #expect(page.location == "/login/totp")
            #expect(page.setCookies[TOTPLoginApp.sessionCookieName] == nil, "no session before the second factor")
            #expect(try await browser.get("/account").location == "/login")
            page = try await browser.get("/login/totp")
            #expect(page.body.contains("Test phone"))
            page = try await browser.post("/login/totp", ["code": Self.wrong(totp.code(step: step + 1))])
            #expect(page.status == .unauthorized)
            #expect(page.body.contains("ERROR_INVALID_VERIFICATION_CODE"))
            // A code is used once: the next step's code, as an app shows 30 s later.
            page = try await browser.post("/login/totp", ["code": totp.code(step: step + 1)])
            #expect(page.location == "/account")
            page = try await browser.get("/account")
            #expect(page.element(id: "second-factor") == "totp")

            let factorUID = try #require(page.firstMatch(of: #/name="factorUID" value="([^"]+)"/#))
            page = try await browser.post("/unenroll", ["factorUID": factorUID])
            #expect(page.location == "/account?done=unenrolled")
            page = try await browser.get("/account")
            #expect(page.status == .ok)
            #expect(page.body.contains("id=\"no-factors\""))
            _ = app
        }
    }

    @Test func formsWithoutTheCSRFTokenAreRefused() async throws {
        try await withApp { _, _, browser in
            _ = try await browser.get("/login")
            var page = try await browser.post(
                "/login", ["email": "a@example.com", "password": "whatever"], csrf: "forged")
            #expect(page.status == .forbidden)
            page = try await browser.post("/login", ["email": "a@example.com", "password": "whatever"], csrf: "")
            #expect(page.status == .forbidden)
            // A form posted from another site arrives without the browser cookie.
            let stranger = browser.stranger()
            page = try await stranger.post(
                "/login", ["email": "a@example.com", "password": "whatever"], csrf: browser.csrf)
            #expect(page.status == .forbidden)
            // The real token works (and reaches Identity Platform: no such user).
            page = try await browser.post("/login", ["email": "a@example.com", "password": "whatever"])
            #expect(page.status == .unauthorized)
            #expect(page.body.contains("id=\"error\""))
        }
    }

    @Test func aTamperedOrRevokedCookieIsRefused() async throws {
        try await withApp { app, _, browser in
            let email = "revoke-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            try await browser.signUpAndVerify(email: email, password: "password-123456")
            _ = try await browser.post("/login", ["email": email, "password": "password-123456"])
            let cookie = try #require(browser.cookies[TOTPLoginApp.sessionCookieName])
            #expect(try await browser.get("/account").status == .ok)

            var tampered = Array(cookie)
            tampered[tampered.count - 2] = tampered[tampered.count - 2] == "A" ? "B" : "A"
            browser.cookies[TOTPLoginApp.sessionCookieName] = String(tampered)
            var page = try await browser.get("/account")
            #expect(page.location == "/login?reason=invalid-session")
            #expect(page.setCookies[TOTPLoginApp.sessionCookieName]?.contains("Max-Age=0") == true)

            browser.cookies[TOTPLoginApp.sessionCookieName] = cookie
            #expect(try await browser.get("/account").status == .ok)
            // Revocation is judged in whole seconds after the sign-in.
            try await Task.sleep(for: .milliseconds(1100))
            let uid = try await app.backend.admin.getUser(email: email).uid
            try await app.backend.admin.revokeRefreshTokens(uid: uid)
            page = try await browser.get("/account")
            #expect(page.location == "/login?reason=sessions-ended")
        }
    }

    /// The signed-in pages sit behind the SDK's `FirebaseAuthenticator`; the
    /// app turns its refusals into the sign-in page's answers.
    @Test func theSessionMiddlewareAnswersWithTheSignInPage() async throws {
        try await withApp { app, emulator, browser in
            // No session cookie: on to the sign-in page, nothing to clear.
            var page = try await browser.get("/")
            #expect(page.location == "/login")
            page = try await browser.get("/account")
            #expect(page.location == "/login")
            #expect(page.setCookies[TOTPLoginApp.sessionCookieName] == nil)
            _ = try await browser.get("/login")
            #expect(try await browser.post("/recovery-codes", [:]).location == "/login")

            // A session made 90 minutes ago (the emulator's clock set back)
            // expired 30 minutes ago: the page says so and clears the cookie.
            let email = "expiry-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            #expect(emulator.emulator.clock.advance(by: -90 * 60))
            try await browser.signUpAndVerify(email: email, password: "password-123456")
            page = try await browser.post("/login", ["email": email, "password": "password-123456"])
            #expect(emulator.emulator.clock.advance(by: 90 * 60))
            // The sign-in's redirect to the account page already finds it expired.
            #expect(browser.followed?.location == "/login?reason=expired")
            #expect(browser.followed?.setCookies[TOTPLoginApp.sessionCookieName]?.contains("Max-Age=0") == true)
            let setCookie = try #require(page.setCookies[TOTPLoginApp.sessionCookieName])
            let expired = try #require(setCookie.firstMatch(of: #/^[^=]+=([^;]+)/#)).1
            for path in ["/", "/enroll"] {
                browser.cookies[TOTPLoginApp.sessionCookieName] = String(expired)
                page = try await browser.get(path)
                #expect(page.location == "/login?reason=expired")
                #expect(browser.cookies[TOTPLoginApp.sessionCookieName] == nil)
            }

            // A session of now: "/" leads to the account page.
            _ = try await browser.get("/login")
            _ = try await browser.post("/login", ["email": email, "password": "password-123456"])
            #expect(try await browser.get("/").location == "/account")
            let valid = try #require(browser.cookies[TOTPLoginApp.sessionCookieName])

            // Identity Platform out of reach (no keys): a 503 page, and the
            // cookie, which may be fine, is kept.
            let unreachable = try IdentityBackend(
                emulatorHost: "127.0.0.1", emulatorPort: 1, projectID: app.backend.projectID,
                transport: .failingFast)
            let cut = TOTPLoginApp(
                backend: unreachable,
                state: .store(
                    InMemoryExpiringStateStore(), name: "memory",
                    keyRing: try! SealingKeyRing([SealingKey.random(id: "test")])),
                attempts: ExpiringStateTOTPVerificationStore(), recoveryCodes: ExpiringStateRecoveryCodeStore(),
                logger: app.logger)
            try await Application(router: cut.router()).test(.router) { client in
                let response = try await client.execute(
                    uri: "/account", method: .get,
                    headers: [.cookie: "\(TOTPLoginApp.sessionCookieName)=\(valid)"])
                #expect(response.status == .serviceUnavailable)
                #expect(response.headers[.setCookie] == nil)
                let body = String(buffer: response.body)
                #expect(body.contains("Try again shortly"))
                #expect(!body.contains(valid))
            }
        }
    }

    /// Sign-out once failed open: when the revocation failed it still said
    /// "You are signed out". Now the cookie is cleared and the page says the
    /// sessions elsewhere may still be live, with a way to try again.
    @Test func aSignOutThatCannotRevokeSaysSo() async throws {
        try await withApp { app, emulator, browser in
            let email = "signout-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            try await browser.signUpAndVerify(email: email, password: "password-123456")
            _ = try await browser.post("/login", ["email": email, "password": "password-123456"])
            #expect(try await browser.get("/account").status == .ok)
            _ = try await browser.get("/logout")
            await emulator.stop() // the keys stay cached; the revocation cannot reach Identity Platform
            let page = try await browser.post("/logout", [:])
            #expect(page.status == .serviceUnavailable)
            #expect(page.body.contains("data-reason=\"sessions-not-revoked\""))
            #expect(!page.body.contains("You are signed out."))
            #expect(browser.cookies[TOTPLoginApp.sessionCookieName] == nil, "the cookie is cleared either way")
            let retried = try await browser.post("/logout/retry", [:])
            #expect(retried.status == .serviceUnavailable && retried.body.contains("id=\"retry-logout\""))
        }
    }

    /// A session made before the user enrolled (from another browser) no
    /// longer opens the account page: the policy wants the second factor.
    @Test func aPasswordOnlySessionEndsWhenTheUserHasAFactor() async throws {
        try await withApp { app, emulator, first in
            let email = "policy-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            try await first.signUpAndVerify(email: email, password: "password-123456")
            _ = try await first.post("/login", ["email": email, "password": "password-123456"])
            let second = first.stranger()
            _ = try await second.get("/login")
            _ = try await second.post("/login", ["email": email, "password": "password-123456"])
            try await second.enroll(clock: emulator.emulator.clock)
            #expect(try await second.get("/account").status == .ok)
            let page = try await first.get("/account")
            #expect(page.location == "/login?reason=second-factor")
            _ = app
        }
    }

    @Test func theDocumentedSecondFactorErrorsHaveTheirPages() async throws {
        try await withApp { _, emulator, browser in
            let email = "errors-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            try await browser.signUpAndVerify(email: email, password: "password-123456")
            _ = try await browser.post("/login", ["email": email, "password": "password-123456"])
            let totp = try await browser.enroll(clock: emulator.emulator.clock)
            _ = try await browser.post("/logout", [:])

            // Too many wrong codes: the challenge is spent.
            #expect(
                try await browser.post("/login", ["email": email, "password": "password-123456"]).location
                    == "/login/totp")
            var page = try await browser.post("/login/totp", ["code": "000000"])
            for _ in 0..<10 where page.status == .unauthorized {
                page = try await browser.post("/login/totp", ["code": "000000"])
            }
            #expect(page.status == .tooManyRequests)
            #expect(page.element(id: "error-code")?.hasPrefix("ERROR_TOO_MANY_REQUESTS") == true)

            // An expired challenge: the emulator's clock moves past its lifetime.
            #expect(
                try await browser.post("/login", ["email": email, "password": "password-123456"]).location
                    == "/login/totp")
            emulator.emulator.clock.advance(by: 6 * 60)
            defer { emulator.emulator.clock.advance(by: -6 * 60) }
            let step = try totp.step(at: Int64(emulator.emulator.clock.now.timeIntervalSince1970))
            page = try await browser.post("/login/totp", ["code": totp.code(step: step)])
            #expect(page.status == .unauthorized)
            #expect(page.element(id: "error-code")?.hasPrefix("ERROR_INVALID_MULTI_FACTOR_SESSION") == true)
        }
    }

    @Test func signUpErrorsNameFirebasesSentence() async throws {
        try await withApp { _, _, browser in
            _ = try await browser.get("/signup")
            let page = try await browser.post("/signup", ["email": "weak@example.com", "password": "123"])
            #expect(page.status == .badRequest)
            #expect(page.body.contains("id=\"error\""))
            #expect(!page.body.contains("123\""), "the password is not echoed back")
        }
    }

    @Test func pagesEscapeWhatTheyShow() {
        #expect(escaped("<script>\"&'") == "&lt;script&gt;&quot;&amp;&#39;")
        let html = Pages.signUp(csrf: "t", email: "\"><script>alert(1)</script>")
        #expect(!html.contains("<script>alert"))
    }

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
        let emulator = try await IdentityToolkitEmulator(
            configuration: EmulatorConfiguration(port: 0, projectID: project)
        ).start()
        do {
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
        } catch {
            await emulator.stop()
            throw error
        }
        await emulator.stop()
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
        let emulator = try await IdentityToolkitEmulator(
            configuration: EmulatorConfiguration(port: 0, projectID: project)
        ).start()
        let backend = try IdentityBackend(emulatorHost: emulator.host, emulatorPort: emulator.port, projectID: project)
        var quiet = Logger(label: "TOTPLoginTests")
        quiet.logLevel = .critical
        let store = InMemoryExpiringStateStore()
        let app = TOTPLoginApp(
            backend: backend,
            state: .store(store, name: "memory", keyRing: try SealingKeyRing([SealingKey.random(id: "k1")])),
            attempts: ExpiringStateTOTPVerificationStore(), recoveryCodes: ExpiringStateRecoveryCodeStore(),
            logger: quiet)
        do {
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
        } catch {
            await emulator.stop()
            throw error
        }
        await emulator.stop()
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

    // MARK: Harness

    static func wrong(_ code: String) -> String {
        String(code.map { $0 == "9" ? "0" : Character(String(($0.wholeNumberValue ?? 0) + 1)) })
    }

    func withApp(_ body: @Sendable (TOTPLoginApp, RunningEmulator, TestBrowser) async throws -> Void) async throws {
        try await withInstances(count: 1) { apps, emulator, browser in try await body(apps[0], emulator, browser) }
    }

    /// Where the instances of one test keep their state.
    enum SharedState {
        /// One in-memory store, as PostgreSQL's is shared.
        case store
        /// Sealed cookies, every instance with the same keys.
        case sealed
    }

    /// `count` instances of the app on one emulator, sharing their state and
    /// attempt counts as a fleet behind a balancer does; the browser sends
    /// each request to the next instance in turn (round robin).
    func withInstances(
        count: Int, state: SharedState = .store, publicURL: URL? = nil, trustForwardedFor: Bool = false,
        enrollmentDeadline: Date? = nil,
        _ body: @Sendable ([TOTPLoginApp], RunningEmulator, TestBrowser) async throws -> Void
    ) async throws {
        let project = "totp-login-\(UUID().uuidString.prefix(8).lowercased())"
        let emulator = try await IdentityToolkitEmulator(
            configuration: EmulatorConfiguration(port: 0, projectID: project)
        ).start()
        do {
            let backend = try IdentityBackend(
                emulatorHost: emulator.host, emulatorPort: emulator.port, projectID: project)
            try await backend.enableTOTP()
            var quiet = Logger(label: "TOTPLoginTests")
            quiet.logLevel = .critical
            let configuration: BrowserStateConfiguration =
                switch state {
                case .store:
                    .store(
                        InMemoryExpiringStateStore(), name: "memory",
                        keyRing: try! SealingKeyRing([SealingKey.random(id: "test")]))
                case .sealed: .sealedCookie(keyRing: try SealingKeyRing([SealingKey.random(id: "k1")]))
                }
            let attempts = ExpiringStateTOTPVerificationStore()
            let recoveryCodes = ExpiringStateRecoveryCodeStore()
            let (events, outbox) = (AppendOnlySecurityEventLog(), InMemoryNotificationOutbox())
            let apps = (0..<count).map { _ in
                TOTPLoginApp(
                    backend: backend, state: configuration, attempts: attempts, recoveryCodes: recoveryCodes,
                    publicURL: publicURL,
                    trustForwardedFor: trustForwardedFor, logger: quiet, securityEvents: events, outbox: outbox,
                    enrollmentDeadline: enrollmentDeadline)
            }
            try await Self.withClients(apps[...], []) { clients in
                try await body(
                    apps, emulator, TestBrowser(clients: clients, cookieName: apps[0].cookies.browserCookieName))
            }
        } catch {
            await emulator.stop()
            throw error
        }
        await emulator.stop()
    }

    /// A test client for each app, nested.
    static func withClients(
        _ apps: ArraySlice<TOTPLoginApp>, _ clients: [any TestClientProtocol],
        _ body: @Sendable ([any TestClientProtocol]) async throws -> Void
    ) async throws {
        guard let first = apps.first else { return try await body(clients) }
        try await Application(router: first.router()).test(.router) { client in
            try await withClients(apps.dropFirst(), clients + [client], body)
        }
    }
}

/// A browser for the tests: keeps cookies, fills in the CSRF token.
final class TestBrowser: @unchecked Sendable {
    /// The instances, one after the other per request (a round-robin balancer).
    let clients: [any TestClientProtocol]
    /// The browser-state cookie's name.
    let cookieName: String
    var cookies: [String: String] = [:]
    var csrf = ""
    /// Extra headers sent with every request.
    var headers: HTTPFields = [:]
    private var sent = 0
    /// The instance each request reached, in order.
    private(set) var instances: [Int] = []

    init(clients: [any TestClientProtocol], cookieName: String) {
        self.clients = clients
        self.cookieName = cookieName
    }

    /// A browser of its own (no cookies) on the same instances.
    func stranger() -> TestBrowser { TestBrowser(clients: clients, cookieName: cookieName) }

    struct Page {
        var status: HTTPResponse.Status
        var body: String
        var location: String?
        var setCookies: [String: String]

        /// The text inside the element with `id` (no nested elements).
        func element(id: String) -> String? {
            guard let range = body.range(of: "id=\"\(id)\"") else { return nil }
            let rest = body[range.upperBound...]
            guard let start = rest.firstIndex(of: ">"), let end = rest[start...].firstIndex(of: "<") else { return nil }
            return String(rest[rest.index(after: start)..<end])
        }

        /// The recovery codes the page shows.
        var recoveryCodes: [String] {
            body.matches(of: #/<li class="recovery-code"><code>([^<]+)</code></li>/#).map { String($0.1) }
        }

        func firstMatch(of regex: Regex<(Substring, Substring)>) -> String? {
            body.firstMatch(of: regex).map { String($0.1) }
        }
    }

    func get(_ path: String) async throws -> Page {
        try await send(path, method: .get, body: nil)
    }

    /// Posts a form and, as a browser does, follows a 303 with a GET (whose
    /// page brings the form's next CSRF token); returns the POST's answer.
    func post(_ path: String, _ fields: [String: String], csrf: String? = nil) async throws -> Page {
        var all = fields
        all["csrf"] = csrf ?? self.csrf
        let body = all.map { "\(Self.encode($0.key))=\(Self.encode($0.value))" }.joined(separator: "&")
        let page = try await send(path, method: .post, body: body)
        if page.status == .seeOther, let location = page.location {
            followed = try await send(location, method: .get, body: nil)
        }
        return page
    }

    /// The `Set-Cookie` lines of the last answer, by cookie name.
    private(set) var lastSetCookies: [String: String] = [:]

    /// The page the last redirect of a POST led to.
    private(set) var followed: Page?

    private func send(_ path: String, method: HTTPRequest.Method, body: String?) async throws -> Page {
        var headers = self.headers
        if !cookies.isEmpty { headers[.cookie] = cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") }
        if body != nil { headers[.contentType] = "application/x-www-form-urlencoded" }
        let instance = sent % clients.count
        sent += 1
        instances.append(instance)
        let response = try await clients[instance].execute(
            uri: path, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
        var set: [String: String] = [:]
        for line in response.headers[values: .setCookie] {
            let pair = line.split(separator: ";", maxSplits: 1)[0].split(
                separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(pair[0])
            let value = pair.count > 1 ? String(pair[1]) : ""
            set[name] = line
            if line.contains("Max-Age=0") { cookies[name] = nil } else { cookies[name] = value }
        }
        lastSetCookies = set
        let page = Page(
            status: response.status, body: String(buffer: response.body), location: response.headers[.location],
            setCookies: set)
        if let token = page.firstMatch(of: #/name="csrf" value="([^"]+)"/#) { csrf = token }
        return page
    }

    static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    /// Signs up, then opens the verification link the page shows.
    func signUpAndVerify(email: String, password: String) async throws {
        _ = try await get("/signup")
        let page = try await post("/signup", ["email": email, "password": password])
        #expect(page.status == .ok)
        let link = try #require(page.firstMatch(of: #/id="verification-link" href="([^"]+)"/#))
        let url = try #require(URL(string: link.replacingOccurrences(of: "&amp;", with: "&")))
        let (_, response) = try await URLSession.shared.data(from: url)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
    }

    /// Enrolls a TOTP factor from the enrollment page; returns its generator.
    @discardableResult
    func enroll(clock: EmulatorClock) async throws -> TOTP {
        let page = try await get("/enroll")
        let secret = try #require(page.element(id: "secret"))
        let totp = try TOTP(key: try Base32.decode(secret), digits: 6, period: 30)
        let step = try totp.step(at: Int64(clock.now.timeIntervalSince1970))
        let done = try await post("/enroll", ["displayName": "phone", "code": totp.code(step: step)])
        // The first enrollment shows the recovery codes; a later one goes on.
        #expect(done.location == "/account?done=enrolled" || done.recoveryCodes.count == 10)
        lastRecoveryCodes = done.recoveryCodes
        // "I saved them": on to the account page (and its forms' token).
        if !done.recoveryCodes.isEmpty { _ = try await get("/account?done=enrolled") }
        return totp
    }

    /// The codes the last enrollment showed (empty when it showed none).
    private(set) var lastRecoveryCodes: [String] = []

    /// The TOTP generator for the key on the enrollment page.
    static func generator(_ page: Page) throws -> TOTP {
        try TOTP(key: try Base32.decode(try #require(page.element(id: "secret"))), digits: 6, period: 30)
    }
}

/// A state store whose database is down.
struct UnreachableStore: ExpiringStateStore {
    struct Down: Error {}
    func setValue(_ value: Data, forKey key: String, expiresAt: Date) async throws { throw Down() }
    func value(forKey key: String, at now: Date) async throws -> Data? { throw Down() }
    func takeValue(forKey key: String, at now: Date) async throws -> Data? { throw Down() }
    func removeValue(forKey key: String) async throws { throw Down() }
    func compareAndSwapValue(forKey key: String, expected: Data?, newValue: Data?, expiresAt: Date, at now: Date)
        async throws -> Bool
    { throw Down() }
}
