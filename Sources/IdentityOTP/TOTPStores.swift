public import Foundation
import IdentitySupport

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
/// matched code's step is recorded and the run cleared. On a database that
/// is one statement where separate stores need three (count, record,
/// clear), so a fleet verifies about three times as many codes per second
/// (see `Benchmarks/README.md`).
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
    func settleAttempt(for keyID: String, matchedStep: UInt64?, limit: TOTPAttemptLimit, at now: Date,
                       retainUntil: Date) async throws -> TOTPAttemptSettlement

    /// ``settleAttempt(for:matchedStep:limit:at:retainUntil:)``, also saying
    /// how many failures the key's run held before the attempt, so that the
    /// verifier can tell when a lock-out begins or ends
    /// (``TOTPVerifier/Report``). A store that cannot say leaves
    /// ``TOTPAttemptSettlementReport/failuresBefore`` nil (the default
    /// implementation does).
    func settleAttemptReportingRun(for keyID: String, matchedStep: UInt64?, limit: TOTPAttemptLimit, at now: Date,
                                   retainUntil: Date) async throws -> TOTPAttemptSettlementReport
}

extension TOTPVerificationStore {
    /// ``settleAttempt(for:matchedStep:limit:at:retainUntil:)`` with the run unknown.
    public func settleAttemptReportingRun(for keyID: String, matchedStep: UInt64?, limit: TOTPAttemptLimit, at now: Date,
                                          retainUntil: Date) async throws -> TOTPAttemptSettlementReport {
        TOTPAttemptSettlementReport(settlement: try await settleAttempt(for: keyID, matchedStep: matchedStep, limit: limit, at: now,
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

/// The settlement rule of the stores that hold a key's last accepted step
/// and attempt record together (in memory, or as one entry of an
/// `ExpiringStateStore`): its one home outside SQL.
package enum TOTPSettlementOutcome: Sendable {
    /// The key is locked: nothing changes.
    case refused(TOTPAttemptAdmission)
    /// Record `step` and clear the run, which held `failuresBefore`.
    case accepted(step: UInt64, failuresBefore: Int)
    /// Keep `next` as the key's attempt record.
    case counted(next: TOTPAttemptRecord, failuresBefore: Int)

    /// What to do with one attempt: a matched step later than the last
    /// accepted one is accepted whatever the count would become (a success
    /// is never refused for want of room to count it) unless the key is
    /// locked; anything else is counted unless the key is locked.
    package init(matchedStep: UInt64?, lastAcceptedStep: UInt64?, attempts: TOTPAttemptRecord?, limit: TOTPAttemptLimit, at now: Date) {
        if let matchedStep, !TOTPVerifier.isReplay(matchedStep, lastAcceptedStep: lastAcceptedStep) {
            let admission = limit.admit(attempts, at: now).admission
            guard case .counted(let failures) = admission else { self = .refused(admission); return }
            self = .accepted(step: matchedStep, failuresBefore: failures)
            return
        }
        let (admission, next) = limit.admit(attempts, at: now)
        guard case .counted(let failures) = admission, let next else { self = .refused(admission); return }
        self = .counted(next: next, failuresBefore: failures)
    }

    /// The settlement as the store reports it.
    package var report: TOTPAttemptSettlementReport {
        switch self {
        case .refused(let admission): TOTPAttemptSettlementReport(settlement: .refused(admission), failuresBefore: nil)
        case .accepted(_, let failures): TOTPAttemptSettlementReport(settlement: .accepted, failuresBefore: failures)
        case .counted(_, let failures): TOTPAttemptSettlementReport(settlement: .counted, failuresBefore: failures)
        }
    }
}

/// Each key's last accepted step, in memory: the one home of the replay
/// rule for the in-memory stores.
package struct AcceptedSteps: Sendable {
    private var entries: ExpiringEntries<String, UInt64>

    package init(capacity: Int) { entries = ExpiringEntries(capacity: max(1, capacity), whenFull: .refuse) }

    package var count: Int { entries.count }

    package func lastAcceptedStep(for keyID: String, at now: Date) -> UInt64? { entries.value(for: keyID, at: now) }

    /// Whether `step` would be recorded: it is after the last one recorded.
    package func isLater(_ step: UInt64, for keyID: String, at now: Date) -> Bool {
        !TOTPVerifier.isReplay(step, lastAcceptedStep: entries.value(for: keyID, at: now))
    }

    /// Records `step` unless it is not after the last one recorded.
    /// - Throws: `InMemoryStoreFullError` when full of live records.
    package mutating func record(_ step: UInt64, for keyID: String, at now: Date, retainUntil: Date) throws(InMemoryStoreFullError) -> Bool {
        guard isLater(step, for: keyID, at: now) else { return false }
        guard entries.set(step, for: keyID, expiresAt: retainUntil, now: now) else { throw InMemoryStoreFullError(capacity: entries.capacity) }
        return true
    }
}

/// Each key's attempt record, in memory: the store half of the counting
/// rule (``TOTPAttemptLimit/admit(_:at:)`` is the rule).
package struct AttemptCounts: Sendable {
    private var entries: ExpiringEntries<String, TOTPAttemptRecord>

    package init(capacity: Int) { entries = ExpiringEntries(capacity: max(1, capacity), whenFull: .refuse) }

    package var count: Int { entries.count }

    package func record(for keyID: String, at now: Date) -> TOTPAttemptRecord? { entries.value(for: keyID, at: now) }

    /// Counts an attempt unless `limit` locks `keyID`.
    /// - Throws: `InMemoryStoreFullError` when full of live records.
    package mutating func admit(for keyID: String, limit: TOTPAttemptLimit, at now: Date) throws(InMemoryStoreFullError) -> TOTPAttemptAdmission {
        let (admission, next) = limit.admit(record(for: keyID, at: now), at: now)
        guard admission.isCounted, let next else { return admission }
        try keep(next, for: keyID, at: now)
        return admission
    }

    /// Keeps `record` as `keyID`'s, until it may be forgotten.
    /// - Throws: `InMemoryStoreFullError` when full of live records.
    package mutating func keep(_ record: TOTPAttemptRecord, for keyID: String, at now: Date) throws(InMemoryStoreFullError) {
        guard entries.set(record, for: keyID, expiresAt: record.forgetAt, now: now) else { throw InMemoryStoreFullError(capacity: entries.capacity) }
    }

    package mutating func clear(for keyID: String) { entries.remove(keyID) }
}

/// An in-memory ``TOTPReplayStore``: for one process (tests, a single
/// instance). An actor, so safe under concurrency. Records are forgotten
/// once they can no longer matter, and at most `capacity` are kept.
public actor InMemoryTOTPReplayStore: TOTPReplayStore {
    /// One store for the whole process: a verifier built per request (it
    /// holds one user's key) still shares what earlier requests recorded.
    public static let shared = InMemoryTOTPReplayStore()

    private var steps: AcceptedSteps

    /// An empty store.
    /// - Parameter capacity: The most live records kept; a full store
    ///   refuses new keys (`InMemoryStoreFullError`) until records expire.
    public init(capacity: Int = 100_000) {
        steps = AcceptedSteps(capacity: capacity)
    }

    /// Records `step` for `keyID` unless it is not after the last one recorded.
    /// - Throws: `InMemoryStoreFullError` when full of live records.
    public func recordAcceptedStep(_ step: UInt64, for keyID: String, at now: Date, retainUntil: Date) throws -> Bool {
        try steps.record(step, for: keyID, at: now, retainUntil: retainUntil)
    }

    /// The last accepted step of `keyID` still remembered at `now`, if any.
    public func lastAcceptedStep(for keyID: String, at now: Date = Date()) -> UInt64? { steps.lastAcceptedStep(for: keyID, at: now) }

    /// How many keys are remembered (expired ones may remain until the next write).
    public var count: Int { steps.count }
}

/// An in-memory ``TOTPAttemptStore``: for one process (tests, a single
/// instance). An actor, so each call's check and count are one step.
public actor InMemoryTOTPAttemptStore: TOTPAttemptStore {
    /// One store for the whole process (see ``InMemoryTOTPReplayStore/shared``).
    public static let shared = InMemoryTOTPAttemptStore()

    private var counts: AttemptCounts

    /// An empty store.
    /// - Parameter capacity: The most live records kept; a full store
    ///   refuses new keys (`InMemoryStoreFullError`) until records expire.
    public init(capacity: Int = 100_000) {
        counts = AttemptCounts(capacity: capacity)
    }

    /// Counts an attempt unless `limit` locks `keyID`.
    /// - Throws: `InMemoryStoreFullError` when full of live records.
    public func recordAttempt(for keyID: String, limit: TOTPAttemptLimit, at now: Date) throws -> TOTPAttemptAdmission {
        try counts.admit(for: keyID, limit: limit, at: now)
    }

    /// Forgets `keyID`'s run.
    public func clearAttempts(for keyID: String) {
        counts.clear(for: keyID)
    }

    /// `keyID`'s record at `now`, if any.
    public func attempts(for keyID: String, at now: Date = Date()) -> TOTPAttemptRecord? { counts.record(for: keyID, at: now) }

    /// How many keys have a count (lapsed ones may remain until the next write).
    public var count: Int { counts.count }
}

/// An in-memory ``TOTPVerificationStore``: for one process (tests, a single
/// instance). An actor, so each settlement is one step.
public actor InMemoryTOTPVerificationStore: TOTPVerificationStore {
    /// One store for the whole process (see ``InMemoryTOTPReplayStore/shared``).
    public static let shared = InMemoryTOTPVerificationStore()

    private var counts: AttemptCounts
    private var steps: AcceptedSteps

    /// An empty store.
    /// - Parameter capacity: The most live records kept, for attempts and
    ///   for accepted steps each; a full store refuses new keys
    ///   (`InMemoryStoreFullError`) until records expire.
    public init(capacity: Int = 100_000) {
        counts = AttemptCounts(capacity: capacity)
        steps = AcceptedSteps(capacity: capacity)
    }

    /// Counts the attempt unless `limit` locks the key; records a later
    /// matched step and clears the run.
    /// - Throws: `InMemoryStoreFullError` when full of live records.
    public func settleAttempt(for keyID: String, matchedStep: UInt64?, limit: TOTPAttemptLimit, at now: Date,
                              retainUntil: Date) throws -> TOTPAttemptSettlement {
        try settleAttemptReportingRun(for: keyID, matchedStep: matchedStep, limit: limit, at: now, retainUntil: retainUntil).settlement
    }

    /// ``settleAttempt(for:matchedStep:limit:at:retainUntil:)`` with the
    /// failures the run held before it.
    /// - Throws: `InMemoryStoreFullError` when full of live records.
    public func settleAttemptReportingRun(for keyID: String, matchedStep: UInt64?, limit: TOTPAttemptLimit, at now: Date,
                                          retainUntil: Date) throws -> TOTPAttemptSettlementReport {
        let outcome = TOTPSettlementOutcome(matchedStep: matchedStep, lastAcceptedStep: steps.lastAcceptedStep(for: keyID, at: now),
                                            attempts: counts.record(for: keyID, at: now), limit: limit, at: now)
        switch outcome {
        case .refused: break
        case .accepted(let step, _):
            _ = try steps.record(step, for: keyID, at: now, retainUntil: retainUntil)
            counts.clear(for: keyID)
        case .counted(let next, _):
            try counts.keep(next, for: keyID, at: now)
        }
        return outcome.report
    }

    /// Records `step` for `keyID` unless it is not after the last one recorded.
    /// - Throws: `InMemoryStoreFullError` when full of live records.
    public func recordAcceptedStep(_ step: UInt64, for keyID: String, at now: Date, retainUntil: Date) throws -> Bool {
        try steps.record(step, for: keyID, at: now, retainUntil: retainUntil)
    }

    /// Counts an attempt unless `limit` locks `keyID`.
    /// - Throws: `InMemoryStoreFullError` when full of live records.
    public func recordAttempt(for keyID: String, limit: TOTPAttemptLimit, at now: Date) throws -> TOTPAttemptAdmission {
        try counts.admit(for: keyID, limit: limit, at: now)
    }

    /// Forgets `keyID`'s run (its last accepted step stays).
    public func clearAttempts(for keyID: String) {
        counts.clear(for: keyID)
    }

    /// `keyID`'s record at `now`, if any.
    public func attempts(for keyID: String, at now: Date = Date()) -> TOTPAttemptRecord? { counts.record(for: keyID, at: now) }

    /// The last accepted step of `keyID` still remembered at `now`, if any.
    public func lastAcceptedStep(for keyID: String, at now: Date = Date()) -> UInt64? { steps.lastAcceptedStep(for: keyID, at: now) }
}
