import Foundation
import HTTPTypes
import IdentityOTP
import IdentityToolkit
import IdentityToolkitEmulator
import Testing

/// The emulator's page (`/emulator/ui`): what it shows, its forms, and the
/// rules that keep other pages from reading or driving it.
@Suite struct ConsoleTests {
    static let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]

    /// The value of the page's form token.
    static func formToken(in page: String) throws -> String {
        let marker = #"name="csrf" value=""#
        let start = try #require(page.range(of: marker)).upperBound
        return String(page[start...].prefix { $0 != "\"" })
    }

    static func encoded(_ fields: [String: String]) -> Data {
        var components = URLComponents()
        components.queryItems = fields.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        return Data((components.percentEncodedQuery ?? "").utf8)
    }

    @Test func pageShowsUsersFactorsCurrentCodesAndPendingCodes() async throws {
        try await withEmulator { harness in
            try await harness.enableTOTP()
            let session = try await harness.verifiedUser("ada@example.com")
            let (secret, enrollmentID, _) = try await harness.enrollTOTP(session)
            _ = try await harness.accounts.sendOobCode(
                GetOobCodeRequest(requestType: .passwordReset, email: "ada@example.com"))
            harness.clock.set(Date(timeIntervalSince1970: 1_900_000_000))
            let page = try await harness.raw(.get, "/emulator/ui")
            #expect(page.status == 200)
            #expect(page.headers[.contentType]?.hasPrefix("text/html") == true)
            let html = String(decoding: page.body, as: UTF8.self)
            #expect(html.contains("ada@example.com") && html.contains(session.uid))
            // The code an authenticator shows now, computed here independently.
            let expected = try TOTP(key: try Base32.decode(secret)).code(at: Int64(1_900_000_000))
            #expect(html.contains(#"data-factor="\#(enrollmentID)">\#(expected)</code>"#), "\(html)")
            #expect(html.contains("PASSWORD_RESET"))
            #expect(html.contains("2030-03-17T17:46:40Z"))
        }
    }

    @Test func formsActWithTheTokenAndNotWithout() async throws {
        try await withEmulator { harness in
            try await harness.enableTOTP()
            let session = try await harness.verifiedUser("ada@example.com")
            let (_, enrollmentID, _) = try await harness.enrollTOTP(session)
            let token = try Self.formToken(
                in: String(decoding: try await harness.raw(.get, "/emulator/ui").body, as: UTF8.self))

            // No token, a wrong one: refused, nothing changes.
            for fields in [
                ["action": "deleteUser", "uid": session.uid],
                ["action": "deleteUser", "uid": session.uid, "csrf": "guess"],
            ] {
                let refused = try await harness.raw(
                    .post, "/emulator/ui", body: Self.encoded(fields), headers: Self.form)
                #expect(refused.status == 400 || refused.status == 403, "\(refused.status)")
            }
            #expect(
                try await harness.admin.lookupAccounts(
                    targetProjectId: Harness.project, body: GetAccountInfoRequest(localId: [session.uid])
                ).users?.count == 1)

            let withdrawn = try await harness.raw(
                .post, "/emulator/ui",
                body: Self.encoded([
                    "action": "withdrawFactor", "uid": session.uid, "factor": enrollmentID, "csrf": token,
                ]),
                headers: Self.form)
            #expect(String(decoding: withdrawn.body, as: UTF8.self).contains("Withdrew the factor"))
            let user = try await harness.admin.lookupAccounts(
                targetProjectId: Harness.project, body: GetAccountInfoRequest(localId: [session.uid])
            ).users?.first
            #expect(user?.mfaInfo == nil)

            let before = harness.clock.now
            _ = try await harness.raw(
                .post, "/emulator/ui",
                body: Self.encoded(["action": "advanceClock", "seconds": "3600", "csrf": token]), headers: Self.form)
            #expect(harness.clock.now.timeIntervalSince(before) >= 3600)

            let deleted = try await harness.raw(
                .post, "/emulator/ui", body: Self.encoded(["action": "deleteUser", "uid": session.uid, "csrf": token]),
                headers: Self.form)
            #expect(String(decoding: deleted.body, as: UTF8.self).contains("Deleted the user"))
            #expect(
                try await harness.admin.lookupAccounts(
                    targetProjectId: Harness.project, body: GetAccountInfoRequest(localId: [session.uid])
                ).users == nil)

            // An action that fails says so on the page.
            let again = try await harness.raw(
                .post, "/emulator/ui", body: Self.encoded(["action": "deleteUser", "uid": session.uid, "csrf": token]),
                headers: Self.form)
            #expect(again.status == 200 && String(decoding: again.body, as: UTF8.self).contains("role=\"alert\""))
        }
    }

    /// Another origin — even a loopback one, which the API allows — cannot
    /// read the page (no CORS grant) nor post its forms; the page forbids
    /// framing and scripts.
    /// Over a socket: the page's own origin is the one its `Host` names.
    @Test func otherOriginsCannotReadOrDriveThePage() async throws {
        try await withEmulator(overSocket: true) { harness in
            let elsewhere: HTTPFields = [HTTPField.Name("Origin")!: "http://localhost:3000"]
            let page = try await harness.raw(.get, "/emulator/ui", headers: elsewhere)
            #expect(page.headers[HTTPField.Name("Access-Control-Allow-Origin")!] == nil)
            #expect(page.headers[HTTPField.Name("Content-Security-Policy")!]?.contains("default-src 'none'") == true)
            #expect(page.headers[HTTPField.Name("X-Frame-Options")!] == "DENY")
            let token = try Self.formToken(in: String(decoding: page.body, as: UTF8.self))
            var headers = Self.form
            headers[HTTPField.Name("Origin")!] = "http://localhost:3000"
            let posted = try await harness.raw(
                .post, "/emulator/ui", body: Self.encoded(["action": "releaseClock", "csrf": token]), headers: headers)
            #expect(posted.status == 403)
            let preflight = try await harness.raw(.options, "/emulator/ui", headers: elsewhere)
            #expect(preflight.headers[HTTPField.Name("Access-Control-Allow-Origin")!] == nil)
            // The API itself still serves that origin (web apps on localhost).
            let api = try await harness.raw(.get, "/emulator/v1/clock", headers: elsewhere)
            #expect(api.headers[HTTPField.Name("Access-Control-Allow-Origin")!] == "http://localhost:3000")
            // The page's own origin may post.
            headers[HTTPField.Name("Origin")!] = harness.baseURL
            let own = try await harness.raw(
                .post, "/emulator/ui", body: Self.encoded(["action": "releaseClock", "csrf": token]), headers: headers)
            #expect(own.status == 200)
        }
    }

    /// Everything from the state is escaped.
    @Test func hostileValuesAreEscaped() async throws {
        try await withEmulator { harness in
            _ = try await harness.admin.createAccount(
                targetProjectId: Harness.project,
                body: SignUpRequest(
                    email: "x@example.com", displayName: #"<script>alert(1)</script>"#,
                    localId: #"u"><img src=x onerror=alert(1)>"#))
            let html = String(decoding: try await harness.raw(.get, "/emulator/ui?tenant=%3Cb%3E").body, as: UTF8.self)
            #expect(!html.contains("<script>alert") && !html.contains("<img src=x"))
            #expect(!html.contains("<b>"))
            let users = String(decoding: try await harness.raw(.get, "/emulator/ui").body, as: UTF8.self)
            #expect(users.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        }
    }

    /// "Export now" writes to the --export-on-exit folder, and says where.
    @Test func exportNow() async throws {
        let folder = ImportExportTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withEmulator(configure: { $0.exportOnExitDirectory = folder.path }) { harness in
            let token = try Self.formToken(
                in: String(decoding: try await harness.raw(.get, "/emulator/ui").body, as: UTF8.self))
            let done = try await harness.raw(
                .post, "/emulator/ui", body: Self.encoded(["action": "exportNow", "csrf": token]), headers: Self.form)
            #expect(String(decoding: done.body, as: UTF8.self).contains("Exported 4 files"))
        }
        #expect(
            FileManager.default.fileExists(atPath: folder.appendingPathComponent("firebase-export-metadata.json").path))
    }
}
