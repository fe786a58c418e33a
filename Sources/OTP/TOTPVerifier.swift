/// Remembers, per key, the last time step whose code was accepted.
///
/// Implementations must make ``recordAcceptedStep(_:for:)`` atomic, so that
/// two concurrent verifications of one code cannot both succeed.
public protocol TOTPReplayStore: Sendable {
    /// Records `step` for `keyID` if it is later than the last recorded step.
    /// - Returns: false when `step` is not later (the code is a replay).
    func recordAcceptedStep(_ step: UInt64, for keyID: String) async throws -> Bool
}

/// An in-memory ``TOTPReplayStore``; an actor, so safe under concurrency.
public actor InMemoryTOTPReplayStore: TOTPReplayStore {
    private var lastAccepted: [String: UInt64] = [:]

    /// An empty store.
    public init() {}

    /// Records `step` for `keyID` unless it is not after the last one recorded.
    public func recordAcceptedStep(_ step: UInt64, for keyID: String) -> Bool {
        if TOTPVerifier.isReplay(step, lastAcceptedStep: lastAccepted[keyID]) { return false }
        lastAccepted[keyID] = step
        return true
    }

    /// The last accepted step of `keyID`, if any.
    public func lastAcceptedStep(for keyID: String) -> UInt64? { lastAccepted[keyID] }
}

/// How many wrong codes one key (or one sign-in challenge) may receive
/// before verification stops, so that a 6-digit code cannot be guessed by
/// trying: NIST SP 800-63B §5.2.2 asks verifiers to limit failed attempts.
/// With a window of 5 (11 accepted codes in 10⁶) and a limit of 5, a guesser
/// succeeds with a probability of about 5.5 × 10⁻⁵ per challenge.
public struct TOTPAttemptLimit: Sendable, Hashable {
    /// The failures allowed; the next attempt is refused, right code or not.
    public let maximumFailures: Int

    /// - Throws: ``OTPError/invalidAttemptLimit(_:)`` below 1.
    public init(maximumFailures: Int = 5) throws {
        guard maximumFailures >= 1 else { throw OTPError.invalidAttemptLimit(maximumFailures) }
        self.init(checked: maximumFailures)
    }

    private init(checked maximumFailures: Int) {
        self.maximumFailures = maximumFailures
    }

    /// Five failures, then no more checks.
    public static let `default` = TOTPAttemptLimit(checked: 5)
}

/// Counts the failed attempts of each key for ``TOTPVerifier``; an actor,
/// so safe under concurrency. A success clears the key's count.
public actor TOTPAttemptCounter {
    private var failures: [String: Int] = [:]

    /// A counter with no failures recorded.
    public init() {}

    /// The failed attempts recorded for `keyID`.
    public func failures(for keyID: String) -> Int { failures[keyID] ?? 0 }

    func record(_ result: TOTPVerifier.Result, for keyID: String) {
        if case .accepted = result { failures[keyID] = nil } else { failures[keyID, default: 0] += 1 }
    }

    /// Forgets `keyID`'s failures (after the user proved themselves another way).
    public func reset(_ keyID: String) { failures[keyID] = nil }
}

/// Verifies TOTP codes with a window and replay protection (RFC 6238 §5.2):
/// once a code is accepted, no code of that step or an earlier one is
/// accepted again for the same key.
public struct TOTPVerifier: Sendable {
    /// The outcome of one verification.
    public enum Result: Sendable, Hashable {
        /// The code matches `step` and was not used before.
        case accepted(step: UInt64)
        /// The code matches `step`, but that step (or a later one) was already used.
        case replayed(step: UInt64)
        /// The code matches no step in the window.
        case invalid
    }

    /// The generator whose codes are accepted.
    public let totp: TOTP
    /// Steps accepted on either side of now (Identity Platform's `adjacentIntervals`).
    public let window: Int
    /// Where accepted steps are remembered.
    public let store: any TOTPReplayStore
    /// The failures allowed per key, when limited; nil checks every code.
    public let attemptLimit: TOTPAttemptLimit?
    /// Where failures are counted when ``attemptLimit`` is set.
    public let attempts: TOTPAttemptCounter

