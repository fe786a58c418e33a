public import Foundation
import IdentitySupport

/// How many unsuccessful codes one key may receive, so that a 6-digit code
/// cannot be guessed by trying, however patient the guesser.
///
/// NIST SP 800-63B §5.2.2 caps **consecutive** failed attempts on one
/// account at 100. The default limit holds that over any length of time:
///
/// - after every ``maximumFailures`` unsuccessful attempts in a row the key
///   is locked for ``lockout``, doubled at each further run (backoff), up
///   to ``maximumLockout``;
/// - after ``maximumConsecutiveFailures`` unsuccessful attempts in a row the
///   key is locked until a success through another path clears it
///   (``TOTPAttemptStore/clearAttempts(for:)``: a recovery code, an
///   administrator), and the verifier throws ``OTPError/factorLocked(failures:)``
///   so that the app can tell the user.
///
/// Only a success clears the run; it never lapses with time. With the
/// defaults (5, then 15 minutes doubling to a day, 100 in all) and a window
/// of 5 (11 accepted codes in 10⁶), a guesser's chance is at most
/// 100 × 11 / 10⁶ ≈ 0.11 % **ever**, and reaching it takes about 13 days.
/// A user who mistypes five times waits 15 minutes; the next five, 30.
public struct TOTPAttemptLimit: Sendable, Hashable {
    /// Unsuccessful attempts in a row before each lock-out.
    public let maximumFailures: Int
    /// The first lock-out; each later one doubles, up to ``maximumLockout``.
    public let lockout: Duration
    /// The longest lock-out.
    public let maximumLockout: Duration
    /// Unsuccessful attempts in a row after which the key stays locked until
    /// its run is cleared; nil for a rate limit (see ``rateLimit(_:per:)``).
    public let maximumConsecutiveFailures: Int?
    /// How long after its last counted attempt (or the end of its
    /// lock-out, if later) a run is forgotten, and its record with it; nil:
    /// never (a second factor's run, which only a success clears). Every
    /// limit on a key an attacker can choose (an address, a typed email)
    /// sets it, so that its records expire and are swept.
    public let forgetAfter: Duration?

    /// The most consecutive failures a limit may allow (NIST SP 800-63B §5.2.2).
    public static let consecutiveFailureCap = 100

    /// The defaults, in one place for the initializer and ``default``.
    @usableFromInline static let defaultMaximumFailures = 5
    @usableFromInline static let defaultLockout = Duration.seconds(15 * 60)
    @usableFromInline static let defaultMaximumLockout = Duration.seconds(24 * 3600)

    /// - Parameters:
    ///   - maximumFailures: Unsuccessful attempts in a row before each lock-out, at least 1.
    ///   - lockout: The first lock-out, at least a second.
    ///   - maximumLockout: The longest lock-out (the backoff's cap), at least `lockout`.
    ///   - maximumConsecutiveFailures: Unsuccessful attempts in a row after which
    ///     the key stays locked until cleared: 1 to 100.
    /// - Throws: ``OTPError/invalidAttemptLimit(_:)`` for a count out of range,
    ///   ``OTPError/invalidLockout(_:)`` for a lock-out under a second or a cap under the lock-out.
    public init(
        maximumFailures: Int = TOTPAttemptLimit.defaultMaximumFailures,
        lockout: Duration = TOTPAttemptLimit.defaultLockout,
        maximumLockout: Duration = TOTPAttemptLimit.defaultMaximumLockout,
        maximumConsecutiveFailures: Int = TOTPAttemptLimit.consecutiveFailureCap
    ) throws {
        guard (1...Self.consecutiveFailureCap).contains(maximumConsecutiveFailures) else {
            throw OTPError.invalidAttemptLimit(maximumConsecutiveFailures)
        }
        try self.init(
            maximumFailures: maximumFailures, lockout: lockout, maximumLockout: maximumLockout,
            consecutiveFailures: maximumConsecutiveFailures, forgetAfter: nil)
    }

