import Foundation
@testable import IdentityToolkitEmulator
import Testing

/// The ID token payload is written by hand for speed; it must stay byte for
/// byte what `JSONEncoder` writes for the same claims.
@Suite struct TokenClaimsTests {
    static func encoderJSON(_ claims: TokenIssuer.Claims) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(claims), as: UTF8.self)
    }

    static func claims(email: String?, tenant: String?, secondFactor: Bool, identities: [String: [String]]) -> TokenIssuer.Claims {
        TokenIssuer.Claims(
            iss: "https://securetoken.google.com/demo-mfa", aud: "demo-mfa", authTime: 1_700_000_000, userID: "uid\u{1}/\"x",
            sub: "uid\u{1}/\"x", iat: 1_700_000_001, exp: 1_700_003_601, email: email, emailVerified: email.map { _ in true },
            firebase: .init(identities: identities, signInProvider: "password", signInSecondFactor: secondFactor ? "totp" : nil,
                            secondFactorIdentifier: secondFactor ? "enr-1" : nil, tenant: tenant))
    }

    @Test(arguments: [
        "ada@example.com", "quote\"back\\slash@example.com", "tab\there\nnew\rline@example.com",
        "\u{0}\u{7}\u{8}\u{b}\u{c}\u{1f}\u{7f}@example.com", "ünïcødé@例え.jp", "emoji👩‍💻@example.com", "slash/and\u{2028}sep@example.com", "",
    ])
    func matchesJSONEncoder(email: String) throws {
        for tenant in [nil, "tenant-1"] {
            for secondFactor in [false, true] {
                let claims = Self.claims(email: email, tenant: tenant, secondFactor: secondFactor,
                                         identities: ["email": [email], "phone": ["+15555550100", "+1555\"0101"]])
                #expect(claims.json == (try Self.encoderJSON(claims)))
            }
        }
    }

    @Test func anonymousClaimsMatchJSONEncoder() throws {
        let claims = Self.claims(email: nil, tenant: nil, secondFactor: false, identities: [:])
        #expect(claims.json == (try Self.encoderJSON(claims)))
        // And it is valid JSON that decodes back to the same claims.
        let decoded = try JSONDecoder().decode(TokenIssuer.Claims.self, from: Data(claims.json.utf8))
        #expect(decoded.userID == claims.userID && decoded.email == nil && decoded.firebase.identities.isEmpty)
    }
}
