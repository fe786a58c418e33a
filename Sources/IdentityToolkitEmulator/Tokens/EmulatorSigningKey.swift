#if Emulator
import Crypto
import Foundation
import IdentityToolkit
import IdentityToolkitJWT
import X509
import _CryptoExtras
import IdentitySupport

/// The emulator's signing key: it signs ID tokens and session cookies
/// (their issuers tell them apart) through the package's one JWT home, and
/// is published at Google's key routes in both forms (JWKS and X.509), so
/// that a production verifier pointed at the emulator host finds it where
/// it looks for Google's.
struct EmulatorSigningKey: Sendable {
    let signer: RS256Signer
    /// The key id tokens name in their header.
    var keyID: String { signer.keyID ?? "" }
    /// The public key as a JSON Web Key Set, made once at start-up: a key
    /// whose primitives cannot be read fails the emulator's start, never
    /// publishes an empty modulus.
    let jwks: JSONWebKeySet
    /// The same key as Google's X.509 form: the key id and a certificate in PEM.
    let certificates: X509CertificateMap

    /// The key of every emulator in this process: an RSA key takes 0.1 to
    /// 0.3 s of CPU to make, and a test suite starts dozens of emulators on
    /// two cores. Each emulator still refuses another's users (their tokens
    /// name other projects or unknown uids); a new process makes a new key.
    static let processWide = Result<EmulatorSigningKey, any Error> { try EmulatorSigningKey() }

    /// A new key (tests that need their own; emulators use ``processWide``).
    init() throws {
        let privateKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let keyID = Data(SHA256.hash(data: privateKey.publicKey.derRepresentation).prefix(8)).base64URLEncoded
        signer = try RS256Signer(key: privateKey, keyID: keyID)
        let primitives = try privateKey.publicKey.getKeyPrimitives()
        jwks = JSONWebKeySet(keys: [
            JSONWebKey(
                kty: "RSA", alg: SigningAlgorithm.rs256.rawValue, use: "sig", kid: keyID,
                n: primitives.modulus.base64URLEncoded, e: primitives.publicExponent.base64URLEncoded
            )
        ])
        certificates = [keyID: try Self.selfSignedCertificate(for: privateKey)]
    }

    /// A self-signed certificate of the key, as Google publishes its keys
    /// (`CN=securetoken.system.gserviceaccount.com`); verifiers only read
    /// the public key from it. Valid from a day ago for ten years.
    private static func selfSignedCertificate(for key: _RSA.Signing.PrivateKey) throws -> String {
        let signer = Certificate.PrivateKey(key)
        let name = try DistinguishedName { CommonName("securetoken.system.gserviceaccount.com") }
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: signer.publicKey,
            notValidBefore: now.addingTimeInterval(-86_400),
            notValidAfter: now.addingTimeInterval(10 * 365 * 86_400),
            issuer: name, subject: name, signatureAlgorithm: .sha256WithRSAEncryption,
            extensions: Certificate.Extensions(),
            issuerPrivateKey: signer)
        return try certificate.serializeAsPEM().pemString + "\n"
    }

    /// The claims of a token this emulator signed that is an ID token (a
    /// session cookie has the same claims under another issuer: it is no ID
    /// token); expiry is the caller's check.
    func verifiedIDTokenClaims(_ token: String) throws(JWTFailure) -> IDTokenClaims {
        let claims = try RS256JWT(token).verified(with: signer.publicKey).claims(as: IDTokenClaims.self)
        guard claims.isIssued(as: .idToken) else { throw .badSignature }
        return claims
    }
}
#endif
