import Foundation
import Hummingbird
import HummingbirdTesting
import IdentityToolkitEmulator
import Logging
import OTP
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

            page = try await browser.post("/enroll", ["displayName": "Test phone", "code": Self.wrong(totp.code(step: step))])
            #expect(page.status == .badRequest)
            #expect(page.body.contains("ERROR_INVALID_VERIFICATION_CODE"))
            #expect(page.element(id: "secret") == secret, "a mistyped code keeps the same key on the page")

            page = try await browser.post("/enroll", ["displayName": "Test phone", "code": totp.code(step: step)])
            #expect(page.location == "/account?done=enrolled")
            #expect(page.setCookies[TOTPLoginApp.sessionCookieName] != nil, "the session cookie is made anew from the enrollment's token")
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
            var page = try await browser.post("/login", ["email": "a@example.com", "password": "whatever"], csrf: "forged")
            #expect(page.status == .forbidden)
            page = try await browser.post("/login", ["email": "a@example.com", "password": "whatever"], csrf: "")
            #expect(page.status == .forbidden)
            // A form posted from another site arrives without the browser cookie.
            let stranger = TestBrowser(client: browser.client)
            page = try await stranger.post("/login", ["email": "a@example.com", "password": "whatever"], csrf: browser.csrf)
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

    /// A session made before the user enrolled (from another browser) no
    /// longer opens the account page: the policy wants the second factor.
    @Test func aPasswordOnlySessionEndsWhenTheUserHasAFactor() async throws {
        try await withApp { app, emulator, first in
            let email = "policy-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            try await first.signUpAndVerify(email: email, password: "password-123456")
            _ = try await first.post("/login", ["email": email, "password": "password-123456"])
            let second = TestBrowser(client: first.client)
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
            #expect(try await browser.post("/login", ["email": email, "password": "password-123456"]).location == "/login/totp")
            var page = try await browser.post("/login/totp", ["code": "000000"])
            for _ in 0..<10 where page.status == .unauthorized {
                page = try await browser.post("/login/totp", ["code": "000000"])
            }
            #expect(page.status == .tooManyRequests)
            #expect(page.element(id: "error-code")?.hasPrefix("ERROR_TOO_MANY_REQUESTS") == true)

            // An expired challenge: the emulator's clock moves past its lifetime.
            #expect(try await browser.post("/login", ["email": email, "password": "password-123456"]).location == "/login/totp")
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

    // MARK: Harness

    static func wrong(_ code: String) -> String {
        String(code.map { $0 == "9" ? "0" : Character(String(($0.wholeNumberValue ?? 0) + 1)) })
    }

    func withApp(_ body: @Sendable (TOTPLoginApp, RunningEmulator, TestBrowser) async throws -> Void) async throws {
        let project = "totp-login-\(UUID().uuidString.prefix(8).lowercased())"
        let emulator = try await IdentityToolkitEmulator(configuration: EmulatorConfiguration(port: 0, projectID: project)).start()
        do {
            let backend = try IdentityBackend(emulatorHost: emulator.host, emulatorPort: emulator.port, projectID: project)
            try await backend.enableTOTP()
            var quiet = Logger(label: "TOTPLoginTests")
            quiet.logLevel = .critical
            let app = TOTPLoginApp(backend: backend, logger: quiet)
            let application = Application(router: app.router())
            try await application.test(.router) { client in
                try await body(app, emulator, TestBrowser(client: client))
            }
        } catch {
            await emulator.stop()
            throw error
        }
        await emulator.stop()
    }
}

/// A browser for the tests: keeps cookies, fills in the CSRF token.
final class TestBrowser: @unchecked Sendable {
    let client: any TestClientProtocol
    var cookies: [String: String] = [:]
    var csrf = ""

    init(client: any TestClientProtocol) { self.client = client }

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

        func firstMatch(of regex: Regex<(Substring, Substring)>) -> String? {
            body.firstMatch(of: regex).map { String($0.1) }
        }
    }

    func get(_ path: String) async throws -> Page {
        try await send(path, method: .get, body: nil)
    }

    func post(_ path: String, _ fields: [String: String], csrf: String? = nil) async throws -> Page {
        var all = fields
        all["csrf"] = csrf ?? self.csrf
        let body = all.map { "\(Self.encode($0.key))=\(Self.encode($0.value))" }.joined(separator: "&")
        return try await send(path, method: .post, body: body)
    }

    private func send(_ path: String, method: HTTPRequest.Method, body: String?) async throws -> Page {
        var headers: HTTPFields = [:]
        if !cookies.isEmpty { headers[.cookie] = cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") }
        if body != nil { headers[.contentType] = "application/x-www-form-urlencoded" }
        let response = try await client.execute(uri: path, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
        var set: [String: String] = [:]
        for line in response.headers[values: .setCookie] {
            let pair = line.split(separator: ";", maxSplits: 1)[0].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(pair[0]), value = pair.count > 1 ? String(pair[1]) : ""
            set[name] = line
            if line.contains("Max-Age=0") { cookies[name] = nil } else { cookies[name] = value }
        }
        let page = Page(status: response.status, body: String(buffer: response.body), location: response.headers[.location], setCookies: set)
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
        #expect(done.location == "/account?done=enrolled")
        return totp
    }
}
