import Foundation
import IdentityToolkit
import Testing

@testable import IdentityAdmin

/// IdentityAdmin's three errors: a refused credential, wrong input, a failed call.
@Suite struct ErrorGroupsTests {
    static let admin = IdentityAdmin.emulator(projectID: "demo-errors", hostAndPort: "127.0.0.1:1")

    static func body(_ error: TokenVerificationError) throws -> [String: String] {
        let object = try JSONSerialization.jsonObject(with: error.jsonBody) as? [String: [String: String]]
        return try #require(object?["error"])
    }

    /// A refusal is the same error whether a route or a direct call made
    /// it; only a route's answer names the Bearer scheme.
    @Test func aRouteRefusalEqualsTheDirectOne() async throws {
        let route = FirebaseRouteProtection(Self.admin)
        let missing = await #expect(throws: TokenVerificationError.self) {
            _ = try await route.authenticate(authorization: nil) { _ in nil }
        }
        let refusal = try #require(missing)
        #expect(
            refusal == .missingCredential && refusal.hashValue == TokenVerificationError.missingCredential.hashValue)
        #expect(refusal.statusCode == 401 && refusal.wwwAuthenticate == "Bearer")
        #expect(try Self.body(refusal) == ["reason": "missing", "message": "no credential"])
        #expect(TokenVerificationError.missingCredential.wwwAuthenticate == nil)

        let cookieRoute = FirebaseRouteProtection(Self.admin, options: .init(credential: .sessionCookie()))
        let noCookie = await #expect(throws: TokenVerificationError.self) {
            _ = try await cookieRoute.authenticate(authorization: "Bearer x") { _ in "" }
        }
        #expect(noCookie?.code == .missingCredential && noCookie?.wwwAuthenticate == nil)

        // Optional credential: no refusal, no identity.
        let optional = FirebaseRouteProtection(Self.admin, options: .init(requireCredential: false))
        #expect(try await optional.authenticate(authorization: "Basic abc") { _ in nil } == nil)

        // A garbled token, through the route: 401 invalid_token, no claim in the body.
        let garbled = await #expect(throws: TokenVerificationError.self) {
            _ = try await route.authenticate(authorization: "Bearer not.a.token") { _ in nil }
        }
        #expect(garbled?.code == .malformed && garbled?.wwwAuthenticate == #"Bearer error="invalid_token""#)
        #expect(try Self.body(try #require(garbled))["message"] == "the credential was refused: malformed")
    }

    /// Without a route, a policy refusal is its code's status and no challenge.
    @Test func aDirectRefusalAnswersWithoutAChallenge() throws {
        let refusal = TokenVerificationError.secondFactorRequired
        #expect(refusal.statusCode == 403 && refusal.stepUpChallenge == nil && refusal.wwwAuthenticate == nil)
        #expect(refusal.responseHeaders.map(\.name) == ["Content-Type", "Cache-Control"])
        #expect(try Self.body(refusal)["reason"] == "secondFactorRequired")
        #expect(TokenVerificationError.keysUnavailable(reason: "down").statusCode == 503)
        do {
            throw TokenVerificationError.missingCredential
        } catch TokenVerificationError.Code.missingCredential {
        } catch {
            Issue.record("the code's pattern did not match: \(error)")
        }
    }

    /// Wrong input is refused before anything is sent, naming the field.
    @Test func wrongInputNamesTheField() {
        let input = #expect(throws: AdminValidationError.self) { _ = try Self.admin.createCustomToken(uid: "") }
        #expect(input?.description == #""uid" must have 1 to 128 characters, not 0"#)
    }

    /// A failed call matches by code; its description is the code, the
    /// escaped detail and the underlying error's type, never its text.
    @Test func aFailedCallMatchesByCode() {
        struct StoreDown: Error, CustomStringConvertible { var description: String { "password=hunter2" } }
        let error = AdminError(.recoveryStoreUnavailable, detail: "line\nbreak", underlying: StoreDown())
        #expect(error.description == #"recoveryStoreUnavailable: line\u{A}break (StoreDown)"#)
        do {
            throw error
        } catch AdminError.Code.userNotFound {
            Issue.record("another code matched")
        } catch AdminError.Code.recoveryStoreUnavailable {
        } catch {
            Issue.record("the code's pattern did not match: \(error)")
        }
    }
}
