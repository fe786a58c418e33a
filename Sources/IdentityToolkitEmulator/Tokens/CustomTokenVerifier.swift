#if Emulator
import Foundation
import IdentitySupport
import IdentityToolkit
import IdentityToolkitJWT
import _CryptoExtras

/// Reads the custom tokens of `accounts:signInWithCustomToken`
/// (`CustomTokenClaims`, Spec/securetoken.yaml).
///
/// - `alg: none`, what firebase-admin makes in emulator mode, is accepted as
///   Google's emulator accepts it: audience and uid checked, times not (so
///   tests may reuse a token).
/// - `RS256`, what a server makes for production, is checked as production
///   checks it: the issuer must be a service account the emulator trusts
///   (`EmulatorConfiguration.serviceAccounts` or `POST
///   /emulator/v1/serviceAccounts`), the signature must verify, and it must
///   be unexpired and live at most an hour.
struct CustomTokenVerifier: Sendable {
    /// A verified token's sign-in: the user, the tenant it names, its developer claims as JSON text.
    struct SignIn: Sendable {
        var uid: String
        var tenantID: String?
        var developerClaims: String?
    }

    let trustedKey: @Sendable (String) -> _RSA.Signing.PublicKey?
    let clock: EmulatorClock

    /// The tenant a custom token names, read without checking it (the
    /// request's realm is settled first: `TENANT_ID_MISMATCH`).
    static func namedTenant(_ token: String) -> String? {
        if token.hasPrefix("{") {
            return (try? JSONDecoder().decode(JSONCustomToken.self, from: Data(token.utf8)))?.tenantID
        }
        return (try? ParsedJWT(token).unverifiedClaims(as: CustomTokenClaims.self))?.tenantID
    }

    func verify(_ token: String) throws -> SignIn {
        if token.hasPrefix("{") { return try verifyJSON(token) }
        let jwt: ParsedJWT
        do {
            jwt = try ParsedJWT(token)
        } catch {
            throw APIServerError.invalidCustomToken("Invalid assertion format")
        }
        let claims: CustomTokenClaims
        do {
            claims = try jwt.unverifiedClaims(as: CustomTokenClaims.self)
        } catch .undecodableClaims(.keyNotFound(let key, _)) where key.stringValue == "uid" {
            throw APIServerError.missingIdentifier
        } catch .undecodableClaims(.typeMismatch(_, let context))
            where context.codingPath.first?.stringValue == "claims"
        {
            throw APIServerError.invalidClaims
        } catch {
            throw APIServerError.invalidCustomToken("the claims are not a custom token's")
        }
        guard claims.aud == CustomTokenAudience.identityToolkit.rawValue else {
            throw APIServerError.invalidCustomToken(
                "Invalid aud (audience); Firebase ID tokens and other tokens cannot be used with signInWithCustomToken"
            )
        }
        // The claims the sign-in is made of: an unsigned token's as read,
        // a signed token's only from its verified form.
        let signIn: CustomTokenClaims
        switch jwt.header.alg {
        case .unsigned:
            signIn = claims
        case .rs256:
            // The one sequence: RS256, the key of the issuer read above, the
            // signature; then the claims come from the verified token.
            guard let issuer = claims.iss, let key = trustedKey(issuer) else {
                throw APIServerError.invalidCustomToken(
                    "the token is signed by a service account the emulator does not trust (register it with POST /emulator/v1/serviceAccounts)"
                )
            }
            let verified: VerifiedJWT
            do {
                verified = try RS256JWT(jwt).verified(with: key)
            } catch {
                throw APIServerError.invalidCustomToken("the signature does not verify")
            }
            do {
                signIn = try verified.claims(as: CustomTokenClaims.self)
            } catch {
                // The bytes decoded above; kept as the same answer regardless.
                throw APIServerError.invalidCustomToken("the claims are not a custom token's")
            }
            guard signIn.iat != nil, signIn.exp != nil else {
                throw APIServerError.invalidCustomToken("a signed custom token needs iat and exp")
            }
            guard signIn.isLive(at: Int64(clock.now.timeIntervalSince1970), issuedAtMostAhead: 300) else {
                throw APIServerError.invalidCustomToken("the token is expired or lives longer than an hour")
            }
        default:
            throw APIServerError.invalidCustomToken("alg \(jwt.header.alg.rawValue.prefix(20)) is not RS256")
        }
        guard IdentityPlatformLimits.isValidUID(signIn.uid) else {
            throw APIServerError.invalidCustomToken(
                "uid must be 1 to \(IdentityPlatformLimits.maximumUIDLength) characters")
        }
        return SignIn(
            uid: signIn.uid, tenantID: signIn.tenantID, developerClaims: try Self.developerClaims(signIn.claims))
    }

    /// A custom token given as plain JSON (`JSONCustomToken`), as Google's
    /// emulator accepts it (no audience, no times).
    private func verifyJSON(_ token: String) throws -> SignIn {
        let payload: JSONCustomToken
        do {
            payload = try JSONDecoder().decode(JSONCustomToken.self, from: Data(token.utf8))
        } catch {
            throw APIServerError.invalidCustomToken(
                "((Auth Emulator only accepts strict JSON or JWTs as fake custom tokens.))")
        }
        guard let uid = payload.uid ?? payload.userID, !uid.isEmpty else { throw APIServerError.missingIdentifier }
        guard IdentityPlatformLimits.isValidUID(uid) else {
            throw APIServerError.invalidCustomToken(
                "uid must be 1 to \(IdentityPlatformLimits.maximumUIDLength) characters")
        }
        return SignIn(
            uid: uid, tenantID: payload.tenantID, developerClaims: try Self.developerClaims(payload.claims))
    }

    /// Developer claims as JSON text, checked as custom claims are.
    private static func developerClaims(_ claims: [String: JSONValue]?) throws -> String? {
        guard let claims else { return nil }
        let text = String(decoding: try CanonicalJSON.encoder.encode(claims), as: UTF8.self)
        try InputRules.checkCustomAttributes(text)
        return text
    }
}
#endif
