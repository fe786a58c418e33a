import Foundation
import IdentitySupport
import IdentityToolkit
import IdentityToolkitJWT
import _CryptoExtras

/// The verifier's signature step: the package's one sequence from a token
/// to a `VerifiedJWT` (its key from the key cache), and reading the
/// claims it signed; what the claims must say is in `IDTokenVerifier.swift`.
extension IDTokenVerifier {
    /// The JWT of `token` once its signature verified: the package's one
    /// sequence (``RS256JWT``: the compact form, RS256, then the
    /// signature), with the key named by its `kid` among Google's (fetched
    /// through the key cache). The sequence of every token these keys
    /// sign: ID tokens here, blocking functions' events
    /// (``BlockingFunctionHandler``). Inlined: the hot path takes no
    /// `async` frame of its own for it (its `await` runs only when the key
    /// set is stale).
    @inline(__always)
    func signedJWT(_ token: String) async throws(TokenVerificationError) -> VerifiedJWT {
        let jwt: RS256JWT
        do {
            jwt = try RS256JWT(token)
        } catch .notCompactForm {
            throw .malformed("not a JWT (three strict base64url parts, at most 16 KB)")
        } catch .unexpectedAlgorithm(let algorithm) {
            throw .unsupportedAlgorithm(algorithm.rawValue)
        } catch {
            throw .malformed("the header is not a JOSE header")
        }
        guard let kid = jwt.keyID, !kid.isEmpty else { throw .malformed("the header has no kid") }
        let key: _RSA.Signing.PublicKey
        if let fresh = keys.freshKey(for: kid) { key = fresh } else { key = try await keys.key(for: kid) }
        do {
            return try jwt.verified(with: key)
        } catch {
            throw .badSignature
        }
    }

    /// The claims of `token` as `Claims`, once its signature verified
    /// (``signedJWT(_:)``); what they must say is the caller's to check.
    func verifiedClaims<Claims: Decodable>(of token: String, as type: Claims.Type) async throws(TokenVerificationError)
        -> Claims
    {
        try Self.decode(try await signedJWT(token)) { jwt throws(JWTFailure) in try jwt.claims(as: Claims.self) }
    }

    static func decode<Claims>(_ jwt: VerifiedJWT, _ read: (VerifiedJWT) throws(JWTFailure) -> Claims)
        throws(TokenVerificationError) -> Claims
    {
        do {
            return try read(jwt)
        } catch {
            if case .undecodableClaims(let decoding) = error {
                throw .malformed("the claims do not decode (\(describe(decoding)))")
            }
            throw .malformed("the claims do not decode")
        }
    }

    /// Which claim failed to decode, without its value.
    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            return "missing \((context.codingPath.map(\.stringValue) + [key.stringValue]).joined(separator: "."))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? "not a JSON object" : "wrong type at \(path)"
        @unknown default:
            return "undecodable"
        }
    }
}
