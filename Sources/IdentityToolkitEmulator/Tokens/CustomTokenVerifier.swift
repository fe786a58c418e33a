import Foundation
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

    func verify(_ token: String) throws -> SignIn {
        let jwt: ParsedJWT
        do {
            jwt = try ParsedJWT(token)
        } catch {
            throw APIServerError.invalidCustomToken("Invalid assertion format")
        }
        let claims: CustomTokenClaims
        do {
            claims = try jwt.claims(as: CustomTokenClaims.self)
        } catch .undecodableClaims(.keyNotFound(let key, _)) where key.stringValue == "uid" {
            throw APIServerError.missingIdentifier
        } catch .undecodableClaims(.typeMismatch(_, let context)) where context.codingPath.first?.stringValue == "claims" {
            throw APIServerError.invalidClaims
        } catch {
            throw APIServerError.invalidCustomToken("the claims are not a custom token's")
        }
        guard claims.aud == CustomTokenAudience.identityToolkit.rawValue else {
            throw APIServerError.invalidCustomToken("Invalid aud (audience); Firebase ID tokens and other tokens cannot be used with signInWithCustomToken")
        }
        switch jwt.header.alg {
        case .unsigned:
            break
        case .rs256:
            guard let issuer = claims.iss, let key = trustedKey(issuer) else {
                throw APIServerError.invalidCustomToken("the token is signed by a service account the emulator does not trust (register it with POST /emulator/v1/serviceAccounts)")
            }
            guard jwt.hasValidSignature(key) else { throw APIServerError.invalidCustomToken("the signature does not verify") }
            let now = Int64(clock.now.timeIntervalSince1970)
            guard let iat = claims.iat, let exp = claims.exp else { throw APIServerError.invalidCustomToken("a signed custom token needs iat and exp") }
            let lifetime = exp.subtractingReportingOverflow(iat)
            guard exp > now, iat <= now + 300, !lifetime.overflow, (1...3600).contains(lifetime.partialValue) else {
                throw APIServerError.invalidCustomToken("the token is expired or lives longer than an hour")
            }
        default:
            throw APIServerError.invalidCustomToken("alg \(jwt.header.alg.rawValue.prefix(20)) is not RS256")
        }
        guard (1...IdentityPlatformLimits.maximumUIDLength).contains(claims.uid.count) else {
            throw APIServerError.invalidCustomToken("uid must be 1 to \(IdentityPlatformLimits.maximumUIDLength) characters")
        }
        var developerClaims: String?
        if let extra = claims.claims {
            let text = String(decoding: try JSONEncoder().encode(extra), as: UTF8.self)
            try InputRules.checkCustomAttributes(text)
            developerClaims = text
        }
        return SignIn(uid: claims.uid, tenantID: claims.tenantID, developerClaims: developerClaims)
    }
}
