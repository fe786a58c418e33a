/// Invalid OTP parameters. Messages name the parameter, never a key or a code.
public enum OTPError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Digits must be 6, 7 or 8.
    case invalidDigits(Int)
    /// The period must be at least one second.
    case invalidPeriod(Int64)
    /// The verification window must be 0…10 steps.
    case invalidWindow(Int)
    /// The secret is empty or shorter than allowed.
    case secretTooShort(byteCount: Int, minimum: Int)
    /// The time is before the generator's T0.
    case timeBeforeEpoch
    /// Too many wrong codes for one key or challenge: no code is checked
    /// until the limit resets (``TOTPAttemptLimit``).
    case tooManyAttempts(limit: Int)
    /// An attempt limit must allow at least one failure.
    case invalidAttemptLimit(Int)

    /// What is wrong, with the value that is wrong (never a secret).
    public var description: String {
        switch self {
        case .invalidDigits(let digits): return "digits must be 6, 7 or 8, not \(digits)"
        case .invalidPeriod(let period): return "period must be at least 1 second, not \(period)"
        case .invalidWindow(let window): return "window must be 0 to 10 steps, not \(window)"
        case .secretTooShort(let count, let minimum): return "the secret has \(count) bytes; at least \(minimum) are required"
        case .timeBeforeEpoch: return "the time is before the generator's T0"
        case .tooManyAttempts(let limit): return "\(limit) wrong codes were entered; no more codes are checked"
        case .invalidAttemptLimit(let limit): return "the attempt limit must be at least 1, not \(limit)"
        }
    }
}
