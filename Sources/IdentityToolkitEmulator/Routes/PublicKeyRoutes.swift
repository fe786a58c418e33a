#if Emulator
import IdentityToolkit

/// Google's key routes, JWKS and X.509 forms (`GooglePublicKeysService` and
/// `SessionCookieKeysService`, generated from `Spec/google-public-keys.yaml`
/// and `Spec/session-cookie-keys.yaml`) with the emulator's own signing key,
/// so that a verifier pointed at the emulator host finds the key where it
/// looks for Google's. One key signs ID tokens and session cookies; their
/// issuers tell them apart.
struct PublicKeyRoutes: GooglePublicKeysService, SessionCookieKeysService {
    let key: EmulatorSigningKey

    func getIDTokenSigningKeys(request: APIServerRequest) async throws -> JSONWebKeySet { key.jwks }

    func getIDTokenSigningCertificates(request: APIServerRequest) async throws -> X509CertificateMap {
        key.certificates
    }

    func getSessionCookieSigningCertificates(request: APIServerRequest) async throws -> X509CertificateMap {
        key.certificates
    }

    func getSessionCookieSigningKeys(request: APIServerRequest) async throws -> JSONWebKeySet { key.jwks }
}
#endif
