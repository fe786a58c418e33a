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
