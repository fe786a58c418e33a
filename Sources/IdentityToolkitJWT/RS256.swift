package import Foundation
package import IdentityToolkit
package import _CryptoExtras
import IdentitySupport

// The package's one home for RS256 JWTs (RFC 7515, RFC 7518 §3.3) over the
// compact form: signing (the emulator's ID tokens, session cookies and
// custom tokens; a service account's OAuth2 assertion) and the signature
// check (IdentityAdmin's verifier; the emulator's own tokens, custom tokens
// and OAuth2 assertions). A module of its own, not part of IdentityToolkit,
// so that client apps of MultiFactorAuth never build BoringSSL for it.

/// Why a token failed the JWT layer (shape, header, signature); what the
/// claims mean is the caller's.
package enum JWTFailure: Error, Sendable {
    /// Not three strict base64url parts within the size bound.
    case notCompactForm
    /// The header does not decode as a JOSE header.
    case undecodableHeader
    /// The header's `alg` is not the one required.
    case unexpectedAlgorithm(SigningAlgorithm)
    /// The RS256 signature does not verify with the key.
    case badSignature
    /// The payload does not decode as the claims type (which claim says why).
    case undecodableClaims(DecodingError)
}

/// A token split and its header decoded, before any signature check.
package struct ParsedJWT: Sendable {
    /// The three parts, decoded.
    package let form: JWTCompactForm
    /// The JOSE header.
    package let header: JOSEHeader

    /// Splits `token` and decodes its header.
    package init(_ token: String) throws(JWTFailure) {
        guard let form = JWTCompactForm(token) else { throw .notCompactForm }
        guard let header = try? JOSEHeader(strictJSON: form.header) else { throw .undecodableHeader }
        self.form = form
        self.header = header
    }

    /// Throws unless the header's `alg` is RS256.
    package func requireRS256() throws(JWTFailure) {
        guard header.alg == .rs256 else { throw .unexpectedAlgorithm(header.alg) }
    }

    /// Whether the RS256 signature verifies with `key` (the header's `alg` is the caller's check).
    package func hasValidSignature(_ key: _RSA.Signing.PublicKey) -> Bool {
        let signature = _RSA.Signing.RSASignature(rawRepresentation: form.signature)
        return form.withSigningInput { key.isValidSignature(signature, for: $0, padding: .insecurePKCS1v1_5) }
    }

    /// Throws unless the RS256 signature verifies with `key`.
    package func verifySignature(_ key: _RSA.Signing.PublicKey) throws(JWTFailure) {
        guard hasValidSignature(key) else { throw .badSignature }
    }

    /// The payload decoded as `Claims` (after the signature check, unless
    /// the caller reads unverified claims on purpose, such as an issuer to pick the key).
    package func claims<Claims: Decodable>(as type: Claims.Type) throws(JWTFailure) -> Claims {
        try Self.decodingClaims { try JWTJSONDecoder.decode(Claims.self, from: form.payload) }
    }

    /// The payload read as `Claims` by its generated strict reader (the
    /// verifier's hot path): the same checks and errors as the `Decodable`
    /// path, without its tree and containers.
    package func claims<Claims: Decodable & StrictJSONReadable>(as type: Claims.Type) throws(JWTFailure) -> Claims {
        try Self.decodingClaims { try Claims(strictJSON: form.payload) }
    }

    private static func decodingClaims<Claims>(_ decode: () throws -> Claims) throws(JWTFailure) -> Claims {
        do {
            return try decode()
        } catch let error as DecodingError {
            throw .undecodableClaims(error)
        } catch {
            throw .undecodableClaims(.dataCorrupted(.init(codingPath: [], debugDescription: "not JSON")))
        }
    }
}

/// Signs RS256 JWTs with one private key.
package struct RS256Signer: Sendable {
    /// The `kid` of the tokens' headers, if any.
    package let keyID: String?
    private let key: _RSA.Signing.PrivateKey
    /// The encoded header: the same for every token of this key.
    private let encodedHeader: String

    /// A signer whose tokens name `keyID` in their header.
    package init(key: _RSA.Signing.PrivateKey, keyID: String?) throws {
        self.key = key
        self.keyID = keyID
        encodedHeader = try RS256.encoder.encode(JOSEHeader(alg: .rs256, typ: "JWT", kid: keyID)).base64URLEncoded
    }

    /// The public half of the key.
    package var publicKey: _RSA.Signing.PublicKey { key.publicKey }

    /// A token of `payload` (JSON).
    package func sign(payload: Data) throws -> String {
        let signingInput = encodedHeader + "." + payload.base64URLEncoded
        let signature = try key.signature(for: Data(signingInput.utf8), padding: .insecurePKCS1v1_5)
        return signingInput + "." + signature.rawRepresentation.base64URLEncoded
    }

    /// A token of `claims`, with `extraClaims` (JSON objects: custom claims)
    /// beside them: a later extra wins over an earlier one, none overrides a
    /// claim of `claims`.
    package func sign<Claims: Encodable>(_ claims: Claims, extraClaims: [[String: JSONValue]] = []) throws -> String {
        var payload = try RS256.encoder.encode(claims)
        let extras = extraClaims.filter { !$0.isEmpty }
        if !extras.isEmpty {
            let standard = try RS256.decoder.decode([String: JSONValue].self, from: payload)
            var merged: [String: JSONValue] = [:]
            for extra in extras { merged.merge(extra) { _, later in later } }
            payload = try RS256.encoder.encode(standard.merging(merged) { standard, _ in standard })
        }
        return try sign(payload: payload)
    }
}

/// The coders every JWT of the package uses.
package enum RS256 {
    /// Sorted keys and unescaped slashes: the same claims give the same bytes.
    package static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// One decoder (it holds no per-call state).
    package static let decoder = JSONDecoder()
}
