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
    /// Set by ``detectingClockDrift(_:)``.
    private var driftDetection: TOTPClockDriftDetection?

    /// A verifier of `totp`'s codes. The stores are required: a verifier is
    /// often built per request (it holds one user's key), and one that made
    /// its own empty stores would forget every accepted code and every
    /// failure when the request ends. Pass the process's
    /// ``ExpiringStateTOTPVerificationStore/shared`` as both for one
    /// instance, or stores every instance shares (PostgreSQL's) for several.
    /// - Parameters:
    ///   - totp: The generator whose codes are accepted.
    ///   - window: Steps accepted on either side of now, 0 to 10.
    ///   - replayStore: Where accepted steps are remembered, so that a code is accepted once.
    ///   - attemptStore: Where attempts are counted, before each check.
    ///   - attemptLimit: The attempts allowed per key (five by default,
    ///     then a lock-out): a limit is always applied.
    /// - Throws: ``OTPError/invalidWindow(_:)`` outside 0…10.
    public init(
        totp: TOTP, window: Int = 5, replayStore: any TOTPReplayStore, attemptStore: any TOTPAttemptStore,
        attemptLimit: TOTPAttemptLimit = .default
    ) throws {
        try self.init(
            totp: totp, window: window, replayStore: replayStore, attemptStore: attemptStore,
            attemptLimit: attemptLimit,
            settlingStore: nil)
    }

    /// A verifier whose one `store` counts attempts and remembers accepted
    /// steps, and settles each verification in one atomic call (one
    /// update of one entry instead of three calls). ``replayStore`` and
    /// ``attemptStore`` are both `store`.
    /// - Parameters:
    ///   - totp: The generator whose codes are accepted.
    ///   - window: Steps accepted on either side of now, 0 to 10.
    ///   - store: Where attempts are counted and accepted steps remembered:
    ///     ``ExpiringStateTOTPVerificationStore/shared`` for one instance,
    ///     a store every instance shares (`IdentityStorage`'s
    ///     `verificationStore` on PostgreSQL) for several.
    ///   - attemptLimit: The attempts allowed per key (five by default, then a lock-out).
    /// - Throws: ``OTPError/invalidWindow(_:)`` outside 0…10.
    public init(
        totp: TOTP, window: Int = 5, store: any TOTPVerificationStore, attemptLimit: TOTPAttemptLimit = .default
    ) throws {
        try self.init(
            totp: totp, window: window, replayStore: store, attemptStore: store, attemptLimit: attemptLimit,
            settlingStore: store)
    }

    private init(
        totp: TOTP, window: Int, replayStore: any TOTPReplayStore, attemptStore: any TOTPAttemptStore,
        attemptLimit: TOTPAttemptLimit, settlingStore: (any TOTPVerificationStore)?
    ) throws {
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
    /// users of several tenants share them (`tenant/uid`, ``UserKey/storeKey``),
    /// so that equal uids of two tenants never share a count or a replay
    /// record. ``verify(_:for:at:)`` does so, and also records
    /// ``SecurityEvent``s and reports a wrong clock.
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
        try await report(code, keyID: keyID, at: unixTime).result
    }

    /// What one verification found, beyond accepted or not: where the code
    /// matched, a wrong clock, a lock-out begun or ended.
    public struct Report: Sendable, Hashable {
        /// The verification's outcome.
        public let result: Result
        /// The matched step minus the server's present step (positive: the
        /// device is ahead); nil when no step matched.
        public let stepOffset: Int?
        /// Set when the key's recent accepted codes agree that the device's
        /// clock is off (``detectingClockDrift(_:)``).
        public let clockDrift: TOTPClockDrift?
        /// Set when this attempt's failure locked the key: until when (nil:
        /// the final lock, until cleared).
        public let lockoutBegan: LockoutBegan?
        /// True when this success ended a run that had been locked out.
        public let lockoutEnded: Bool
    }

    /// A lock-out that an attempt began.
    public struct LockoutBegan: Sendable, Hashable {
        /// When attempts are counted again; nil for the final lock.
        public let lockedUntil: Date?
        /// The failures in a row, this one included.
        public let failures: Int
    }

    /// `verify(_:keyID:at:)` for `user` (their key in the stores is
    /// ``UserKey/storeKey``), reporting more, and recording what happened
    /// in ``SecurityEventSystem``: a code refused or replayed, a lock-out
    /// begun or ended, a drifting clock (``detectingClockDrift(_:)``).
    /// - Parameters:
    ///   - code: What the user typed.
    ///   - user: Whose factor.
    ///   - date: Now (for tests).
    /// - Throws: as `verify(_:keyID:at:)`.
    public func verify(_ code: String, for user: UserKey, at date: Date = Date()) async throws -> Report {
        let report = try await report(code, keyID: user.storeKey, at: Int64(date.timeIntervalSince1970.rounded(.down)))
        func event(_ kind: SecurityEvent.Kind) -> SecurityEvent {
            SecurityEvent(kind, user: user, date: date, factorKind: SecurityEvent.totpFactorKind)
        }
        switch report.result {
        case .invalid: await SecurityEventSystem.record(event(.codeRefused))
        case .replayed: await SecurityEventSystem.record(event(.replayRefused))
        case .accepted: break
        }
        if let began = report.lockoutBegan {
            var lockout = event(.lockoutBegan)
            lockout.lockedUntil = began.lockedUntil
            lockout.consecutiveFailures = began.failures
            await SecurityEventSystem.record(lockout)
        }
        if report.lockoutEnded { await SecurityEventSystem.record(event(.lockoutEnded)) }
        if let drift = report.clockDrift {
            var noticed = event(.clockDriftNoticed)
            noticed.clockOffsetSeconds = drift.seconds
            await SecurityEventSystem.record(noticed)
        }
        return report
    }

    /// This verifier, also watching each key's offsets for a wrong device
    /// clock as `detection` says (and, if it says so, centring the window
    /// on a recorded drift).
    public func detectingClockDrift(_ detection: TOTPClockDriftDetection) -> TOTPVerifier {
        var copy = self
        copy.driftDetection = detection
        return copy
    }

    private func report(_ code: String, keyID: String, at unixTime: Int64) async throws -> Report {
        try await Telemetry.withSpan("verifyTOTP") { span async throws -> Report in
            let outcome: String
            do {
                let report = try await reportUncounted(code, keyID: keyID, at: unixTime)
                switch report.result {
                case .accepted: outcome = "accepted"
                case .replayed: outcome = "replayed"
                case .invalid: outcome = "invalid"
                }
                Self.count(outcome)
                span.set("totp.outcome", outcome)
                return report
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

    private func reportUncounted(_ code: String, keyID: String, at unixTime: Int64) async throws -> Report {
        let now = Date(timeIntervalSince1970: TimeInterval(unixTime))
        let present = try totp.step(at: unixTime)
        let centre = await windowCentre(for: keyID, at: now)
        let step = try totp.matchingStep(for: code, at: unixTime &+ Int64(centre) &* totp.period, window: window)
        let (result, failuresBefore) = try await settle(step, keyID: keyID, at: now)
        var lockoutBegan: LockoutBegan?
        var lockoutEnded = false
        if let failuresBefore {
            if case .accepted = result {
                lockoutEnded = failuresBefore >= attemptLimit.maximumFailures
            } else {
                let failures = failuresBefore + 1
                if let cap = attemptLimit.maximumConsecutiveFailures, failures >= cap {
                    lockoutBegan = LockoutBegan(lockedUntil: nil, failures: failures)
                } else if failures % attemptLimit.maximumFailures == 0 {
                    let seconds = attemptLimit.lockoutSeconds(afterRun: failures / attemptLimit.maximumFailures)
                    lockoutBegan = LockoutBegan(lockedUntil: now.addingTimeInterval(seconds), failures: failures)
                }
            }
        }
        let offset = step.map { Int(clamping: Int64(bitPattern: $0 &- present)) }
        var drift: TOTPClockDrift?
        if case .accepted = result, let offset { drift = await recordOffset(offset, keyID: keyID, at: now) }
        return Report(
            result: result, stepOffset: offset, clockDrift: drift, lockoutBegan: lockoutBegan,
            lockoutEnded: lockoutEnded)
    }

    /// Counts the attempt and records a matched `step`, in one call when one
    /// store settles both; also the failures the run held before, when the
    /// store says.
    private func settle(_ step: UInt64?, keyID: String, at now: Date) async throws -> (Result, failuresBefore: Int?) {
        if let settlingStore {
            let report = try await settlingStore.settleAttemptReportingRun(
                for: keyID, matchedStep: step, limit: attemptLimit, at: now,
                retainUntil: retentionEnd(of: step ?? 0))
            switch (report.settlement, step) {
            case (.refused(let admission), _):
                throw admission.refusal(attemptLimit) ?? OTPError.tooManyAttempts(limit: attemptLimit.maximumFailures)
            case (.accepted, let step?): return (.accepted(step: step), report.failuresBefore)
            case (_, let step?): return (.replayed(step: step), report.failuresBefore)
            case (_, nil): return (.invalid, report.failuresBefore)
            }
        }
        let admission = try await attemptStore.recordAttempt(for: keyID, limit: attemptLimit, at: now)
        if let refusal = admission.refusal(attemptLimit) { throw refusal }
        let failuresBefore: Int? = if case .counted(let failures) = admission { failures } else { nil }
        guard let step else { return (.invalid, failuresBefore) }
        guard try await replayStore.recordAcceptedStep(step, for: keyID, at: now, retainUntil: retentionEnd(of: step))
        else {
            return (.replayed(step: step), failuresBefore)
        }
        try await attemptStore.clearAttempts(for: keyID)
        return (.accepted(step: step), failuresBefore)
    }

    /// Where the window is centred: the present, or with re-centring the
    /// key's recorded drift (bounded). A store that cannot answer leaves
    /// the window where it always is.
    private func windowCentre(for keyID: String, at now: Date) async -> Int {
        guard let driftDetection, driftDetection.recentresWindow,
            let offsets = try? await driftDetection.store.recentOffsets(for: keyID, at: now)
        else { return 0 }
        return TOTPClockDriftDetection.centre(for: driftDetection.drift(in: offsets), window: window)
    }

    /// Records an accepted code's offset and returns the drift the recent
    /// ones show. The code is accepted whatever happens here: a store that
    /// cannot answer only delays a notice (counted in
    /// `totp_clock_offset_failures_total`).
    private func recordOffset(_ offset: Int, keyID: String, at now: Date) async -> TOTPClockDrift? {
        guard let driftDetection else { return nil }
        do {
            let offsets = try await driftDetection.store.recordOffset(
                offset, for: keyID, keep: driftDetection.consistentCodes, at: now,
                retainUntil: now.addingTimeInterval(driftDetection.retention.timeInterval))
            return driftDetection.drift(in: offsets).map { TOTPClockDrift(steps: $0, period: totp.period) }
        } catch {
            Telemetry.counter("totp_clock_offset_failures_total").increment()
            return nil
        }
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
        Date(
            timeIntervalSince1970: Double(totp.t0) + (Double(step) + Double(Self.widestWindow) + 1)
                * Double(totp.period))
    }

    /// The widest window a verifier accepts.
    public static let widestWindow = 10

    /// The same verification for a caller that keeps each key's last
    /// accepted step itself, such as a server's account store: it must
    /// record the step of an `.accepted` result atomically with this check
    /// (inside one actor method or database transaction), or two concurrent
    /// requests could both use one code. The emulator verifies this way.
    /// - Throws: ``OTPError/invalidWindow(_:)`` outside 0…10, or a time before 1970.
    public static func check(_ code: String, totp: TOTP, window: Int, at unixTime: Int64, lastAcceptedStep: UInt64?)
        throws -> Result
    {
        guard let step = try totp.matchingStep(for: code, at: unixTime, window: window) else { return .invalid }
        return isReplay(step, lastAcceptedStep: lastAcceptedStep) ? .replayed(step: step) : .accepted(step: step)
    }

    /// ``check(_:totp:window:at:lastAcceptedStep:)`` with an attempt limit,
    /// for a caller that keeps the failure count with its own state (a
    /// pending sign-in, an enrollment session): a wrong or replayed code adds
    /// one to `failures`; once `failures` reaches the limit no code is
    /// checked.
    /// - Throws: ``OTPError/tooManyAttempts(limit:)`` at the limit.
    public static func check(
        _ code: String, totp: TOTP, window: Int, at unixTime: Int64, lastAcceptedStep: UInt64?,
        failures: inout Int, limit: TOTPAttemptLimit
    ) throws -> Result {
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
