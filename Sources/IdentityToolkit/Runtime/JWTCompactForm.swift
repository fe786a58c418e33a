public import Foundation

/// A JWT in the JWS compact serialization (RFC 7515 §7.1): three base64url
/// parts joined by dots. The one parser of that form in the package, used
/// wherever a token from outside is read (ID tokens, OAuth2 assertions).
/// It checks the shape only; signatures and claims are the caller's.
package struct JWTCompactForm: Sendable, Hashable {
    /// The longest token accepted: far above any Google token (about 1 KB),
    /// so that a hostile megabyte is refused before it is decoded.
    package static let maximumLength = 16 * 1024

    /// The decoded JOSE header (JSON).
    package let header: Data
    /// The decoded payload (JSON claims).
    package let payload: Data
    /// The decoded signature.
    package let signature: Data
    /// `header.payload` as sent: the bytes the signature covers.
    package let signingInput: Data

    /// Splits and decodes `token`; nil unless it is exactly three valid
    /// base64url parts (header and payload non-empty) within ``maximumLength``.
    package init?(_ token: some StringProtocol) {
        let utf8 = token.utf8
        guard utf8.count <= Self.maximumLength else { return nil }
        let parts = utf8.split(separator: UInt8(ascii: "."), maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty,
            let header = Data(base64URLEncoded: String(decoding: parts[0], as: UTF8.self)),
            let payload = Data(base64URLEncoded: String(decoding: parts[1], as: UTF8.self)),
            let signature = Data(base64URLEncoded: String(decoding: parts[2], as: UTF8.self))
        else { return nil }
        self.header = header
        self.payload = payload
        self.signature = signature
        signingInput = Data(utf8.prefix(parts[0].count + 1 + parts[1].count))
    }
}
