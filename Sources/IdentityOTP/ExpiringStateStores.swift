public import Foundation
public import IdentityKeyValueStore

/// A ``TOTPVerificationStore`` built on any `ExpiringStateStore`: each
/// key's last accepted step and attempt record are one entry, and every
/// settlement is one atomic read-modify-write of it
/// (`ExpiringStateStore.updateValue(forKey:at:maxAttempts:_:)`, a swap that
/// fails when another instance wrote first and is then retried on the new
/// value). The rules are the verifier's own (``TOTPAttemptLimit/admit(_:at:)``,
/// ``TOTPVerifier/isReplay(_:lastAcceptedStep:)``), so a store that can
/// keep bytes and swap them atomically (PostgreSQL, Redis, one process's
/// memory) counts, locks and refuses replays exactly as the others do.
///
/// Lapses within a record (a lock-out's end, a retained step) are judged
/// by the store's clock (`ExpiringStateStore.storeTime(callerTime:)`): on
/// PostgreSQL the database's, so that an instance whose clock runs ahead
/// cannot end a lock-out early.
///
/// In memory (``init(capacity:)``, ``ExpiringStateTOTPVerificationStore``), the
/// store refuses new keys rather than forget live ones when full: an
/// evicted record would end a lock-out.
public struct ExpiringStateTOTPVerificationStore: TOTPVerificationStore {
    /// Where the records are kept.
    public let state: any ExpiringStateStore
    /// What each record's key starts with, so one store can hold other state.
    public let keyPrefix: String

    /// Records kept in `state`.
    /// - Parameters:
    ///   - state: Where the records are kept: share it between instances.
    ///   - keyPrefix: What each record's key starts with.
    public init(state: any ExpiringStateStore, keyPrefix: String = "totp-key/") {
        self.state = state
        self.keyPrefix = keyPrefix
    }

    /// Records in this process's memory, in a store that refuses new keys
    /// when full (`InMemoryStoreFullError`) instead of forgetting one.
    /// - Parameter capacity: The most keys with a live record.
    public init(capacity: Int = 100_000) {
        self.init(state: InMemoryExpiringStateStore(capacity: capacity, whenFull: .refuse))
    }

    /// One in-memory store for the whole process: a verifier built per
    /// request (it holds one user's key) still shares what earlier
    /// requests recorded.
    public static let shared = ExpiringStateTOTPVerificationStore()

    /// Counts the attempt unless `limit` locks the key; records a later
    /// matched step and clears the run; atomically.
    public func settleAttempt(
        for keyID: String, matchedStep: UInt64?, limit: TOTPAttemptLimit, at now: Date,
        retainUntil: Date
    ) async throws -> TOTPAttemptSettlement {
        try await settleAttemptReportingRun(
            for: keyID, matchedStep: matchedStep, limit: limit, at: now, retainUntil: retainUntil
        ).settlement
    }

    /// ``settleAttempt(for:matchedStep:limit:at:retainUntil:)`` with the
    /// failures the run held before it.
    public func settleAttemptReportingRun(
        for keyID: String, matchedStep: UInt64?, limit: TOTPAttemptLimit, at now: Date,
        retainUntil: Date
    ) async throws -> TOTPAttemptSettlementReport {
        let now = try await state.storeTime(callerTime: now)
        return try await state.updateValue(forKey: keyPrefix + keyID, at: now) { stored in
            var record = try KeyRecord(stored, at: now)
            let outcome = TOTPSettlementOutcome(
                matchedStep: matchedStep, lastAcceptedStep: record.lastAcceptedStep,
                attempts: record.attempts, limit: limit, at: now)
            switch outcome {
            case .refused: return .keep(result: outcome.report)
            case .accepted(let step, _):
                (record.lastAcceptedStep, record.stepRetainUntil, record.attempts) = (step, retainUntil, nil)
            case .counted(let next, _): record.attempts = next
            }
            return try record.update(result: outcome.report)
        }
    }

