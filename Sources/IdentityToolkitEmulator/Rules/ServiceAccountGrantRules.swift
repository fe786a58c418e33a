#if Emulator
import Foundation
import IdentityToolkit
import IdentityToolkitJWT
import _CryptoExtras

/// The token endpoint's one rule (RFC 7523's JWT bearer grant, its errors
/// RFC 6749 §5.2's): the grant's fields, the assertion's RS256 signature
/// under the key trusted for its issuer, its scope, audience and lifetime.
enum ServiceAccountGrantRules {
    /// Refuses a grant unless its assertion passes every check.
    static func check(
        _ body: AccessTokenRequest, trusting keys: [String: _RSA.Signing.PublicKey], audienceSuffix: String,
        now: Int64
    ) throws {
        // RFC 6749 §5.2: a missing parameter is invalid_request.
        guard !body.grantType.isEmpty else {
            throw APIServerError.invalidRequest("missing required field grant_type")
        }
        guard !body.assertion.isEmpty else {
            throw APIServerError.invalidRequest("missing required field assertion")
        }
        guard body.grantType == OAuthGrantType.jwtBearer.rawValue else {
            throw APIServerError.unsupportedGrantType("expected \(OAuthGrantType.jwtBearer.rawValue)")
        }
        // The issuer names the key, so the claims are read before the signature is checked.
        guard let parsed = try? ParsedJWT(body.assertion),
            let unverified = try? parsed.unverifiedClaims(as: JWTBearerClaims.self)
        else {
            throw APIServerError.invalidGrant("the assertion is not a JWT")
        }
        guard let jwt = try? RS256JWT(parsed) else {
            throw APIServerError.invalidGrant("the assertion must be signed with RS256")
        }
        guard let key = keys[unverified.iss] else {
            throw APIServerError.invalidGrant("unknown issuer \(unverified.iss)")
        }
        guard let claims = try? jwt.verified(with: key).claims(as: JWTBearerClaims.self) else {
            throw APIServerError.invalidGrant("Invalid JWT Signature.")
        }
        let scopes = claims.scope?.split(separator: " ").map(String.init) ?? []
        guard scopes.contains(where: { OAuthScope.allKnownValues.contains(OAuthScope(rawValue: $0)) }) else {
            let known = OAuthScope.allKnownValues.map(\.rawValue).joined(separator: " or ")
            throw APIServerError.invalidScope("the assertion must ask for \(known)")
        }
        guard claims.aud.hasSuffix(audienceSuffix) else {
            throw APIServerError.invalidGrant("the audience must be the token endpoint")
        }
        guard claims.isLive(at: now, issuedAtMostAhead: 60) else {
            throw APIServerError.invalidGrant(
                "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.")
        }
    }
}
#endif
