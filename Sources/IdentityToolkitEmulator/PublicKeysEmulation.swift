import IdentityToolkit

/// Google's key routes, JWKS and X.509 forms (`GooglePublicKeysService` and
/// `SessionCookieKeysService`, generated from `Spec/google-public-keys.yaml`
/// and `Spec/session-cookie-keys.yaml`) with the emulator's own signing key,
/// so that a verifier pointed at the emulator host finds the key where it
/// looks for Google's. The emulator signs ID tokens and session cookies with
/// one key; their issuers tell them apart.
struct PublicKeysEmulation: GooglePublicKeysService, SessionCookieKeysService {
    let issuer: TokenIssuer

    func getIDTokenSigningKeys(request: APIServerRequest) async throws -> JSONWebKeySet {
        issuer.jwks
    }

    func getIDTokenSigningCertificates(request: APIServerRequest) async throws -> X509CertificateMap {
        issuer.certificates
    }

    func getSessionCookieSigningCertificates(request: APIServerRequest) async throws -> X509CertificateMap {
        issuer.certificates
    }

    func getSessionCookieSigningKeys(request: APIServerRequest) async throws -> JSONWebKeySet {
        issuer.jwks
    }
}
