package import Foundation
import OTPFormats

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
    /// The token's bytes; the signing input is their start.
    private let bytes: [UInt8]
    private let signingInputEnd: Int

    /// `header.payload` as sent: the bytes the signature covers (a slice of
    /// the token's one copy, not a second copy).
    package var signingInput: ArraySlice<UInt8> { bytes[..<signingInputEnd] }

    /// Splits and decodes `token`; nil unless it is exactly three valid
    /// base64url parts (header and payload non-empty) within ``maximumLength``.
    package init?(_ token: some StringProtocol) {
        guard token.utf8.count <= Self.maximumLength else { return nil }
        // One copy of the bytes, then index arithmetic: splitting the
        // string's UTF-8 view was a tenth of a whole verification.
        let bytes = Array(token.utf8)
        let dot = UInt8(ascii: ".")
        guard let first = bytes.firstIndex(of: dot), let second = bytes[(first + 1)...].firstIndex(of: dot),
            !bytes[(second + 1)...].contains(dot), first > 0, second > first + 1,
            let header = Data(base64URLEncodedUTF8: bytes[..<first]),
            let payload = Data(base64URLEncodedUTF8: bytes[(first + 1)..<second]),
            let signature = Data(base64URLEncodedUTF8: bytes[(second + 1)...])
        else { return nil }
        self.header = header
        self.payload = payload
        self.signature = signature
        self.bytes = bytes
        signingInputEnd = second
    }
}
