import Foundation
import IdentityToolkit
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

    static func invalid(_ detail: String) -> APIServerError { APIServerError("INVALID_CUSTOM_TOKEN", detail: detail) }

    func verify(_ token: String) throws -> SignIn {
        guard let jwt = JWTCompactForm(token), let header = try? JSONDecoder().decode(JOSEHeader.self, from: jwt.header) else {
            throw Self.invalid("Invalid assertion format")
        }
        guard let payload = try? JSONDecoder().decode([String: JSONValue].self, from: jwt.payload) else {
            throw Self.invalid("the claims are not a JSON object")
        }
        let claims: CustomTokenClaims
        do {
            claims = try JSONDecoder().decode(CustomTokenClaims.self, from: jwt.payload)
        } catch DecodingError.keyNotFound(let key, _) where key.stringValue == "uid" {
            throw APIServerError("MISSING_IDENTIFIER")
        } catch {
            throw Self.invalid("the claims are not a custom token's")
        }
        guard claims.aud == CustomTokenAudience.identityToolkit.rawValue else {
            throw Self.invalid("Invalid aud (audience); Firebase ID tokens and other tokens cannot be used with signInWithCustomToken")
        }
        switch header.alg {
        case .unsigned:
            break
        case .rs256:
            guard let issuer = claims.iss, let key = trustedKey(issuer) else {
                throw Self.invalid("the token is signed by a service account the emulator does not trust (register it with POST /emulator/v1/serviceAccounts)")
            }
            guard key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: jwt.signature), for: jwt.signingInput, padding: .insecurePKCS1v1_5) else {
                throw Self.invalid("the signature does not verify")
            }
            let now = Int64(clock.now.timeIntervalSince1970)
            guard let iat = claims.iat, let exp = claims.exp else { throw Self.invalid("a signed custom token needs iat and exp") }
            let lifetime = exp.subtractingReportingOverflow(iat)
            guard exp > now, iat <= now + 300, !lifetime.overflow, (1...3600).contains(lifetime.partialValue) else {
                throw Self.invalid("the token is expired or lives longer than an hour")
            }
        default:
            throw Self.invalid("alg \(header.alg.rawValue.prefix(20)) is not RS256")
        }
        guard (1...IdentityPlatformLimits.maximumUIDLength).contains(claims.uid.count) else {
            throw Self.invalid("uid must be 1 to \(IdentityPlatformLimits.maximumUIDLength) characters")
        }
        var developerClaims: String?
        if let extra = payload["claims"] {
            guard case .object = extra else { throw APIServerError("INVALID_CLAIMS") }
            let text = String(decoding: try JSONEncoder().encode(extra), as: UTF8.self)
            try InputRules.checkCustomAttributes(text)
            developerClaims = text
        }
        return SignIn(uid: claims.uid, tenantID: claims.tenantID, developerClaims: developerClaims)
    }
}