    /// A verifier of `totp`'s codes.
    /// - Parameters:
    ///   - totp: The generator whose codes are accepted.
    ///   - window: Steps accepted on either side of now, 0 to 10.
    ///   - store: Where accepted steps are remembered, so that a code is accepted once.
    ///   - attempts: Where failures are counted.
    ///   - attemptLimit: Refuse every code of a key after this many failures
    ///     (``OTPError/tooManyAttempts(limit:)``) until a success or
    ///     ``TOTPAttemptCounter/reset(_:)``; nil (the default) does not limit.
    /// - Throws: ``OTPError/invalidWindow(_:)`` outside 0…10.
    public init(totp: TOTP, window: Int = 5, store: any TOTPReplayStore = InMemoryTOTPReplayStore(),
                attemptLimit: TOTPAttemptLimit? = nil, attempts: TOTPAttemptCounter = TOTPAttemptCounter()) throws {
        guard (0...10).contains(window) else { throw OTPError.invalidWindow(window) }
        self.totp = totp
        self.window = window
        self.store = store
        self.attemptLimit = attemptLimit
        self.attempts = attempts
    }

    /// Verifies `code` for the key named `keyID` at `unixTime`.
    /// - Throws: ``OTPError/tooManyAttempts(limit:)`` once the key has had
    ///   ``attemptLimit`` failures (the code is not checked).
    public func verify(_ code: String, keyID: String, at unixTime: Int64) async throws -> Result {
        if let attemptLimit, await attempts.failures(for: keyID) >= attemptLimit.maximumFailures {
            throw OTPError.tooManyAttempts(limit: attemptLimit.maximumFailures)
        }
        let result: Result
        if let step = try totp.matchingStep(for: code, at: unixTime, window: window) {
            result = try await store.recordAcceptedStep(step, for: keyID) ? .accepted(step: step) : .replayed(step: step)
        } else {
            result = .invalid
        }
        if attemptLimit != nil { await attempts.record(result, for: keyID) }
        return result
    }

    /// The same verification for a caller that keeps each key's last
    /// accepted step itself, such as a server's account store: it must
    /// record the step of an `.accepted` result atomically with this check
    /// (inside one actor method or database transaction), or two concurrent
    /// requests could both use one code. The emulator verifies this way.
    /// - Throws: ``OTPError/invalidWindow(_:)`` outside 0…10, or a time before 1970.
    public static func check(_ code: String, totp: TOTP, window: Int, at unixTime: Int64, lastAcceptedStep: UInt64?) throws -> Result {
        guard let step = try totp.matchingStep(for: code, at: unixTime, window: window) else { return .invalid }
        return isReplay(step, lastAcceptedStep: lastAcceptedStep) ? .replayed(step: step) : .accepted(step: step)
    }

    /// ``check(_:totp:window:at:lastAcceptedStep:)`` with an attempt limit,
    /// for a caller that keeps the failure count with its own state (a
    /// pending sign-in, an enrollment session): a wrong or replayed code adds
    /// one to `failures`; once `failures` reaches the limit no code is
    /// checked.
    /// - Throws: ``OTPError/tooManyAttempts(limit:)`` at the limit.
    public static func check(_ code: String, totp: TOTP, window: Int, at unixTime: Int64, lastAcceptedStep: UInt64?,
                             failures: inout Int, limit: TOTPAttemptLimit) throws -> Result {
        guard failures < limit.maximumFailures else { throw OTPError.tooManyAttempts(limit: limit.maximumFailures) }
        let result = try check(code, totp: totp, window: window, at: unixTime, lastAcceptedStep: lastAcceptedStep)
        if case .accepted = result { return result }
        failures += 1
        return result
    }

    /// RFC 6238 §5.2: a step at or before the last accepted one is a replay.
    public static func isReplay(_ step: UInt64, lastAcceptedStep: UInt64?) -> Bool {
        guard let lastAcceptedStep else { return false }
        return step <= lastAcceptedStep
    }
}
