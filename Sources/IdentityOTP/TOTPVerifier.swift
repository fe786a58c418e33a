public import Foundation
import IdentitySupport

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
    public let replayStore: any TOTPReplayStore
    /// Where attempts are counted.
    public let attemptStore: any TOTPAttemptStore
    /// The attempts allowed per key.
    public let attemptLimit: TOTPAttemptLimit
    /// Set when one store settles each verification in one call.
    private let settlingStore: (any TOTPVerificationStore)?

    /// A verifier of `totp`'s codes. The stores are required: a verifier is
    /// often built per request (it holds one user's key), and one that made
    /// its own empty stores would forget every accepted code and every
    /// failure when the request ends. Pass the process's
    /// ``InMemoryTOTPReplayStore/shared`` and ``InMemoryTOTPAttemptStore/shared``
    /// for one instance, or stores every instance shares (PostgreSQL) for
    /// several.
    /// - Parameters:
    ///   - totp: The generator whose codes are accepted.
    ///   - window: Steps accepted on either side of now, 0 to 10.
    ///   - replayStore: Where accepted steps are remembered, so that a code is accepted once.
    ///   - attemptStore: Where attempts are counted, before each check.
    ///   - attemptLimit: The attempts allowed per key (five by default,
    ///     then a lock-out): a limit is always applied.
    /// - Throws: ``OTPError/invalidWindow(_:)`` outside 0…10.
    public init(totp: TOTP, window: Int = 5, replayStore: any TOTPReplayStore, attemptStore: any TOTPAttemptStore,
                attemptLimit: TOTPAttemptLimit = .default) throws {
        try self.init(totp: totp, window: window, replayStore: replayStore, attemptStore: attemptStore, attemptLimit: attemptLimit,
                      settlingStore: nil)
    }

    /// A verifier whose one `store` counts attempts and remembers accepted
    /// steps, and settles each verification in one atomic call (one
    /// database statement instead of three). ``replayStore`` and
    /// ``attemptStore`` are both `store`.
    /// - Parameters:
    ///   - totp: The generator whose codes are accepted.
    ///   - window: Steps accepted on either side of now, 0 to 10.
    ///   - store: Where attempts are counted and accepted steps remembered:
    ///     ``InMemoryTOTPVerificationStore/shared`` for one instance, a
    ///     store every instance shares (PostgreSQL) for several.
    ///   - attemptLimit: The attempts allowed per key (five by default, then a lock-out).
    /// - Throws: ``OTPError/invalidWindow(_:)`` outside 0…10.
    public init(totp: TOTP, window: Int = 5, store: any TOTPVerificationStore, attemptLimit: TOTPAttemptLimit = .default) throws {
        try self.init(totp: totp, window: window, replayStore: store, attemptStore: store, attemptLimit: attemptLimit, settlingStore: store)
    }

    private init(totp: TOTP, window: Int, replayStore: any TOTPReplayStore, attemptStore: any TOTPAttemptStore,
                 attemptLimit: TOTPAttemptLimit, settlingStore: (any TOTPVerificationStore)?) throws {
        guard (0...Self.widestWindow).contains(window) else { throw OTPError.invalidWindow(window) }
        self.totp = totp
        self.window = window
        self.replayStore = replayStore
        self.attemptStore = attemptStore
        self.attemptLimit = attemptLimit
        self.settlingStore = settlingStore
    }

    /// Verifies `code` for the key named `keyID` at `unixTime`: the attempt
    /// is counted first (atomically, in ``attemptStore``), then the code is
    /// checked, then its step recorded (atomically, in ``replayStore``); a
    /// success clears the count. With one ``TOTPVerificationStore`` the
    /// three happen in its one atomic call, and the code's match is used
    /// only when that call counted the attempt.
    ///
    /// `keyID` names the key in the shared stores: include the tenant when
    /// users of several tenants share them (`tenant/uid`), so that equal
    /// uids of two tenants never share a count or a replay record.
    /// - Throws: ``OTPError/tooManyAttempts(limit:)`` while the key is locked
    ///   out (the code is not checked), ``OTPError/factorLocked(failures:)``
    ///   once it has had ``TOTPAttemptLimit/maximumConsecutiveFailures``
    ///   unsuccessful attempts in a row (until the run is cleared), or the
    ///   stores' errors: verification fails closed when a store cannot be
    ///   reached or is full.
    ///
    /// Runs in a span `verifyTOTP` and is counted in
    /// `totp_verifications_total` by `outcome`: `accepted`, `invalid`,
    /// `replayed`, `locked_out` (refused during a lock-out),
    /// `factor_locked` (refused after the final bound), `rejected_input` (a
    /// time before 1970) or `store_failed` (the `Telemetry` trait). `keyID` appears in neither.
    public func verify(_ code: String, keyID: String, at unixTime: Int64) async throws -> Result {
        try await Telemetry.withSpan("verifyTOTP") { span async throws -> Result in
            let outcome: String
            do {
                let result = try await verifyUncounted(code, keyID: keyID, at: unixTime)
                switch result {
                case .accepted: outcome = "accepted"
                case .replayed: outcome = "replayed"
                case .invalid: outcome = "invalid"
                }
                Self.count(outcome)
                span.set("totp.outcome", outcome)
                return result
            } catch let error as OTPError {
                switch error.code {
                case .factorLocked: outcome = "factor_locked"
                case .tooManyAttempts: outcome = "locked_out"
                default: outcome = "rejected_input"
                }
                Self.count(outcome)
                span.fail(outcome)
                throw error
            } catch {
                Self.count("store_failed")
                span.fail("store_failed")
                throw error
            }
        }
    }

    /// `totp_verifications_total{outcome}`.
    private static func count(_ outcome: String) {
        Telemetry.counter("totp_verifications_total", [("outcome", outcome)]).increment()
    }

    private func verifyUncounted(_ code: String, keyID: String, at unixTime: Int64) async throws -> Result {
        let now = Date(timeIntervalSince1970: TimeInterval(unixTime))
        if let settlingStore {
            let step = try totp.matchingStep(for: code, at: unixTime, window: window)
            let settlement = try await settlingStore.settleAttempt(for: keyID, matchedStep: step, limit: attemptLimit, at: now,
                                                                   retainUntil: retentionEnd(of: step ?? 0))
            switch (settlement, step) {
            case (.refused(let admission), _): throw admission.refusal(attemptLimit) ?? OTPError.tooManyAttempts(limit: attemptLimit.maximumFailures)
            case (.accepted, let step?): return .accepted(step: step)
            case (_, let step?): return .replayed(step: step)
            case (_, nil): return .invalid
            }
        }
        let admission = try await attemptStore.recordAttempt(for: keyID, limit: attemptLimit, at: now)
        if let refusal = admission.refusal(attemptLimit) { throw refusal }
        guard let step = try totp.matchingStep(for: code, at: unixTime, window: window) else { return .invalid }
        guard try await replayStore.recordAcceptedStep(step, for: keyID, at: now, retainUntil: retentionEnd(of: step)) else {
            return .replayed(step: step)
        }
        try await attemptStore.clearAttempts(for: keyID)
        return .accepted(step: step)
    }

    /// ``verify(_:keyID:at:)`` at `date` (now by default).
    public func verify(_ code: String, keyID: String, at date: Date = Date()) async throws -> Result {
        try await verify(code, keyID: keyID, at: Int64(date.timeIntervalSince1970.rounded(.down)))
    }

    /// When a record of `step` stops mattering: the end of the last time
    /// step whose window still holds it, for the widest window any verifier
    /// may use (Identity Platform's maximum, 10 intervals), so that widening
    /// the window later cannot reopen a replay.
    private func retentionEnd(of step: UInt64) -> Date {
        Date(timeIntervalSince1970: Double(totp.t0) + (Double(step) + Double(Self.widestWindow) + 1) * Double(totp.period))
    }

    /// The widest window a verifier accepts.
    public static let widestWindow = 10

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
