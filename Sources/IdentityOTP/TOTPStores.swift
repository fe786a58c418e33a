public import Foundation

/// Remembers, per key, the last time step whose code was accepted, so that
/// a code is accepted once (RFC 6238 §5.2).
///
/// State a second server instance needs: an app that runs several
/// instances gives every one the same shared store (the PostgreSQL one of
/// the `IdentityStoresPostgres` product), or a code accepted by one
/// instance is accepted again by the next.
///
/// Implementations must make ``recordAcceptedStep(_:for:at:retainUntil:)``
/// atomic, so that two concurrent verifications of one code cannot both
/// succeed.
public protocol TOTPReplayStore: Sendable {
    /// Records `step` for `keyID` if it is later than the last recorded step.
    /// - Parameters:
    ///   - step: The accepted step.
    ///   - keyID: Whose key (a user id, an enrollment id).
    ///   - now: The time of the verification.
    ///   - retainUntil: After this the record can be forgotten: no code of
    ///     `step` or an earlier one falls in any window any more.
    /// - Returns: false when `step` is not later (the code is a replay).
    func recordAcceptedStep(_ step: UInt64, for keyID: String, at now: Date, retainUntil: Date) async throws -> Bool
}

/// Counts each key's unsuccessful attempts, for ``TOTPVerifier``'s
/// ``TOTPAttemptLimit``: runs of failures, lock-outs that lengthen, and a
/// final lock after too many in a row.
///
/// The count is taken **before** the code is checked, in one atomic call,
/// so that concurrent wrong codes can never be checked more often than the
/// limit allows (counting after the check let 100 parallel guesses all
/// through). State a second instance needs: share one store between
/// instances, or an attacker gets the limit once per instance.
public protocol TOTPAttemptStore: Sendable {
    /// Counts one attempt for `keyID` unless `limit` locks it at `now`, as
    /// ``TOTPAttemptLimit/admit(_:at:)`` says, atomically.
    /// - Parameters:
    ///   - keyID: Whose key.
    ///   - limit: The rule.
    ///   - now: The time of the attempt.
    /// - Returns: ``TOTPAttemptAdmission/counted(failures:)`` when the
    ///   attempt was counted and its code may be checked; a refusal (nothing
    ///   counted) when the key is locked.
    func recordAttempt(for keyID: String, limit: TOTPAttemptLimit, at now: Date) async throws -> TOTPAttemptAdmission

    /// Forgets `keyID`'s run of failures, its lock-outs included: after a
    /// success, or when the user proved themselves another way (a support
    /// desk, a recovery code). The only way out of the final lock.
    func clearAttempts(for keyID: String) async throws
}

/// What ``TOTPVerificationStore/settleAttempt(for:matchedStep:limit:at:retainUntil:)``
/// did with one attempt.
public enum TOTPAttemptSettlement: Sendable, Hashable {
    /// The key was locked: nothing was counted or recorded, and the code's
    /// match must not be used.
    case refused(TOTPAttemptAdmission)
    /// The attempt was counted: the code matched no step, or its step was
    /// not later than the last accepted one (a replay).
    case counted
    /// The matched step was recorded and the key's run cleared.
    case accepted
}

/// A store that keeps each key's attempt record and last accepted step
/// together and settles a whole verification in one atomic call: the
/// attempt is counted unless the key is locked and, in the same step, a
/// matched code's step is recorded and the run cleared: one atomic update
/// of one entry where separate stores need three calls (count, record,
/// clear). ``ExpiringStateTOTPVerificationStore`` is the package's, on any
/// `ExpiringStateStore` (on PostgreSQL, a new key's settlement is one
/// statement; see `Benchmarks/README.md`).
///
/// The verifier matches the code before this call, but uses the match only
/// when the call counted the attempt, so concurrent wrong codes are still
/// never judged more often than the limit allows. Its
/// ``TOTPReplayStore`` and ``TOTPAttemptStore`` calls act on the same
/// records, for callers that need one half (a recovery that clears a
/// run).
public protocol TOTPVerificationStore: TOTPReplayStore, TOTPAttemptStore {
    /// Counts one attempt for `keyID` unless `limit` locks it and, when
    /// `matchedStep` is later than the last accepted step, records it and
    /// clears the run — atomically.
    /// - Parameters:
    ///   - keyID: Whose key.
    ///   - matchedStep: The step the code matched, nil when it matched none.
    ///   - limit: The rule (``TOTPAttemptLimit/admit(_:at:)``).
    ///   - now: The time of the attempt.
    ///   - retainUntil: When an accepted step's record stops mattering.
    /// - Returns: ``TOTPAttemptSettlement/refused(_:)`` when locked,
    ///   ``TOTPAttemptSettlement/accepted`` when the step was recorded,
    ///   ``TOTPAttemptSettlement/counted`` otherwise.
    func settleAttempt(
        for keyID: String, matchedStep: UInt64?, limit: TOTPAttemptLimit, at now: Date,
        retainUntil: Date
    ) async throws -> TOTPAttemptSettlement

    /// ``settleAttempt(for:matchedStep:limit:at:retainUntil:)``, also saying
    /// how many failures the key's run held before the attempt, so that the
    /// verifier can tell when a lock-out begins or ends
    /// (``TOTPVerifier/Report``). A store that cannot say leaves
    /// ``TOTPAttemptSettlementReport/failuresBefore`` nil (the default
    /// implementation does).
    func settleAttemptReportingRun(
        for keyID: String, matchedStep: UInt64?, limit: TOTPAttemptLimit, at now: Date,
        retainUntil: Date
    ) async throws -> TOTPAttemptSettlementReport
}

extension TOTPVerificationStore {
    /// ``settleAttempt(for:matchedStep:limit:at:retainUntil:)`` with the run unknown.
    public func settleAttemptReportingRun(
        for keyID: String, matchedStep: UInt64?, limit: TOTPAttemptLimit, at now: Date,
        retainUntil: Date
    ) async throws -> TOTPAttemptSettlementReport {
        TOTPAttemptSettlementReport(
            settlement: try await settleAttempt(
                for: keyID, matchedStep: matchedStep, limit: limit, at: now,
                retainUntil: retainUntil),
            failuresBefore: nil)
    }
}

/// A settlement and the run it was made on.
public struct TOTPAttemptSettlementReport: Sendable, Hashable {
    /// What the store did.
    public let settlement: TOTPAttemptSettlement
    /// The failures in a row the key had before this attempt; nil when the
    /// store does not say, or the attempt was refused.
    public let failuresBefore: Int?

    /// A report of `settlement` on a run of `failuresBefore`.
    public init(settlement: TOTPAttemptSettlement, failuresBefore: Int?) {
        self.settlement = settlement
        self.failuresBefore = failuresBefore
    }
}
