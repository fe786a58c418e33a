import Foundation
import IdentityToolkit
import Testing

@testable import IdentityToolkitEmulator

/// The emulator's ID tokens carry the claims `Spec/securetoken.yaml` gives
/// them (`IDTokenClaims`), under the wire names Firebase's tokens use.
@Suite struct TokenClaimsTests {
    static func claims(email: String?, tenant: String?, secondFactor: Bool, identities: [String: [String]])
        -> IDTokenClaims
    {
        IDTokenClaims(
            iss: "https://securetoken.google.com/demo-mfa", aud: "demo-mfa", authTime: 1_700_000_000,
            userID: "uid\u{1}/\"x",
            sub: "uid\u{1}/\"x", iat: 1_700_000_001, exp: 1_700_003_601, email: email,
            emailVerified: email.map { _ in true },
            firebase: FirebaseSignInClaims(
                identities: identities, signInProvider: "password", signInSecondFactor: secondFactor ? "totp" : nil,
                secondFactorIdentifier: secondFactor ? "enr-1" : nil, tenant: tenant))
    }

    /// Signed, then read back from the token's raw JSON: Firebase's names,
    /// numbers as JSON numbers, and awkward strings intact.
    @Test(arguments: [
        "ada@example.com", "quote\"back\\slash@example.com", "tab\there\nnew\rline@example.com", "ünïcødé@例え.jp", "",
    ])
    func signedClaimsUseFirebasesWireNames(email: String) throws {
        let issuer = try EmulatorSigningKey()
        for tenant in [nil, "tenant-1"] {
            for secondFactor in [false, true] {
                let claims = Self.claims(
                    email: email, tenant: tenant, secondFactor: secondFactor, identities: ["email": [email]])
                let token = try issuer.signer.sign(claims)
                let jwt = try #require(JWTCompactForm(token))
                let object = try #require(try JSONSerialization.jsonObject(with: jwt.payload) as? [String: Any])
                #expect(object["auth_time"] as? Int == 1_700_000_000)
                #expect(object["user_id"] as? String == "uid\u{1}/\"x")
                #expect(object["email"] as? String == email)
                let firebase = try #require(object["firebase"] as? [String: Any])
                #expect(firebase["sign_in_provider"] as? String == "password")
                #expect(firebase["sign_in_second_factor"] as? String == (secondFactor ? "totp" : nil))
                #expect(firebase["second_factor_identifier"] as? String == (secondFactor ? "enr-1" : nil))
                #expect(firebase["tenant"] as? String == tenant)
                #expect((firebase["identities"] as? [String: [String]]) == ["email": [email]])
                #expect(try issuer.verifiedIDTokenClaims(token) == claims)
                let header = try #require(try JSONSerialization.jsonObject(with: jwt.header) as? [String: String])
                #expect(header == ["alg": "RS256", "typ": "JWT", "kid": issuer.keyID])
            }
        }
    }

    @Test func anonymousClaimsRoundTrip() throws {
        let issuer = try EmulatorSigningKey()
        let claims = Self.claims(email: nil, tenant: nil, secondFactor: false, identities: [:])
        let decoded = try issuer.verifiedIDTokenClaims(try issuer.signer.sign(claims))
        #expect(decoded.userID == claims.userID && decoded.email == nil && decoded.firebase.identities.isEmpty)
    }
}
