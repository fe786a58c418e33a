/// How short a shared secret may be.
///
/// RFC 4226 §4 (R6) requires at least 128 bits and recommends 160; every
/// generator and parser of this package holds to 128 bits unless the
/// caller says otherwise. Older authenticator set-ups used 80-bit secrets
/// (the `JBSWY3DPEHPK3PXP` of many examples): importing one is an explicit
/// choice, ``legacyImport``, and such a secret should be replaced at the
/// next enrollment.
public struct OTPKeyLengthPolicy: Sendable, Hashable, CustomStringConvertible {
    /// The fewest bytes a secret may have.
    public let minimumByteCount: Int

    /// At least 16 bytes (128 bits), as RFC 4226 requires: the default.
    public static let rfc4226 = OTPKeyLengthPolicy(minimumByteCount: 16)

    /// Any non-empty secret: only for importing secrets an older system
    /// issued. Short secrets shrink the work of recovering the key from
    /// observed codes; enroll a new one when you can.
    public static let legacyImport = OTPKeyLengthPolicy(minimumByteCount: 1)

    private init(minimumByteCount: Int) {
        self.minimumByteCount = minimumByteCount
    }

    /// `at least N bytes`.
    public var description: String { "at least \(minimumByteCount) byte\(minimumByteCount == 1 ? "" : "s")" }

    /// Whether a secret of `byteCount` bytes is long enough.
    public func allows(byteCount: Int) -> Bool { byteCount >= minimumByteCount }
}
