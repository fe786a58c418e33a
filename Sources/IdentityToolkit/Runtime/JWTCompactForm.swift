package import Foundation
import IdentitySupport

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
    /// The token as given; the signing input is the start of its UTF-8.
    private let token: String
    private let signingInputEnd: Int

    /// Calls `body` with `header.payload` as sent: the bytes the signature
    /// covers, read in place from the token's own storage (no copy).
    package func withSigningInput<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        var token = self.token
        return try token.withUTF8 {
            try body(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer($0)[..<signingInputEnd]))
        }
    }

    /// Splits and decodes `token`; nil unless it is exactly three valid
    /// base64url parts (header and payload non-empty) within ``maximumLength``.
    ///
    /// The token's bytes are read where they are, and the three parts are
    /// decoded into one buffer (`header`, `payload` and `signature` are
    /// slices of it): a copy of the token and a `Data` for each part took
    /// ten allocations, a tenth of a verification beside the RSA check.
    package init?(_ token: String) {
        guard token.utf8.count <= Self.maximumLength else { return nil }
        var token = token
        guard let parts = token.withUTF8(Self.decodeParts) else { return nil }
        header = parts.header
        payload = parts.payload
        signature = parts.signature
        self.token = token
        signingInputEnd = parts.signingInputEnd
    }

    /// The three parts of `token`, decoded into one buffer; nil unless the
    /// token has exactly two dots and three strict base64url parts, the
    /// first two non-empty.
    private static func decodeParts(_ token: UnsafeBufferPointer<UInt8>) -> (
        header: Data, payload: Data, signature: Data, signingInputEnd: Int
    )? {
        guard let base = token.baseAddress else { return nil }
        // memchr, not a generic search: the scan for dots was a tenth of the split.
        func dot(from start: Int) -> Int? {
            guard start < token.count, let found = memchr(base + start, Int32(UInt8(ascii: ".")), token.count - start)
            else { return nil }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
        guard let first = dot(from: 0), let second = dot(from: first + 1), dot(from: second + 1) == nil,
            first > 0, second > first + 1
        else { return nil }
        let encodedHeader = UnsafeBufferPointer(rebasing: token[..<first])
        let encodedPayload = UnsafeBufferPointer(rebasing: token[(first + 1)..<second])
        let encodedSignature = UnsafeBufferPointer(rebasing: token[(second + 1)...])
        guard let headerCount = Base64URL.decodedCount(symbols: encodedHeader.count),
            let payloadCount = Base64URL.decodedCount(symbols: encodedPayload.count),
            let signatureCount = Base64URL.decodedCount(symbols: encodedSignature.count)
        else { return nil }
        // The payload first, so that it starts at index 0 as a `Data` of its own would.
        let total = payloadCount + headerCount + signatureCount
        guard let buffer = malloc(max(total, 1)) else { return nil }
        let output = UnsafeMutableRawBufferPointer(start: buffer, count: total)
        let signatureStart = payloadCount + headerCount
        guard
            Base64URL.decodeStrict(
                encodedPayload, into: UnsafeMutableRawBufferPointer(rebasing: output[..<payloadCount])),
            Base64URL.decodeStrict(
                encodedHeader, into: UnsafeMutableRawBufferPointer(rebasing: output[payloadCount..<signatureStart])),
            Base64URL.decodeStrict(
                encodedSignature, into: UnsafeMutableRawBufferPointer(rebasing: output[signatureStart...]))
        else {
            free(buffer)
            return nil
        }
        let decoded = Data(bytesNoCopy: buffer, count: total, deallocator: .free)
        return (decoded[payloadCount..<signatureStart], decoded[..<payloadCount], decoded[signatureStart...], second)
    }
}
