import Crypto
import Foundation
import Testing
import X509
import _CryptoExtras

/// Verifies a JWT's RS256 signature with the key the emulator publishes at Google's key route,
/// as a relying party would.
enum JWKSCheck {
    static func base64URL(_ text: String) throws -> Data {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return try #require(Data(base64Encoded: base64))
    }

    static func verify(_ token: String, jwks: Data) throws {
        let set = try #require(try JSONSerialization.jsonObject(with: jwks) as? [String: [[String: String]]])
        let key = try #require(set["keys"]?.first)
        #expect(key["alg"] == "RS256")
        let parts = token.split(separator: ".").map(String.init)
        let header = try #require(try JSONSerialization.jsonObject(with: try base64URL(parts[0])) as? [String: String])
        #expect(header["kid"] == key["kid"])
        #expect(header["alg"] == "RS256")
        let publicKey = try _RSA.Signing.PublicKey(
            n: try base64URL(try #require(key["n"])), e: try base64URL(try #require(key["e"])))
        let signature = _RSA.Signing.RSASignature(rawRepresentation: try base64URL(parts[2]))
        #expect(
            publicKey.isValidSignature(
                signature, for: Data((parts[0] + "." + parts[1]).utf8), padding: .insecurePKCS1v1_5))
        #expect(
            !publicKey.isValidSignature(
                signature, for: Data((parts[0] + "." + parts[1] + "x").utf8), padding: .insecurePKCS1v1_5))
    }

    /// The same check with Google's x509 form: `{kid: certificate PEM}`.
    static func verify(_ token: String, certificates: Data) throws {
        let map = try #require(try JSONSerialization.jsonObject(with: certificates) as? [String: String])
        let parts = token.split(separator: ".").map(String.init)
        let header = try #require(try JSONSerialization.jsonObject(with: try base64URL(parts[0])) as? [String: String])
        let kid = try #require(header["kid"])
        let pem = try #require(map[kid], "no certificate for the token's kid")
        let certificate = try Certificate(pemEncoded: pem)
        #expect(certificate.subject.description.contains("securetoken.system.gserviceaccount.com"))
        // Self-signed: the certificate's own signature verifies with its key.
        #expect(certificate.publicKey.isValidSignature(certificate.signature, for: certificate))
        let publicKey = try #require(_RSA.Signing.PublicKey(certificate.publicKey))
        let signature = _RSA.Signing.RSASignature(rawRepresentation: try base64URL(parts[2]))
        #expect(
            publicKey.isValidSignature(
                signature, for: Data((parts[0] + "." + parts[1]).utf8), padding: .insecurePKCS1v1_5))
    }
}
