import Crypto

/// HOTP (RFC 4226): a one-time password from a key and a counter.
///
/// The HMAC key schedule (inner and outer padded key states, hashed by
/// swift-crypto) is computed once at initialisation, so each code costs two
/// hash compressions for SHA-1 and SHA-256.
public struct HOTP: Sendable {
    /// The hash of the HMAC.
    public let algorithm: HashAlgorithm
    /// How many digits a code has (6, 7 or 8).
    public let digits: Int

    private let mac: PrecomputedHMAC
    private let modulus: UInt32

    /// Creates a generator.
    /// - Parameters:
    ///   - key: The shared secret: at least 16 bytes (RFC 4226 requires
    ///     128 bits and recommends 160) unless `keyLengthPolicy` says otherwise.
    ///   - algorithm: The HMAC hash.
    ///   - digits: 6, 7 or 8.
    ///   - keyLengthPolicy: The shortest key accepted;
    ///     `OTPKeyLengthPolicy/legacyImport` only for secrets an older system issued.
    /// - Throws: ``OTPError/invalidDigits(_:)``, or ``OTPError/secretTooShort(byteCount:minimum:)``.
    public init(
        key: some Collection<UInt8>, algorithm: HashAlgorithm = .sha1, digits: Int = 6,
        keyLengthPolicy: OTPKeyLengthPolicy = .rfc4226
    ) throws {
        guard (6...8).contains(digits) else { throw OTPError.invalidDigits(digits) }
        guard keyLengthPolicy.allows(byteCount: key.count) else {
            throw OTPError.secretTooShort(byteCount: key.count, minimum: keyLengthPolicy.minimumByteCount)
        }
        self.algorithm = algorithm
        self.digits = digits
        self.mac = PrecomputedHMAC(key: Array(key), algorithm: algorithm)
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        self.modulus = modulus
    }

    /// The code for `counter` as a number (left-pad with zeros to `digits`).
    @inlinable
    public func value(counter: UInt64) -> UInt32 {
        truncatedValue(counter: counter) % modulusValue
    }

    /// The code for `counter`, zero-padded to `digits`.
    public func code(counter: UInt64) -> String {
        OTPCode.format(value(counter: counter), digits: digits)
    }

    @usableFromInline var modulusValue: UInt32 { modulus }

    /// RFC 4226 dynamic truncation of the MAC of `counter`, before the modulus.
    @usableFromInline
    func truncatedValue(counter: UInt64) -> UInt32 {
        mac.truncated(counter: counter)
    }
}

/// Formatting and constant-time comparison of codes.
public enum OTPCode {
    /// `value` left-padded with zeros to `digits` characters.
    public static func format(_ value: UInt32, digits: Int) -> String {
        // At most 10 bytes: a small string, built in place without allocating.
        String(unsafeUninitializedCapacity: digits) { buffer in
            var rest = value
            for index in stride(from: digits - 1, through: 0, by: -1) {
                buffer[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
            return digits
        }
    }

    /// Parses a code of exactly `digits` ASCII digits; nil otherwise.
    public static func parse(_ code: String, digits: Int) -> UInt32? {
        var value: UInt32 = 0
        var count = 0
        for byte in code.utf8 {
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"), count < digits else { return nil }
            value = value * 10 + UInt32(byte - UInt8(ascii: "0"))
            count += 1
        }
        return count == digits ? value : nil
    }

    /// Compares two values with branch-free arithmetic: the difference's
    /// bits decide, not a branch.
    @inlinable
    public static func constantTimeEquals(_ a: UInt32, _ b: UInt32) -> Bool {
        equalityMask(a, b) & 1 == 1
    }

    /// All ones when `a == b`, else zero, computed without a comparison or
    /// branch: `d | -d` has its top bit set exactly when `d = a ^ b` is not
    /// zero. Callers combine masks (as ``TOTP/matchingStep(for:at:window:)``
    /// does across the whole window) so that no branch depends on which
    /// candidate, if any, matched. Swift promises no constant-time
    /// primitive; this keeps the data out of control flow, and the work per
    /// candidate (an HMAC) is the same whatever the code.
    /// Package-wide: the building block of the package's own comparisons,
    /// not an API to keep.
    @inlinable
    package static func equalityMask(_ a: UInt32, _ b: UInt32) -> UInt64 {
        let difference = a ^ b
        let nonZeroBit = UInt64((difference | (0 &- difference)) >> 31)
        return 0 &- (nonZeroBit ^ 1)
    }
}
