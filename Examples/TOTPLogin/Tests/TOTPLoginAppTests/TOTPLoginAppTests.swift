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
            // The keys stay cached; the revocation cannot reach Identity Platform.
            try await Self.cutOff(emulator)
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
}
