import Foundation
import IdentitySupport
import IdentityToolkit
import IdentityToolkitJWT
import Testing
import _CryptoExtras

/// The package's one verification sequence on its own: a token gives
/// claims to trust only through ``RS256JWT/verified(with:)``, and the
/// short-lived assertion rule holds at its bounds.
@Suite struct RS256VerificationTests {
    static let key = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    static let claims = CustomTokenClaims(
        iss: "sa@p.iam.gserviceaccount.com", aud: CustomTokenAudience.identityToolkit.rawValue,
        iat: 1_800_000_000, exp: 1_800_003_600, uid: "u1")

    static func token(signedBy key: _RSA.Signing.PrivateKey = key) throws -> String {
        try RS256Signer(key: key, keyID: "k1").sign(claims)
    }

    @Test func aTokenVerifiesWithItsKeyOnly() throws {
        let jwt = try RS256JWT(try Self.token())
        #expect(jwt.keyID == "k1")
        #expect(try jwt.verified(with: Self.key.publicKey).claims(as: CustomTokenClaims.self) == Self.claims)
        let stranger = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        #expect(throws: JWTFailure.self) { try jwt.verified(with: stranger.publicKey) }
        #expect(throws: JWTFailure.self) {
            try RS256JWT(try Self.token(signedBy: stranger)).verified(with: Self.key.publicKey)
        }
    }

    @Test func aChangedPayloadFailsTheSignature() throws {
        let parts = try Self.token().split(separator: ".").map(String.init)
        var other = Self.claims
        other.uid = "admin"
        let forged = try RS256Signer(key: Self.key, keyID: "k1").sign(other).split(separator: ".")[1]
        let jwt = try RS256JWT([parts[0], String(forged), parts[2]].joined(separator: "."))
        do {
            _ = try jwt.verified(with: Self.key.publicKey)
            Issue.record("a payload signed by nobody verified")
        } catch {
            guard case .badSignature = error else {
                Issue.record("\(error)")
                return
            }
        }
    }

    /// `alg: none` and HMAC are refused before any key is looked up.
    @Test(arguments: [#"{"alg":"none"}"#, #"{"alg":"HS256","kid":"k1"}"#])
    func otherAlgorithmsAreRefusedFirst(header: String) throws {
        let parts = try Self.token().split(separator: ".").map(String.init)
        let token = [Data(header.utf8).base64URLEncoded, parts[1], parts[2]].joined(separator: ".")
        do {
            _ = try RS256JWT(token)
            Issue.record("\(header) passed as RS256")
        } catch {
            guard case .unexpectedAlgorithm = error else {
                Issue.record("\(error)")
                return
            }
        }
    }

    @Test func shortLivedClaimsAtTheirBounds() {
        func live(iat: Int64?, exp: Int64?, now: Int64 = 1_800_000_000, skew: Int64 = 60) -> Bool {
            CustomTokenClaims(aud: "a", iat: iat, exp: exp, uid: "u").isLive(at: now, issuedAtMostAhead: skew)
        }
        let now: Int64 = 1_800_000_000
        #expect(live(iat: now, exp: now + 3600))
        #expect(!live(iat: now, exp: now + 3601), "longer than an hour")
        #expect(!live(iat: now, exp: now), "expired at now, and no lifetime")
        #expect(!live(iat: now - 10, exp: now), "expired at now")
        #expect(live(iat: now + 60, exp: now + 120), "issued at the skew")
        #expect(!live(iat: now + 61, exp: now + 120), "issued past the skew")
        #expect(!live(iat: nil, exp: now + 60))
        #expect(!live(iat: now, exp: nil))
        #expect(!live(iat: .min, exp: .max), "a lifetime that overflows")
        #expect(!live(iat: now + 30, exp: now + 10), "expiring before issue")
        #expect(JWTBearerClaims(iss: "sa", aud: "a", iat: now, exp: now + 3600).isLive(at: now, issuedAtMostAhead: 60))
    }
}
