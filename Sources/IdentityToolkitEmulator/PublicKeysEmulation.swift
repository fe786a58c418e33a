import IdentityToolkit

/// Google's key route (`GooglePublicKeysService`, generated from
/// `Spec/google-public-keys.yaml`) with the emulator's own signing key, so
/// that a verifier pointed at the emulator host finds the key where it looks
/// for Google's.
struct PublicKeysEmulation: GooglePublicKeysService {
    let issuer: TokenIssuer

    func getIDTokenSigningKeys(request: APIServerRequest) async throws -> JSONWebKeySet {
        issuer.jwks
    }
}