    /// Records `step` for `keyID` unless it is not after the last one recorded.
    public func recordAcceptedStep(_ step: UInt64, for keyID: String, at now: Date, retainUntil: Date) async throws
        -> Bool
    {
        let now = try await state.storeTime(callerTime: now)
        return try await state.updateValue(forKey: keyPrefix + keyID, at: now) { stored in
            var record = try KeyRecord(stored, at: now)
            guard !TOTPVerifier.isReplay(step, lastAcceptedStep: record.lastAcceptedStep) else {
                return .keep(result: false)
            }
            record.lastAcceptedStep = step
            record.stepRetainUntil = retainUntil
            return try record.update(result: true)
        }
    }

    /// Counts an attempt unless `limit` locks `keyID`.
    public func recordAttempt(for keyID: String, limit: TOTPAttemptLimit, at now: Date) async throws
        -> TOTPAttemptAdmission
    {
        let now = try await state.storeTime(callerTime: now)
        return try await state.updateValue(forKey: keyPrefix + keyID, at: now) { stored in
            var record = try KeyRecord(stored, at: now)
            let (admission, next) = limit.admit(record.attempts, at: now)
            guard admission.isCounted, let next else { return .keep(result: admission) }
            record.attempts = next
            return try record.update(result: admission)
        }
    }

    /// Forgets `keyID`'s run (its last accepted step stays).
    public func clearAttempts(for keyID: String) async throws {
        let now = try await state.storeTime(callerTime: Date())
        try await state.updateValue(forKey: keyPrefix + keyID, at: now) { stored in
            var record = try KeyRecord(stored, at: now)
            guard record.attempts != nil else { return .keep(result: ()) }
            record.attempts = nil
            return try record.update(result: ())
        }
    }

    /// `keyID`'s attempt record at `now`, if any.
    public func attempts(for keyID: String, at now: Date = Date()) async throws -> TOTPAttemptRecord? {
        let now = try await state.storeTime(callerTime: now)
        return try KeyRecord(try await state.value(forKey: keyPrefix + keyID, at: now), at: now).attempts
    }

    /// The last accepted step of `keyID` still remembered at `now`, if any.
    public func lastAcceptedStep(for keyID: String, at now: Date = Date()) async throws -> UInt64? {
        let now = try await state.storeTime(callerTime: now)
        return try KeyRecord(try await state.value(forKey: keyPrefix + keyID, at: now), at: now).lastAcceptedStep
    }
}

/// One key's entry: its last accepted step and its attempt record, each
/// with its own lifetime; the entry lives as long as the longer one.
private struct KeyRecord: Codable {
    var lastAcceptedStep: UInt64?
    var stepRetainUntil: Date?
    var attempts: TOTPAttemptRecord?

    /// The record kept in `stored`, without the halves that lapsed by `now`.
    init(_ stored: Data?, at now: Date) throws {
        guard let stored else { return }
        self = try JSONDecoder().decode(KeyRecord.self, from: stored)
        if let retainUntil = stepRetainUntil, retainUntil <= now { (lastAcceptedStep, stepRetainUntil) = (nil, nil) }
        if let attempts, attempts.forgetAt <= now { self.attempts = nil }
    }

    /// This record written back (removed when nothing in it matters any more).
    func update<Result: Sendable>(result: Result) throws -> ExpiringStateUpdate<Result> {
        let expiries = [stepRetainUntil, attempts?.forgetAt].compactMap { $0 }
        guard let expiresAt = expiries.max() else { return .remove(result: result) }
        return .store(try JSONEncoder().encode(self), expiresAt: expiresAt, result: result)
    }
}

