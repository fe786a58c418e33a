public import Foundation

/// TOTP (RFC 6238): an HOTP code for the current time step.
public struct TOTP: Sendable {
    /// The underlying HOTP generator (key, hash, digits).
    public let hotp: HOTP
    /// The time step in seconds.
    public let period: Int64
    /// The Unix time at which step 0 starts.
    public let t0: Int64

    /// Creates a generator.
    /// - Parameters:
    ///   - key: The shared secret.
    ///   - algorithm: The HMAC hash (SHA-1 by default, as Identity Platform uses).
    ///   - digits: 6, 7 or 8.
    ///   - period: The time step in seconds, at least 1.
    ///   - t0: The Unix time of step 0.
    ///   - keyLengthPolicy: The shortest key accepted (16 bytes by default; see ``HOTP``).
    public init(
        key: some Collection<UInt8>, algorithm: HashAlgorithm = .sha1, digits: Int = 6, period: Int64 = 30,
        t0: Int64 = 0,
        keyLengthPolicy: OTPKeyLengthPolicy = .rfc4226
    ) throws {
        guard period >= 1 else { throw OTPError.invalidPeriod(period) }
        self.hotp = try HOTP(key: key, algorithm: algorithm, digits: digits, keyLengthPolicy: keyLengthPolicy)
        self.period = period
        self.t0 = t0
    }

    /// Creates a generator from a key in Base32, as authenticator apps show
    /// and take it (`TOTPSecret.sharedSecretKey()` gives this form): case,
    /// spaces, hyphens and `=` padding do not matter.
    ///
    /// ```swift
    /// let totp = try TOTP(base32Secret: "JBSW Y3DP EHPK 3PXP JBSW Y3DP EHPK 3PXP")
    /// let code = try totp.code(at: Date())
    /// ```
    /// - Parameters:
    ///   - base32Secret: The shared secret in Base32.
    ///   - algorithm: The HMAC hash (SHA-1 by default, as Identity Platform uses).
    ///   - digits: 6, 7 or 8.
    ///   - period: The time step in seconds, at least 1.
    ///   - keyLengthPolicy: The shortest key accepted (16 bytes by default; see ``HOTP``).
    /// - Throws: `Base32Error` (naming the position of the first bad
    ///   character, never the character) or ``OTPError``.
    public init(
        base32Secret: String, algorithm: HashAlgorithm = .sha1, digits: Int = 6, period: Int64 = 30,
        keyLengthPolicy: OTPKeyLengthPolicy = .rfc4226
    ) throws {
        try self.init(
            key: try Base32.decode(base32Secret, mode: .lenient), algorithm: algorithm, digits: digits, period: period,
            keyLengthPolicy: keyLengthPolicy)
    }

    /// The time step of `unixTime` (64-bit: past 2038 and 2106).
    public func step(at unixTime: Int64) throws -> UInt64 {
        guard unixTime >= t0 else { throw OTPError.timeBeforeEpoch }
        // Subtract in unsigned space so that no pair of Int64s overflows.
        return (UInt64(bitPattern: unixTime) &- UInt64(bitPattern: t0)) / UInt64(period)
    }

    /// The code for `unixTime`.
    public func code(at unixTime: Int64) throws -> String {
        hotp.code(counter: try step(at: unixTime))
    }

    /// The code for `date`.
    public func code(at date: Date) throws -> String {
        try code(at: Int64(date.timeIntervalSince1970.rounded(.down)))
    }

    /// The code for step `step`.
    public func code(step: UInt64) -> String {
        hotp.code(counter: step)
    }

    /// Checks `code` against the step of `unixTime` and `window` steps on
    /// either side, comparing every candidate in constant time.
    ///
    /// When several steps in the window share the code (about one
    /// verification in 50,000 with a window of 5), the latest one is returned.
    /// That is the replay-safe choice: once it is recorded as used, the same
    /// code matches no later step still unused, while a legitimate code whose
    /// twin is an earlier, already used step is still accepted.
    /// - Returns: The matched step (the latest when several match), or nil
    ///   when none does or `code` is not `digits` digits.
    /// - Throws: ``OTPError/invalidWindow(_:)`` outside 0…10.
    public func matchingStep(for code: String, at unixTime: Int64, window: Int) throws -> UInt64? {
        guard (0...10).contains(window) else { throw OTPError.invalidWindow(window) }
        let current = try step(at: unixTime)
        // A malformed code is compared as an impossible value, so timing does
        // not depend on where the input went wrong.
        let candidate = OTPCode.parse(code, digits: hotp.digits) ?? UInt32.max
        // Every candidate is computed and compared; masks, not branches,
        // keep the latest matching step (offsets rise, so a later match
        // overwrites an earlier one).
        var matchedStep: UInt64 = 0
        var anyMatch: UInt64 = 0
        for offset in -window...window {
            guard offset >= 0 || current >= UInt64(-offset) else { continue }
            let step = offset >= 0 ? current &+ UInt64(offset) : current - UInt64(-offset)
            let mask = OTPCode.equalityMask(hotp.value(counter: step), candidate)
            matchedStep = (step & mask) | (matchedStep & ~mask)
            anyMatch |= mask
        }
        return anyMatch != 0 ? matchedStep : nil
    }
}

/// Cryptographically random shared secrets.
public enum OTPSecret {
    /// The smallest secret generated (128 bits, RFC 4226's minimum).
    public static let minimumByteCount = OTPKeyLengthPolicy.rfc4226.minimumByteCount

    /// A new secret from the system CSPRNG.
    /// - Parameter byteCount: 20 by default (160 bits, RFC 4226's recommendation).
    /// - Throws: ``OTPError/secretTooShort(byteCount:minimum:)`` below 16 bytes.
    public static func generate(byteCount: Int = 20) throws -> [UInt8] {
        guard byteCount >= minimumByteCount else {
            throw OTPError.secretTooShort(byteCount: byteCount, minimum: minimumByteCount)
        }
        var generator = SystemRandomNumberGenerator()
        return (0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}

extension OTPAuthURI {
    /// A TOTP generator for this URI's parameters.
    /// - Parameter keyLengthPolicy: The shortest key accepted, as for ``TOTP``.
    public func totp(keyLengthPolicy: OTPKeyLengthPolicy = .rfc4226) throws -> TOTP {
        try TOTP(key: secret, algorithm: algorithm, digits: digits, period: period, keyLengthPolicy: keyLengthPolicy)
    }
}
