/// The HMAC hash of an OTP generator (RFC 6238 allows SHA-1, SHA-256, SHA-512).
public enum HashAlgorithm: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// HMAC-SHA-1, the default of RFC 4226 and of every authenticator app.
    case sha1 = "SHA1"
    /// HMAC-SHA-256.
    case sha256 = "SHA256"
    /// HMAC-SHA-512.
    case sha512 = "SHA512"

    /// Parses `SHA1`, `SHA256`, `SHA512` (any case, with or without a hyphen).
    public init?(name: String) {
        switch String(name.uppercased().filter { $0 != "-" }) {
        case "SHA1": self = .sha1
        case "SHA256": self = .sha256
        case "SHA512": self = .sha512
        default: return nil
        }
    }

    /// The name used in otpauth URIs and by Identity Platform (`SHA1`, …).
    public var description: String { rawValue }

    /// The hash's block size in bytes, which HMAC pads the key to.
    package var blockSize: Int { self == .sha512 ? 128 : 64 }
}
