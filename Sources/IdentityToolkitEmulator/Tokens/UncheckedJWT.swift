#if Emulator
import Foundation
import IdentitySupport

/// The payload of a compact JWT read without looking at its signature: the
/// IdP credentials the emulator never verifies (Google's emulator reads
/// them so), and the unsigned ID tokens of Google-compatible mode. Verified
/// tokens go through IdentityToolkitJWT's `RS256JWT` instead.
enum UncheckedJWT {
    /// The decoded payload of `token` (three base64url parts), or nil.
    /// `unsigned`: only a token whose signature part is empty (`alg: none`).
    static func payload(of token: String, unsigned: Bool = false) -> Data? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, !unsigned || parts[2].isEmpty else { return nil }
        return Data(base64URLEncoded: parts[1])
    }

    /// The decoded header of `token`, or nil.
    static func header(of token: String) -> Data? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        return Data(base64URLEncoded: parts[0])
    }
}
#endif
