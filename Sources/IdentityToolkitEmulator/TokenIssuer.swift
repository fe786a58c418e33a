import Crypto
import Foundation
import IdentityToolkit
import _CryptoExtras

/// Signs and verifies the emulator's ID tokens: RS256 JWTs with the claims
/// Firebase puts in its ID tokens, under a key published at
/// `/emulator/v1/jwks`.
struct TokenIssuer: Sendable {
    /// The claims of an ID token.
    struct Claims: Codable, Sendable {
        struct Firebase: Codable, Sendable {
            var identities: [String: [String]]
            var signInProvider: String
            var signInSecondFactor: String?
            var secondFactorIdentifier: String?
            var tenant: String?

            enum CodingKeys: String, CodingKey {
                case identities
                case signInProvider = "sign_in_provider"
                case signInSecondFactor = "sign_in_second_factor"
                case secondFactorIdentifier = "second_factor_identifier"
                case tenant
            }
        }

        var iss: String
        var aud: String
        var authTime: Int64
        var userID: String
        var sub: String
        var iat: Int64
        var exp: Int64
        var email: String?
        var emailVerified: Bool?
        var firebase: Firebase

        enum CodingKeys: String, CodingKey {
            case iss, aud, sub, iat, exp, email, firebase
            case authTime = "auth_time"
            case userID = "user_id"
            case emailVerified = "email_verified"
        }
    }

    /// ID tokens live one hour, as Firebase's do.
    static let lifetime: Int64 = 3600

    private let privateKey: _RSA.Signing.PrivateKey
    let keyID: String

    init() throws {
        privateKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        keyID = Data(SHA256.hash(data: privateKey.publicKey.derRepresentation).prefix(8)).base64URLEncoded
    }

    func sign(_ claims: Claims) throws -> String {
        let header = #"{"alg":"RS256","kid":"\#(keyID)","typ":"JWT"}"#
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let signingInput = Data(header.utf8).base64URLEncoded + "." + (try encoder.encode(claims)).base64URLEncoded
        let signature = try privateKey.signature(for: Data(signingInput.utf8), padding: .insecurePKCS1v1_5)
        return signingInput + "." + signature.rawRepresentation.base64URLEncoded
    }

    enum VerificationError: Error {
        case malformed, badSignature
    }

    /// The claims of a token this emulator signed; expiry is the caller's check.
    func verify(_ token: String) throws(VerificationError) -> Claims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Data(base64URLEncoded: parts[1]), let signature = Data(base64URLEncoded: parts[2]) else {
            throw .malformed
        }
        let signingInput = Data(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard privateKey.publicKey.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: signingInput, padding: .insecurePKCS1v1_5) else {
            throw .badSignature
        }
        guard let claims = try? JSONDecoder().decode(Claims.self, from: payload) else { throw .malformed }
        return claims
    }

    /// The public key as a JSON Web Key Set.
    var jwks: [String: [[String: String]]] {
        let primitives = try? privateKey.publicKey.getKeyPrimitives()
        return ["keys": [[
            "kty": "RSA", "alg": "RS256", "use": "sig", "kid": keyID,
            "n": primitives?.modulus.base64URLEncoded ?? "", "e": primitives?.publicExponent.base64URLEncoded ?? "",
        ]]]
    }
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