/// A ``RecoveryCodeStore`` built on any `ExpiringStateStore`: a user's set
/// is one entry, and using a code is one atomic read-modify-write of it
/// (a swap that fails when another instance used a code first, then is
/// retried on the set it left), so a code works once on every instance.
public struct ExpiringStateRecoveryCodeStore: RecoveryCodeStore {
    /// Where the sets are kept.
    public let state: any ExpiringStateStore
    /// What each set's key starts with.
    public let keyPrefix: String

    /// Sets kept in `state`.
    /// - Parameters:
    ///   - state: Where the sets are kept: share it between instances.
    ///   - keyPrefix: What each set's key starts with.
    public init(state: any ExpiringStateStore, keyPrefix: String = "recovery-codes/") {
        self.state = state
        self.keyPrefix = keyPrefix
    }

    /// Sets in this process's memory, for one instance and tests. A full
    /// store refuses new users' sets (`InMemoryStoreFullError`) rather than
    /// forget anyone's codes.
    /// - Parameter capacity: The most users with a set.
    public init(capacity: Int = 100_000) {
        self.init(state: InMemoryExpiringStateStore(capacity: capacity, whenFull: .refuse))
    }

    /// Replaces the user's set whole (kept until it is replaced or removed).
    public func replaceCodes(_ verifiers: RecoveryCodeVerifiers, for userID: String) async throws {
        try await state.setValue(
            try JSONEncoder().encode(verifiers), forKey: keyPrefix + userID, expiresAt: .distantFuture)
    }

    /// The user's set, nil when there is none.
    public func verifiers(for userID: String) async throws -> RecoveryCodeVerifiers? {
        guard let stored = try await state.value(forKey: keyPrefix + userID, at: Date()) else { return nil }
        return try JSONDecoder().decode(RecoveryCodeVerifiers.self, from: stored)
    }

    /// Removes `digest` from the user's unused codes, atomically.
    public func consumeCode(withDigest digest: Data, for userID: String) async throws -> Int? {
        try await state.updateValue(forKey: keyPrefix + userID, at: Date()) { stored in
            guard let stored else { return .keep(result: nil) }
            var verifiers = try JSONDecoder().decode(RecoveryCodeVerifiers.self, from: stored)
            guard let index = verifiers.indexOfDigest(digest) else { return .keep(result: nil) }
            verifiers.digests.remove(at: index)
            return .store(
                try JSONEncoder().encode(verifiers), expiresAt: .distantFuture, result: verifiers.digests.count)
        }
    }

    /// Forgets the user's set.
    public func removeCodes(for userID: String) async throws {
        try await state.removeValue(forKey: keyPrefix + userID)
    }
}

/// The settlement rule of ``ExpiringStateTOTPVerificationStore``, which
/// holds a key's last accepted step and attempt record as one entry.
enum TOTPSettlementOutcome: Sendable {
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
    init(
        matchedStep: UInt64?, lastAcceptedStep: UInt64?, attempts: TOTPAttemptRecord?, limit: TOTPAttemptLimit,
        at now: Date
    ) {
        if let matchedStep, !TOTPVerifier.isReplay(matchedStep, lastAcceptedStep: lastAcceptedStep) {
            let admission = limit.admit(attempts, at: now).admission
            guard case .counted(let failures) = admission else {
                self = .refused(admission)
                return
            }
            self = .accepted(step: matchedStep, failuresBefore: failures)
            return
        }
        let (admission, next) = limit.admit(attempts, at: now)
        guard case .counted(let failures) = admission, let next else {
            self = .refused(admission)
            return
        }
        self = .counted(next: next, failuresBefore: failures)
    }

    /// The settlement as the store reports it.
    var report: TOTPAttemptSettlementReport {
        switch self {
        case .refused(let admission): TOTPAttemptSettlementReport(settlement: .refused(admission), failuresBefore: nil)
        case .accepted(_, let failures): TOTPAttemptSettlementReport(settlement: .accepted, failuresBefore: failures)
        case .counted(_, let failures): TOTPAttemptSettlementReport(settlement: .counted, failuresBefore: failures)
        }
    }
}
