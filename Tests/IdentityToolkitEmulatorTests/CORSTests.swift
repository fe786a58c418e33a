import Foundation
import HTTPTypes
import IdentityToolkit
import Testing

/// A web app on another origin can call the emulator: preflights are
/// answered and every response names the caller's origin.
@Suite struct CORSTests {
    @Test func preflightAndResponsesAllowTheCallersOrigin() async throws {
        let harness = try await Harness.start()
        defer { Task { await harness.stop() } }
        let origin = HTTPField.Name("Origin")!
        let preflight = try await harness.raw(.options, "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k", headers: [
            origin: "http://localhost:5173",
            HTTPField.Name("Access-Control-Request-Method")!: "POST",
            HTTPField.Name("Access-Control-Request-Headers")!: "content-type,x-client-version",
        ])
        #expect(preflight.status == 204)
        #expect(preflight.headers[HTTPField.Name("Access-Control-Allow-Origin")!] == "http://localhost:5173")
        #expect(preflight.headers[HTTPField.Name("Access-Control-Allow-Headers")!] == "content-type,x-client-version")
        #expect(preflight.headers[HTTPField.Name("Access-Control-Allow-Methods")!]?.contains("POST") == true)
        #expect(preflight.headers[.vary] == "Origin")

        // The request itself, and an error, carry the origin too.
        let signUp = try await harness.raw(.post, "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k", body: Data("{}".utf8),
                                           headers: [origin: "http://localhost:5173", .contentType: "application/json"])
        #expect(signUp.status == 200)
        #expect(signUp.headers[HTTPField.Name("Access-Control-Allow-Origin")!] == "http://localhost:5173")
        let missing = try await harness.raw(.get, "/no/such/route", headers: [origin: "https://app.example"])
        #expect(missing.status == 404)
        #expect(missing.headers[HTTPField.Name("Access-Control-Allow-Origin")!] == "https://app.example")
        // Without an Origin (not a browser), any origin is allowed.
        let plain = try await harness.raw(.get, "/emulator/v1/clock")
        #expect(plain.headers[HTTPField.Name("Access-Control-Allow-Origin")!] == "*")
        // A preflight for an admin route needs no credentials (browsers send none).
        let admin = try await harness.raw(.options, "/identitytoolkit.googleapis.com/v2/projects/demo-mfa/config", headers: [origin: "http://localhost:3000"])
        #expect(admin.status == 204)
        #expect(admin.headers[HTTPField.Name("Access-Control-Allow-Headers")!]?.contains("Authorization") == true)
    }
}
