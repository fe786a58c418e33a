import Foundation
import HTTPTypes
import IdentityToolkit
import Testing

/// Every body the emulator writes is canonical JSON: the same value is the
/// same bytes every time (keys in order), as a client's recorded fixtures
/// and a cache compare them, and a URL reads `http://`, as Google's servers
/// write it.
@Suite struct WireBytesTests {
    /// The body re-written with sorted keys and unescaped slashes: equal to
    /// the body exactly when the body was canonical already.
    static func canonical(_ body: Data) throws -> String {
        let value = try JSONSerialization.jsonObject(with: body)
        let data = try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    @Test func anErrorBodyIsTheSameBytesEveryTime() async throws {
        try await withEmulator { h in
            for _ in 0..<4 {
                let answer = try await h.raw(
                    .post, "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k",
                    body: Data(#"{"password":"secret-pw"}"#.utf8))
                #expect(
                    String(decoding: answer.body, as: UTF8.self)
                        == #"{"error":{"code":400,"errors":[{"domain":"global","message":"MISSING_EMAIL","reason":"invalid"}],"#
                        + #""message":"MISSING_EMAIL","status":"INVALID_ARGUMENT"}}"#)
            }
        }
    }

    @Test func anAnswerIsCanonicalJSONEveryTime() async throws {
        try await withEmulator { h in
            let json: HTTPFields = [.contentType: "application/json"]
            let sent = try await h.raw(
                .post, "/identitytoolkit.googleapis.com/v1/accounts:sendOobCode?key=k",
                body: Data(
                    #"{"requestType":"EMAIL_SIGNIN","email":"bytes@example.com","continueUrl":"http://localhost/done"}"#
                        .utf8), headers: json)
            #expect(sent.status == 200)
            #expect(String(decoding: sent.body, as: UTF8.self) == (try Self.canonical(sent.body)))

            var bodies: Set<Data> = []
            for _ in 0..<4 {
                let listed = try await h.raw(.get, "/emulator/v1/projects/\(Harness.project)/oobCodes")
                let text = String(decoding: listed.body, as: UTF8.self)
                #expect(text == (try Self.canonical(listed.body)))
                #expect(text.contains("continueUrl=http://localhost/done"))
                #expect(!text.contains(#"\/"#))
                bodies.insert(listed.body)
            }
            #expect(bodies.count == 1)

            let signedUp = try await h.raw(
                .post, "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k",
                body: Data(#"{"email":"bytes2@example.com","password":"secret-pw","returnSecureToken":true}"#.utf8),
                headers: json)
            #expect(signedUp.status == 200)
            #expect(String(decoding: signedUp.body, as: UTF8.self) == (try Self.canonical(signedUp.body)))
        }
    }
}
