package import Foundation
import IdentitySupport
package import IdentityToolkit
package import _CryptoExtras

// The package's one home for RS256 JWTs (RFC 7515, RFC 7518 §3.3) over the
// compact form: signing (the emulator's ID tokens, session cookies and
// custom tokens; a service account's OAuth2 assertion) and the one
// verification sequence, ParsedJWT → RS256JWT → VerifiedJWT, that
// IdentityAdmin's verifier and the emulator's checks of its own tokens,
// custom tokens and OAuth2 assertions all take. A module of its own, not
// part of IdentityToolkit, so that client apps of MultiFactorAuth never
// build BoringSSL for it.

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

    /// The payload decoded as `Claims`, its signature unchecked: for what
    /// is read on purpose before (or without) a signature check, such as
    /// the issuer that picks the key, or an emulator's unsigned tokens.
    /// Claims to trust come from ``VerifiedJWT``.
    package func unverifiedClaims<Claims: Decodable>(as type: Claims.Type) throws(JWTFailure) -> Claims {
        try JWTClaimsReading.decode(Claims.self, from: form.payload)
    }
}

/// A token whose header names RS256, its signature not yet checked: the
/// first half of the package's one verification sequence (ID tokens and
/// session cookies in IdentityAdmin and the emulator, custom tokens,
/// OAuth2 assertions). The caller picks the key from it (its ``keyID``,
/// or the issuer ``ParsedJWT/unverifiedClaims(as:)`` names);
/// ``verified(with:)`` checks the signature. Only a ``VerifiedJWT`` gives claims to trust.
package struct RS256JWT: Sendable {
    /// The token, split, its header decoded.
    package let parsed: ParsedJWT

    /// Splits `token`, decodes its header and requires `alg: RS256`.
    package init(_ token: String) throws(JWTFailure) {
        try self.init(try ParsedJWT(token))
    }

    /// Requires `alg: RS256` of a token already split.
    package init(_ parsed: ParsedJWT) throws(JWTFailure) {
        guard parsed.header.alg == .rs256 else { throw .unexpectedAlgorithm(parsed.header.alg) }
        self.parsed = parsed
    }

    /// The header's `kid`, which names the key among published ones.
    package var keyID: String? { parsed.header.kid }

    /// The token, once its RS256 signature verifies with `key`.
    /// - Throws: ``JWTFailure/badSignature``.
    package func verified(with key: _RSA.Signing.PublicKey) throws(JWTFailure) -> VerifiedJWT {
        let form = parsed.form
        let signature = _RSA.Signing.RSASignature(rawRepresentation: form.signature)
        guard form.withSigningInput({ key.isValidSignature(signature, for: $0, padding: .insecurePKCS1v1_5) }) else {
            throw .badSignature
        }
        return VerifiedJWT(form: form, header: parsed.header)
    }
}

/// A token whose signature verified (made only by
/// ``RS256JWT/verified(with:)``): its claims are the signer's. What they
/// must say (audience, issuer, times) is the caller's, each rule on its
/// claims type (``ShortLivedJWTClaims``).
package struct VerifiedJWT: Sendable {
    /// The three parts, decoded.
    package let form: JWTCompactForm
    /// The JOSE header.
    package let header: JOSEHeader

    fileprivate init(form: JWTCompactForm, header: JOSEHeader) {
        self.form = form
        self.header = header
    }

    /// The payload decoded as `Claims`.
    package func claims<Claims: Decodable>(as type: Claims.Type) throws(JWTFailure) -> Claims {
        try JWTClaimsReading.decode(Claims.self, from: form.payload)
    }

    /// The payload read as `Claims` by its generated strict reader (the
    /// verifier's hot path): the same checks and errors as the `Decodable`
    /// path, without its tree and containers.
    package func claims<Claims: Decodable & StrictJSONReadable>(as type: Claims.Type) throws(JWTFailure) -> Claims {
        try JWTClaimsReading.decoding { try Claims(strictJSON: form.payload) }
    }
}

/// The claims of a short-lived signed assertion (a custom token, a
/// service account's OAuth2 assertion), whose times come from outside.
package protocol ShortLivedJWTClaims {
    /// `iat`, in seconds since 1970, if the token has one.
    var issuedAtSeconds: Int64? { get }
    /// `exp`, in seconds since 1970, if the token has one.
    var expiresAtSeconds: Int64? { get }
}

extension ShortLivedJWTClaims {
    /// Whether the token is live at `now` (seconds since 1970): issued at
    /// most `skew` seconds ahead, unexpired, and living 1 second to
    /// `maximumLifetime` (an hour, as production allows). Times are
    /// compared, and subtracted only with overflow reported.
    package func isLive(at now: Int64, issuedAtMostAhead skew: Int64, maximumLifetime: Int64 = 3600) -> Bool {
        guard let issuedAt = issuedAtSeconds, let expiresAt = expiresAtSeconds else { return false }
        let lifetime = expiresAt.subtractingReportingOverflow(issuedAt)
        return issuedAt <= now + skew && expiresAt > now && !lifetime.overflow
            && (1...maximumLifetime).contains(lifetime.partialValue)
    }
}

extension CustomTokenClaims: ShortLivedJWTClaims {
    package var issuedAtSeconds: Int64? { iat }
    package var expiresAtSeconds: Int64? { exp }
}

extension JWTBearerClaims: ShortLivedJWTClaims {
    package var issuedAtSeconds: Int64? { iat }
    package var expiresAtSeconds: Int64? { exp }
}

/// Claims decoding, its errors as ``JWTFailure/undecodableClaims(_:)``.
private enum JWTClaimsReading {
    static func decode<Claims: Decodable>(_ type: Claims.Type, from payload: Data) throws(JWTFailure) -> Claims {
        try decoding { try StrictJSONDecoder.decode(Claims.self, from: payload) }
    }

    static func decoding<Claims>(_ decode: () throws -> Claims) throws(JWTFailure) -> Claims {
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
        encodedHeader = try CanonicalJSON.encoder.encode(JOSEHeader(alg: .rs256, typ: RS256.jwtType, kid: keyID))
            .base64URLEncoded
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
        var payload = try CanonicalJSON.encoder.encode(claims)
        let extras = extraClaims.filter { !$0.isEmpty }
        if !extras.isEmpty {
            let standard = try RS256.decoder.decode([String: JSONValue].self, from: payload)
            var merged: [String: JSONValue] = [:]
            for extra in extras { merged.merge(extra) { _, later in later } }
            payload = try CanonicalJSON.encoder.encode(standard.merging(merged) { standard, _ in standard })
        }
        return try sign(payload: payload)
    }
}

/// The media type and decoder every JWT of the package uses (its JSON is
/// written by ``CanonicalJSON``: the same claims give the same bytes).
package enum RS256 {
    /// A JWT's media type, its header's `typ`.
    package static let jwtType = "JWT"

    /// One decoder (it holds no per-call state).
    package static let decoder = JSONDecoder()
}
