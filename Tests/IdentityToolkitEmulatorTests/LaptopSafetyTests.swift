import Foundation
import HTTPTypes
import IdentityToolkit
import IdentityToolkitEmulator
import Testing

/// No web page in the developer's browser can drive the emulator: only
/// loopback origins (and the ones configured) get CORS, a request from
/// another origin is refused before it acts, a `Host` that is not loopback
/// (DNS rebinding) is refused, and the helpers that change state need
/// `Bearer owner`.
@Suite struct LaptopSafetyTests {
    static let origin = HTTPField.Name("Origin")!
    static let allowOrigin = HTTPField.Name("Access-Control-Allow-Origin")!
    static let allowHeaders = HTTPField.Name("Access-Control-Allow-Headers")!

    @Test func loopbackOriginsGetCORSWithTheAPIsHeadersOnly() async throws {
        try await withEmulator { h in
            let preflight = try await h.raw(
                .options, "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k",
                headers: [
                    Self.origin: "http://localhost:5173",
                    HTTPField.Name("Access-Control-Request-Method")!: "POST",
                    HTTPField.Name("Access-Control-Request-Headers")!: "content-type,x-client-version,x-evil-header",
                ])
            #expect(preflight.status == 204)
            #expect(preflight.headers[Self.allowOrigin] == "http://localhost:5173")
            // The headers the API reads, not whatever the preflight asked for.
            let granted = try #require(preflight.headers[Self.allowHeaders])
            #expect(
                granted.contains("Content-Type") && granted.contains("X-Client-Version")
                    && granted.contains("Authorization"))
            #expect(!granted.lowercased().contains("x-evil-header"))
            #expect(preflight.headers[.vary] == "Origin")
            for origin in [
                "http://127.0.0.1:3000", "https://localhost", "http://[::1]:8080", "http://app.localhost:4200",
            ] {
                let signUp = try await h.raw(
                    .post, "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k", body: Data("{}".utf8),
                    headers: [Self.origin: origin, .contentType: "application/json"])
                #expect(signUp.status == 200, "\(origin)")
                #expect(signUp.headers[Self.allowOrigin] == origin)
            }
            // Without an Origin (a tool, not a browser), no CORS header at all.
            let plain = try await h.raw(.get, "/emulator/v1/clock")
            #expect(plain.status == 200 && plain.headers[Self.allowOrigin] == nil)
        }
    }

    /// A page elsewhere cannot act: its "simple" POST (no preflight) is
    /// refused before it runs, so no account is created.
    @Test func otherOriginsAreRefusedBeforeTheyAct() async throws {
        try await withEmulator { h in
            for origin in ["https://evil.example", "http://localhost.evil.example", "null", "http://192.168.1.20:3000"]
            {
                let preflight = try await h.raw(
                    .options, "/identitytoolkit.googleapis.com/v2/projects/\(Harness.project)/config",
                    headers: [Self.origin: origin])
                #expect(preflight.status == 403, "\(origin)")
                #expect(preflight.headers[Self.allowOrigin] == nil)
                let simple = try await h.raw(
                    .post, "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k",
                    body: Data(#"{"email":"csrf@example.com","password":"secret-pw"}"#.utf8),
                    headers: [Self.origin: origin, .contentType: "text/plain"])
                #expect(simple.status == 403, "\(origin)")
                #expect(simple.errorMessage?.hasPrefix("PERMISSION_DENIED") == true)
            }
            let found = try await h.admin.lookupAccounts(
                targetProjectId: Harness.project, body: GetAccountInfoRequest(email: ["csrf@example.com"]))
            #expect(found.users == nil)
        }
        // An origin the configuration names is allowed.
        try await withEmulator(configure: { $0.allowedOrigins = ["https://app.example.test:5000"] }) { h in
            let allowed = try await h.raw(
                .post, "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k", body: Data("{}".utf8),
                headers: [Self.origin: "https://app.example.test:5000", .contentType: "application/json"])
            #expect(allowed.status == 200)
            #expect(allowed.headers[Self.allowOrigin] == "https://app.example.test:5000")
        }
    }

    /// DNS rebinding: a page at `evil.example` that resolves to 127.0.0.1
    /// reaches the port, but its requests name `evil.example`.
    @Test func aHostThatIsNotLoopbackIsRefused() async throws {
        try await withEmulator(overSocket: true, configure: { $0.allowedHosts = ["host.docker.internal"] }) { h in
            let port = try #require(h.port)
            func status(host: String) async throws -> String {
                let connection = try RawConnection(port: port)
                connection.send("GET /emulator/v1/clock HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n")
                return String((await connection.read(timeout: .seconds(5)) ?? "").prefix(12))
            }
            for host in ["evil.example:\(port)", "127.0.0.1.evil.example"] {
                let answer = try await status(host: host)
                #expect(answer == "HTTP/1.1 403", "\(host)")
            }
            for host in [
                "127.0.0.1:\(port)", "localhost", "[::1]:\(port)", "host.docker.internal:9099",
            ] {
                let answer = try await status(host: host)
                #expect(answer == "HTTP/1.1 200", "\(host)")
            }
        }
    }

    /// The helpers that change state need `Bearer owner` from a browser (a
    /// request with an `Origin`) and for a `POST`; the ones that read do not.
    @Test func helpersThatChangeStateNeedTheOwnerFromABrowser() async throws {
        try await withEmulator { (h: Harness) async throws in
            let accounts = "/emulator/v1/projects/\(Harness.project)/accounts"
            let config = "/emulator/v1/projects/\(Harness.project)/config"
            let fromPage: HTTPFields = [HTTPField.Name("Origin")!: "http://localhost:3000"]
            #expect(try await h.raw(.delete, accounts, headers: fromPage).status == 401)
            #expect(
                try await h.raw(
                    .patch, config, body: Data(#"{"signIn": {"allowDuplicateEmails": true}}"#.utf8), headers: fromPage
                ).status == 401)
            #expect(
                try await h.raw(.post, "/emulator/v1/clock", body: Data(#"{"advanceSeconds": 60}"#.utf8)).status == 401)
            #expect(try await h.raw(.post, "/emulator/v1/serviceAccounts", body: Data("{}".utf8)).status == 401)
            #expect(try await h.raw(.get, "/emulator/v1/clock").status == 200)
            #expect(try await h.raw(.get, "/emulator/v1/projects/\(Harness.project)/oobCodes").status == 200)
            #expect(try await h.raw(.get, "/emulator/v1/projects/\(Harness.project)/verificationCodes").status == 200)
            var ownerFromPage = fromPage
            ownerFromPage[.authorization] = "Bearer owner"
            #expect(try await h.raw(.delete, accounts, headers: ownerFromPage).status == 200)
        }
    }

    /// A test harness clears the emulator as Google's suites do: a plain
    /// `DELETE` or `PATCH` with no credential and no `Origin` (which no
    /// browser sends); the admin API still needs its credential.
    @Test func harnessesClearTheEmulatorWithoutTheOwner() async throws {
        try await withEmulator { (h: Harness) async throws in
            _ = try await h.accounts.signUp(
                SignUpRequest(email: "gone@example.com", password: "correct horse", returnSecureToken: true))
            #expect(try await h.raw(.delete, "/emulator/v1/projects/\(Harness.project)/accounts").status == 200)
            let lookup = try await h.raw(
                .post, "/identitytoolkit.googleapis.com/v1/projects/\(Harness.project)/accounts:lookup",
                body: Data(#"{"email": ["gone@example.com"]}"#.utf8), headers: Harness.owner)
            #expect(!String(decoding: lookup.body, as: UTF8.self).contains("gone@example.com"))
            let patched = try await h.raw(
                .patch, "/emulator/v1/projects/\(Harness.project)/config",
                body: Data(#"{"signIn": {"allowDuplicateEmails": true}}"#.utf8))
            #expect(patched.status == 200)
            #expect(try await h.admin.getProjectConfig(project: Harness.project).signIn?.allowDuplicateEmails == true)
            #expect(
                try await h.raw(.delete, "/identitytoolkit.googleapis.com/v2/projects/\(Harness.project)/tenants/t-1")
                    .status == 401)
        }
    }

    /// Serving other machines is an explicit choice.
    @Test func aNonLoopbackHostNeedsAllowRemote() throws {
        #expect(throws: EmulatorConfigurationError.self) {
            try IdentityToolkitEmulator(configuration: EmulatorConfiguration(host: "0.0.0.0", port: 0))
        }
        var remote = EmulatorConfiguration(host: "0.0.0.0", port: 0)
        remote.allowRemote = true
        _ = try IdentityToolkitEmulator(configuration: remote)
        for host in ["127.0.0.1", "127.1.2.3", "localhost", "::1"] {
            _ = try IdentityToolkitEmulator(configuration: EmulatorConfiguration(host: host, port: 0))
        }
    }
}
