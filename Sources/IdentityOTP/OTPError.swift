/// Invalid OTP parameters, or a verification that may not go on. Messages
/// name the parameter, never a key or a code.
///
/// A struct over a private enum (as async-http-client's `HTTPClientError`),
/// so that a later release can add a case without breaking a `switch`:
/// compare with `==`, or match by ``Code``
/// (`catch let error as OTPError where error.code == .tooManyAttempts`).
public struct OTPError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of error without its values.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        fileprivate enum Base: String, Sendable, Hashable {
            case invalidDigits, invalidPeriod, invalidWindow, secretTooShort, timeBeforeEpoch, tooManyAttempts
            case invalidAttemptLimit, invalidLockout, invalidRecoveryCodeParameters, factorLocked
        }

        fileprivate let base: Base

        /// Digits must be 6, 7 or 8.
        public static let invalidDigits = Code(base: .invalidDigits)
        /// The period must be at least one second.
        public static let invalidPeriod = Code(base: .invalidPeriod)
        /// The verification window must be 0…10 steps.
        public static let invalidWindow = Code(base: .invalidWindow)
        /// The secret is shorter than allowed.
        public static let secretTooShort = Code(base: .secretTooShort)
        /// The time is before the generator's T0.
        public static let timeBeforeEpoch = Code(base: .timeBeforeEpoch)
        /// Too many unsuccessful attempts: no code is checked for now.
        public static let tooManyAttempts = Code(base: .tooManyAttempts)
        /// Too many unsuccessful attempts in a row: the key is locked until
        /// the user proves themselves another way.
        public static let factorLocked = Code(base: .factorLocked)
        /// An attempt limit must allow at least one failure.
        public static let invalidAttemptLimit = Code(base: .invalidAttemptLimit)
        /// A lock-out must last at least a second.
        public static let invalidLockout = Code(base: .invalidLockout)
        /// A recovery-code set's size or hashing cost is out of range.
        public static let invalidRecoveryCodeParameters = Code(base: .invalidRecoveryCodeParameters)

        /// The error's name, such as `tooManyAttempts`.
        public var description: String { base.rawValue }

        /// Matches any error of this kind: `catch OTPError.Code.tooManyAttempts`.
        public static func ~= (pattern: Code, error: any Error) -> Bool {
            (error as? OTPError)?.code == pattern
        }
    }

    private enum Storage: Sendable, Hashable {
        case invalidDigits(Int)
        case invalidPeriod(Int64)
        case invalidWindow(Int)
        case secretTooShort(byteCount: Int, minimum: Int)
        case timeBeforeEpoch
        case tooManyAttempts(limit: Int)
        case factorLocked(failures: Int)
        case invalidAttemptLimit(Int)
        case invalidLockout(Duration)
        case invalidRecoveryCodeParameters(String)
    }

    private let storage: Storage

    private init(_ storage: Storage) {
        self.storage = storage
    }

    /// The kind of error.
    public var code: Code {
        switch storage {
        case .invalidDigits: return .invalidDigits
        case .invalidPeriod: return .invalidPeriod
        case .invalidWindow: return .invalidWindow
        case .secretTooShort: return .secretTooShort
        case .timeBeforeEpoch: return .timeBeforeEpoch
        case .tooManyAttempts: return .tooManyAttempts
        case .factorLocked: return .factorLocked
        case .invalidAttemptLimit: return .invalidAttemptLimit
        case .invalidLockout: return .invalidLockout
        case .invalidRecoveryCodeParameters: return .invalidRecoveryCodeParameters
        }
    }

    /// Digits must be 6, 7 or 8.
    public static func invalidDigits(_ digits: Int) -> Self { Self(.invalidDigits(digits)) }
    /// The period must be at least one second.
    public static func invalidPeriod(_ period: Int64) -> Self { Self(.invalidPeriod(period)) }
    /// The verification window must be 0…10 steps.
    public static func invalidWindow(_ window: Int) -> Self { Self(.invalidWindow(window)) }
    /// The secret is shorter than the key-length policy allows.
    public static func secretTooShort(byteCount: Int, minimum: Int) -> Self {
        Self(.secretTooShort(byteCount: byteCount, minimum: minimum))
    }
    /// The time is before the generator's T0.
    public static let timeBeforeEpoch = Self(.timeBeforeEpoch)
    /// Too many unsuccessful attempts for one key or challenge: no code is
    /// checked until the count lapses or is cleared (``TOTPAttemptLimit``).
    public static func tooManyAttempts(limit: Int) -> Self { Self(.tooManyAttempts(limit: limit)) }
    /// `failures` unsuccessful attempts in a row, the limit's final bound
    /// (``TOTPAttemptLimit/maximumConsecutiveFailures``): no code is checked
    /// until a success through another path (a recovery code, an
    /// administrator) clears the run.
    public static func factorLocked(failures: Int) -> Self { Self(.factorLocked(failures: failures)) }
    /// An attempt limit must allow at least one failure.
    public static func invalidAttemptLimit(_ limit: Int) -> Self { Self(.invalidAttemptLimit(limit)) }
    /// A lock-out must last at least a second.
    public static func invalidLockout(_ lockout: Duration) -> Self { Self(.invalidLockout(lockout)) }
    /// A recovery-code set's size or hashing cost is out of range (`reason` says which).
    public static func invalidRecoveryCodeParameters(_ reason: String) -> Self {
        Self(.invalidRecoveryCodeParameters(reason))
    }

    /// Matches an error equal to `pattern`: `catch OTPError.timeBeforeEpoch`.
    public static func ~= (pattern: Self, error: any Error) -> Bool {
        (error as? Self) == pattern
    }

    /// What is wrong, with the value that is wrong (never a secret).
    public var description: String {
        switch storage {
        case .invalidDigits(let digits): return "digits must be 6, 7 or 8, not \(digits)"
        case .invalidPeriod(let period): return "period must be at least 1 second, not \(period)"
        case .invalidWindow(let window): return "window must be 0 to 10 steps, not \(window)"
        case .secretTooShort(let count, let minimum):
            return "the secret has \(count) bytes; at least \(minimum) are required"
        case .timeBeforeEpoch: return "the time is before the generator's T0"
        case .tooManyAttempts(let limit):
            return "\(limit) unsuccessful codes were entered; no more codes are checked for now"
        case .factorLocked(let failures):
            return
                "\(failures) unsuccessful codes were entered in a row; this factor is locked until the user proves themselves another way"
        case .invalidAttemptLimit(let limit):
            return "the attempt limit must be at least 1 (and at most 100 in a row), not \(limit)"
        case .invalidLockout(let lockout):
            return "the lock-out must last at least 1 second (the longest at least the first), not \(lockout)"
        case .invalidRecoveryCodeParameters(let reason): return "recovery codes: \(reason)"
        }
    }
}