    private init(
        maximumFailures: Int, lockout: Duration, maximumLockout: Duration, consecutiveFailures: Int?,
        forgetAfter: Duration?
    ) throws {
        guard maximumFailures >= 1 else { throw OTPError.invalidAttemptLimit(maximumFailures) }
        guard lockout >= .seconds(1) else { throw OTPError.invalidLockout(lockout) }
        guard maximumLockout >= lockout else { throw OTPError.invalidLockout(maximumLockout) }
        if let forgetAfter, forgetAfter < .seconds(1) { throw OTPError.invalidLockout(forgetAfter) }
        self.init(
            checked: maximumFailures, lockout: lockout, maximumLockout: maximumLockout,
            consecutiveFailures: consecutiveFailures,
            forgetAfter: forgetAfter)
    }

    private init(
        checked maximumFailures: Int, lockout: Duration, maximumLockout: Duration, consecutiveFailures: Int?,
        forgetAfter: Duration?
    ) {
        self.maximumFailures = maximumFailures
        self.lockout = lockout
        self.maximumLockout = maximumLockout
        self.maximumConsecutiveFailures = consecutiveFailures
        self.forgetAfter = forgetAfter
    }

    /// Five failures, then 15 minutes, doubling to a day; after 100 in a row
    /// the key is locked until cleared.
    public static let `default` = TOTPAttemptLimit(
        checked: defaultMaximumFailures, lockout: defaultLockout,
        maximumLockout: defaultMaximumLockout, consecutiveFailures: consecutiveFailureCap, forgetAfter: nil)

    /// A rate limit for keys an attacker can choose (a client address):
    /// `attempts`, then no attempt until `window` has passed since the last;
    /// no backoff, no final lock, and a quiet `window` forgets the run. Not
    /// a limit for a second factor's key: a patient guesser waits it out.
    /// - Throws: as ``init(maximumFailures:lockout:maximumLockout:maximumConsecutiveFailures:)``.
    public static func rateLimit(_ attempts: Int, per window: Duration) throws -> TOTPAttemptLimit {
        try TOTPAttemptLimit(
            maximumFailures: attempts, lockout: window, maximumLockout: window, consecutiveFailures: nil,
            forgetAfter: window)
    }

    /// A backoff for keys an attacker can choose (an account from one
    /// address, say): `attempts`, then `lockout`, doubled at each further
    /// run up to `maximumLockout`; no final lock, and a run is forgotten
    /// `maximumLockout` after its last attempt or lock-out. So nobody is
    /// kept out for longer than `maximumLockout` at a time, and the records
    /// expire. Not a limit for a second factor's key: a patient guesser
    /// waits it out.
    /// - Throws: as ``init(maximumFailures:lockout:maximumLockout:maximumConsecutiveFailures:)``.
    public static func backoff(_ attempts: Int, lockout: Duration, maximumLockout: Duration) throws -> TOTPAttemptLimit
    {
        try TOTPAttemptLimit(
            maximumFailures: attempts, lockout: lockout, maximumLockout: maximumLockout, consecutiveFailures: nil,
            forgetAfter: maximumLockout)
    }

    /// A bound on consecutive failures for a key an attacker can choose: after
    /// `failures` in a row the key is refused (``TOTPAttemptAdmission/locked(failures:)``)
    /// until its run is cleared or, at the latest, `forgetAfter` after its
    /// last counted attempt, when the record expires. No lock-out before
    /// that: keys that the owner shares with strangers (an account's, across
    /// addresses) must not become a way to keep the owner out, so the app
    /// offers the owner a path that clears the run (a password reset).
    /// - Throws: ``OTPError/invalidAttemptLimit(_:)`` for `failures` outside
    ///   1 to 100, ``OTPError/invalidLockout(_:)`` for `forgetAfter` under a second.
    public static func consecutiveFailures(_ failures: Int, forgetAfter: Duration) throws -> TOTPAttemptLimit {
        guard (1...consecutiveFailureCap).contains(failures) else { throw OTPError.invalidAttemptLimit(failures) }
        // The cap refuses before any lock-out is looked at: the shortest one keeps the record's end at `forgetAfter`.
        return try TOTPAttemptLimit(
            maximumFailures: failures, lockout: .seconds(1), maximumLockout: .seconds(1), consecutiveFailures: failures,
            forgetAfter: forgetAfter)
    }

