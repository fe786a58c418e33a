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

            /// Sorted keys, as ``Claims/json``; names from `CodingKeys`.
            var json: String {
                var identityMembers = JSONObjectText()
                for (provider, ids) in identities.sorted(by: { $0.key < $1.key }) {
                    identityMembers.member(provider, strings: ids)
                }
                var out = JSONObjectText()
                out.member(CodingKeys.identities.stringValue, object: identityMembers.closed)
                if let secondFactorIdentifier { out.member(CodingKeys.secondFactorIdentifier.stringValue, string: secondFactorIdentifier) }
                out.member(CodingKeys.signInProvider.stringValue, string: signInProvider)
                if let signInSecondFactor { out.member(CodingKeys.signInSecondFactor.stringValue, string: signInSecondFactor) }
                if let tenant { out.member(CodingKeys.tenant.stringValue, string: tenant) }
                return out.closed
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

        /// The payload as JSON, written directly rather than through
        /// `JSONEncoder`, since every sign-in signs one. Byte for byte what
        /// `JSONEncoder` writes with `.sortedKeys` and `.withoutEscapingSlashes`
        /// (a test holds the two together). Member names come from `CodingKeys`,
        /// written in sorted order.
        var json: String {
            var out = JSONObjectText()
            out.member(CodingKeys.aud.stringValue, string: aud)
            out.member(CodingKeys.authTime.stringValue, number: authTime)
            if let email { out.member(CodingKeys.email.stringValue, string: email) }
            if let emailVerified { out.member(CodingKeys.emailVerified.stringValue, bool: emailVerified) }
            out.member(CodingKeys.exp.stringValue, number: exp)
            out.member(CodingKeys.firebase.stringValue, object: firebase.json)
            out.member(CodingKeys.iat.stringValue, number: iat)
            out.member(CodingKeys.iss.stringValue, string: iss)
            out.member(CodingKeys.sub.stringValue, string: sub)
            out.member(CodingKeys.userID.stringValue, string: userID)
            return out.closed
        }
    }

    /// ID tokens live one hour, as Firebase's do.
    static let lifetime: Int64 = 3600

    private let privateKey: _RSA.Signing.PrivateKey
    let keyID: String
    /// The JOSE header, base64url-encoded: the same for every token of this key.
    private let encodedHeader: String

    init() throws {
        privateKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        keyID = Data(SHA256.hash(data: privateKey.publicKey.derRepresentation).prefix(8)).base64URLEncoded
        encodedHeader = Data(#"{"alg":"RS256","kid":"\#(keyID)","typ":"JWT"}"#.utf8).base64URLEncoded
        let primitives = try privateKey.publicKey.getKeyPrimitives()
        jwks = JSONWebKeySet(keys: [JSONWebKey(
            kty: "RSA", alg: "RS256", use: "sig", kid: keyID,
            n: primitives.modulus.base64URLEncoded, e: primitives.publicExponent.base64URLEncoded
        )])
    }

    func sign(_ claims: Claims) throws -> String {
        let signingInput = encodedHeader + "." + Data(claims.json.utf8).base64URLEncoded
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
        return claims
    }

    /// The public key as a JSON Web Key Set, made once at start-up: a key
    /// whose primitives cannot be read fails the emulator's start, never
    /// publishes an empty modulus.
    let jwks: JSONWebKeySet
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

/// A JSON object written member by member, escaping strings as
/// `JSONEncoder` does with `.withoutEscapingSlashes`: `"` and `\`, the
/// short escapes for control characters that have one, `\u00XX` for the rest.
struct JSONObjectText {
    private var text = "{"
    private var empty = true

    private mutating func key(_ name: String) {
        if !empty { text += "," }
        empty = false
        Self.appendString(name, to: &text)
        text += ":"
    }

    mutating func member(_ name: String, string value: String) {
        key(name)
        Self.appendString(value, to: &text)
    }

    mutating func member(_ name: String, number value: Int64) {
        key(name)
        text += String(value)
    }

    mutating func member(_ name: String, bool value: Bool) {
        key(name)
        text += value ? "true" : "false"
    }

    mutating func member(_ name: String, strings values: [String]) {
        key(name)
        text += "["
        for (index, value) in values.enumerated() {
            if index > 0 { text += "," }
            Self.appendString(value, to: &text)
        }
        text += "]"
    }

    /// `object` is JSON text already (another ``closed`` object).
    mutating func member(_ name: String, object: String) {
        key(name)
        text += object
    }

    /// The object's text, with its closing brace.
    var closed: String { text + "}" }

    static func appendString(_ value: String, to text: inout String) {
        text += "\""
        var plainStart = value.unicodeScalars.startIndex
        var index = plainStart
        let scalars = value.unicodeScalars
        while index != scalars.endIndex {
            let scalar = scalars[index]
            let escape: String? = switch scalar {
            case "\"": "\\\""
            case "\\": "\\\\"
            case "\n": "\\n"
            case "\r": "\\r"
            case "\t": "\\t"
            case "\u{08}": "\\b"
            case "\u{0C}": "\\f"
            case _ where scalar.value < 0x20:
                "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            default: nil
            }
            if let escape {
                text.unicodeScalars.append(contentsOf: scalars[plainStart..<index])
                text += escape
                plainStart = scalars.index(after: index)
            }
            index = scalars.index(after: index)
        }
        text.unicodeScalars.append(contentsOf: scalars[plainStart..<scalars.endIndex])
        text += "\""
    }
}
