import Crypto
import Foundation
import IdentityToolkit
import X509
import _CryptoExtras

/// Signs and verifies the emulator's ID tokens: RS256 JWTs with the claims
/// Firebase puts in its ID tokens, under a key published at
/// Google's key route (`/www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com`).
struct TokenIssuer: Sendable {
    /// The claims of an ID token, as `Spec/securetoken.yaml` gives them.
    typealias Claims = IDTokenClaims

    /// ID tokens live one hour, as Firebase's do.
    static let lifetime: Int64 = 3600

    private let privateKey: _RSA.Signing.PrivateKey
    let keyID: String
    /// The JOSE header, base64url-encoded: the same for every token of this key.
    private let encodedHeader: String

    /// The issuer of every emulator in this process: an RSA key takes 0.1 to
    /// 0.3 s of CPU to make, and a test suite starts dozens of emulators on
    /// two cores. Each emulator still refuses another's users (their tokens
    /// name other projects or unknown uids); a new process makes a new key.
    static let processWide = Result<TokenIssuer, any Error> { try TokenIssuer() }

    /// A new key (tests that need their own; emulators use ``processWide``).
    init() throws {
        privateKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        keyID = Data(SHA256.hash(data: privateKey.publicKey.derRepresentation).prefix(8)).base64URLEncoded
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encodedHeader = try encoder.encode(JOSEHeader(alg: .rs256, typ: "JWT", kid: keyID)).base64URLEncoded
        let primitives = try privateKey.publicKey.getKeyPrimitives()
        jwks = JSONWebKeySet(keys: [JSONWebKey(
            kty: "RSA", alg: SigningAlgorithm.rs256.rawValue, use: "sig", kid: keyID,
            n: primitives.modulus.base64URLEncoded, e: primitives.publicExponent.base64URLEncoded
        )])
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
            notValidBefore: now.addingTimeInterval(-86_400), notValidAfter: now.addingTimeInterval(10 * 365 * 86_400),
            issuer: name, subject: name, signatureAlgorithm: .sha256WithRSAEncryption, extensions: Certificate.Extensions(),
            issuerPrivateKey: signer)
        return try certificate.serializeAsPEM().pemString + "\n"
    }

    /// An ID token with `claims`, and extra claims beside them: JSON objects
    /// as text (an admin's custom claims, a custom token's developer
    /// claims), a later one winning over an earlier one, none ever
    /// overriding a standard claim.
    func sign(_ claims: Claims, extraClaims: [String] = []) throws -> String {
        let encoder = Self.encoder
        var payload = try encoder.encode(claims)
        let extras = extraClaims.compactMap { try? JSONDecoder().decode([String: JSONValue].self, from: Data($0.utf8)) }.filter { !$0.isEmpty }
        if !extras.isEmpty {
            let standard = try JSONDecoder().decode([String: JSONValue].self, from: payload)
            var merged: [String: JSONValue] = [:]
            for extra in extras { merged.merge(extra) { _, later in later } }
            payload = try encoder.encode(standard.merging(merged) { standard, _ in standard })
        }
        return try sign(payload: payload)
    }

    /// A session cookie made from a verified ID token: its claims, custom
    /// ones included, with the session issuer and the cookie's own `iat` and `exp`.
    func sessionCookie(from idToken: String, project: String, issuedAt: Int64, expiresAt: Int64) throws -> String {
        guard let jwt = JWTCompactForm(idToken) else { throw VerificationError.malformed }
        var claims = try JSONDecoder().decode([String: JSONValue].self, from: jwt.payload)
        claims["iss"] = .string(TokenIssuerPrefix.sessionCookie.rawValue + project)
        claims["iat"] = .number(Double(issuedAt))
        claims["exp"] = .number(Double(expiresAt))
        return try sign(payload: Self.encoder.encode(claims))
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    private func sign(payload: Data) throws -> String {
        let signingInput = encodedHeader + "." + payload.base64URLEncoded
        let signature = try privateKey.signature(for: Data(signingInput.utf8), padding: .insecurePKCS1v1_5)
        return signingInput + "." + signature.rawRepresentation.base64URLEncoded
    }

    enum VerificationError: Error {
        case malformed, badSignature
    }

    /// The claims of a token this emulator signed; expiry is the caller's check.
    func verify(_ token: String) throws(VerificationError) -> Claims {
        guard let jwt = JWTCompactForm(token) else { throw .malformed }
        guard privateKey.publicKey.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: jwt.signature), for: jwt.signingInput,
                                                    padding: .insecurePKCS1v1_5) else {
            throw .badSignature
        }
        guard let claims = try? JSONDecoder().decode(Claims.self, from: jwt.payload) else { throw .malformed }
        // A session cookie has the same claims under another issuer: it is no ID token.
        guard claims.iss.hasPrefix(TokenIssuerPrefix.idToken.rawValue) else { throw .malformed }
        return claims
    }

    /// The public key as a JSON Web Key Set, made once at start-up: a key
    /// whose primitives cannot be read fails the emulator's start, never
    /// publishes an empty modulus.
    let jwks: JSONWebKeySet
    /// The same key as Google's x509 form: the key id and a certificate in PEM.
    let certificates: X509CertificateMap
}

extension Data {
    /// A random opaque identifier (session infos, refresh tokens, codes),
    /// drawn 8 bytes per generator call rather than one.
    static func randomToken(bytes: Int = 24) -> String {
        var generator = SystemRandomNumberGenerator()
        var data = Data(capacity: bytes + 8)
        while data.count < bytes {
            Swift.withUnsafeBytes(of: generator.next()) { data.append(contentsOf: $0) }
        }
        return data.prefix(bytes).base64URLEncoded
    }
}