    /// What a store does with one attempt on a key whose record is `record`
    /// (nil: none, or forgotten) at `now`: the one home of the rule, which
    /// every store applies atomically (the PostgreSQL store's statement
    /// computes the same, and the shared conformance cases hold both to it).
    /// - Returns: The admission, and the record to keep (unchanged when the
    ///   attempt is refused).
    public func admit(_ record: TOTPAttemptRecord?, at now: Date) -> (
        admission: TOTPAttemptAdmission, record: TOTPAttemptRecord?
    ) {
        let current = record.flatMap { $0.forgetAt > now ? $0 : nil }
        let failures = current?.failures ?? 0
        if let cap = maximumConsecutiveFailures, failures >= cap { return (.locked(failures: failures), current) }
        if let lockedUntil = current?.lockedUntil, lockedUntil > now { return (.lockedUntil(lockedUntil), current) }
        let counted = failures + 1
        var next = TOTPAttemptRecord(failures: counted, lockedUntil: nil, forgetAt: .distantFuture)
        if counted % maximumFailures == 0 {
            next.lockedUntil = now.addingTimeInterval(lockoutSeconds(afterRun: counted / maximumFailures))
        }
        if let forgetAfter {
            next.forgetAt = max(next.lockedUntil ?? now, now).addingTimeInterval(forgetAfter.timeInterval)
        }
        return (.counted(failures: failures), next)
    }

    /// The lock-out after the `run`-th run of ``maximumFailures`` failures:
    /// ``lockout`` doubled `run - 1` times, at most ``maximumLockout``.
    public func lockoutSeconds(afterRun run: Int) -> TimeInterval {
        doubled(lockout.timeInterval, times: run - 1, atMost: maximumLockout.timeInterval)
    }
}

/// One key's run of unsuccessful attempts, as a store keeps it.
public struct TOTPAttemptRecord: Sendable, Hashable, Codable {
    /// Attempts counted since the last success or clear (an attempt is
    /// counted before its code is checked; a success clears the run).
    public var failures: Int
    /// No attempt is counted before this, if set.
    public var lockedUntil: Date?
    /// When the record may be forgotten: never (`distantFuture`) for a
    /// second factor's limit; after a quiet window for a rate limit.
    public var forgetAt: Date

    /// A record of `failures`, locked until `lockedUntil`, forgotten at `forgetAt`.
    public init(failures: Int, lockedUntil: Date?, forgetAt: Date) {
        self.failures = failures
        self.lockedUntil = lockedUntil
        self.forgetAt = forgetAt
    }
}

/// What a store did with one attempt (``TOTPAttemptLimit/admit(_:at:)``).
public enum TOTPAttemptAdmission: Sendable, Hashable {
    /// Counted: the code may be checked. `failures` were counted before it.
    case counted(failures: Int)
    /// Refused: the key is locked until then (nothing was counted).
    case lockedUntil(Date)
    /// Refused: the key had `failures` unsuccessful attempts in a row, the
    /// limit's final bound, and stays locked until its run is cleared.
    case locked(failures: Int)

    /// Whether the attempt was counted.
    public var isCounted: Bool {
        if case .counted = self { return true }
        return false
    }

    /// The error a refusal is: ``OTPError/factorLocked(failures:)`` for the
    /// final lock, ``OTPError/tooManyAttempts(limit:)`` otherwise; nil when counted.
    func refusal(_ limit: TOTPAttemptLimit) -> OTPError? {
        switch self {
        case .counted: return nil
        case .lockedUntil: return .tooManyAttempts(limit: limit.maximumFailures)
        case .locked(let failures): return .factorLocked(failures: failures)
        }
    }
}
