import Foundation
import HTTPTypes
import IdentityToolkit
import _CryptoExtras

/// The signed tokens the token benchmarks verify: an ID token or a session
/// cookie of a TOTP sign-in, as Google issues them, with the key set that
/// verifies them. The claims are written as a caller outside the package
/// sees them on the wire (the claims types are the package's own).
public struct BenchmarkTokens: Sendable {
    /// The project the tokens are for.
    public static let project = "bench-project"
    /// The id of the signing key in the key set.
    public static let keyID = "bench-key"
    /// The issuer prefix of ID tokens and of session cookies.
    public static let idTokenIssuer = "https://securetoken.google.com/"
    public static let sessionCookieIssuer = "https://session.firebase.google.com/"

    public let key: _RSA.Signing.PrivateKey
    /// The JWKS (`{"keys": [...]}`) of the signing key.
    public let keySet: Data
    public let idToken: String
    public let sessionCookie: String
    /// The ID token's signing input and signature (the floor's check).
    public let signingInput: Data
    public let signature: _RSA.Signing.RSASignature

    public init() throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        self.key = key
        let primitives = try key.publicKey.getKeyPrimitives()
        keySet = try JSONEncoder().encode(
            JSONWebKeySet(keys: [
                JSONWebKey(
                    kty: "RSA", alg: "RS256", use: "sig", kid: Self.keyID,
                    n: Self.base64URL(primitives.modulus), e: Self.base64URL(primitives.publicExponent))
            ]))
        let now = Int(Date().timeIntervalSince1970)
        let project = Self.project
        func claims(issuer: String) throws -> Data {
            try JSONSerialization.data(
                withJSONObject: [
                    "iss": issuer + project, "aud": project, "auth_time": now - 60, "user_id": "bench-user",
                    "sub": "bench-user", "iat": now - 60, "exp": now + 3600, "email": "bench@example.com",
                    "email_verified": true,
                    "firebase": [
                        "identities": ["email": ["bench@example.com"]], "sign_in_provider": "password",
                        "sign_in_second_factor": "totp", "second_factor_identifier": "enrollment-1",
                    ],
                ] as [String: Any], options: [.sortedKeys])
        }
        let header = try Self.base64URL(
            JSONSerialization.data(
                withJSONObject: ["alg": "RS256", "typ": "JWT", "kid": Self.keyID],
                options: [.sortedKeys]))
        func signed(_ claims: Data) throws -> (input: String, signature: _RSA.Signing.RSASignature) {
            let input = header + "." + Self.base64URL(claims)
            return (input, try key.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5))
        }
        let id = try signed(claims(issuer: Self.idTokenIssuer))
        idToken = id.input + "." + Self.base64URL(id.signature.rawRepresentation)
        signingInput = Data(id.input.utf8)
        signature = id.signature
        let session = try signed(claims(issuer: Self.sessionCookieIssuer))
        sessionCookie = session.input + "." + Self.base64URL(session.signature.rawRepresentation)
    }

    /// Base64url without padding (RFC 7515 §2).
    public static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// Answers the key route with a JWKS, cacheable for an hour.
public struct KeyRoute: HTTPTransport {
    public let body: Data
    public init(body: Data) { self.body = body }
    public func send(_ request: HTTPRequest, body _: Data?, options _: TransportOptions) async throws -> (
        HTTPResponse, Data
    ) {
        (
            HTTPResponse(
                status: .ok, headerFields: [.contentType: "application/json", .cacheControl: "public, max-age=3600"]),
            body
        )
    }
}
