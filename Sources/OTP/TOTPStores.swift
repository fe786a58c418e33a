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

/// Counts the attempts each key (or sign-in challenge) gets, for
/// ``TOTPVerifier``'s attempt limit.
///
/// The count is taken **before** the code is checked, in one atomic call,
/// so that concurrent wrong codes can never be checked more often than the
/// limit allows (counting after the check let 100 parallel guesses all
/// through). State a second instance needs: share one store between
/// instances, or an attacker gets the limit once per instance.
public protocol TOTPAttemptStore: Sendable {
    /// Counts one attempt for `keyID` unless it already had `limit`
    /// unsuccessful ones since its count last expired or was cleared.
    /// - Parameters:
    ///   - keyID: Whose key.
    ///   - limit: The attempts allowed.
    ///   - now: The time of the attempt.
    ///   - expiresAt: When the count lapses if nothing else happens (the
    ///     lock-out ends); each counted attempt moves it.
    /// - Returns: true when the attempt was counted and its code may be
    ///   checked; false when the key is at its limit (nothing is counted).
    func recordAttempt(for keyID: String, limit: Int, at now: Date, expiresAt: Date) async throws -> Bool

    /// Forgets `keyID`'s count: after a success, or when the user proved
    /// themselves another way (a support desk, a recovery code).
    func clearAttempts(for keyID: String) async throws
}

/// What ``TOTPVerificationStore/settleAttempt(for:matchedStep:limit:at:attemptsExpireAt:retainUntil:)``
/// did with one attempt.
public enum TOTPAttemptSettlement: Sendable, Hashable {
    /// The key was at its limit: nothing was counted or recorded, and the
    /// code's match must not be used.
    case refused
    /// The attempt was counted: the code matched no step, or its step was
    /// not later than the last accepted one (a replay).
    case counted
    /// The matched step was recorded and the key's count cleared.
    case accepted
}

/// A store that keeps each key's attempt count and last accepted step
/// together and settles a whole verification in one atomic call: the
/// attempt is counted unless the key is at its limit and, in the same
/// step, a matched code's step is recorded and the count cleared. On a
/// database that is one statement where separate stores need three
/// (count, record, clear), so a fleet verifies about three times as many
/// codes per second (see `Benchmarks/README.md`).
///
/// The verifier matches the code before this call, but uses the match only
/// when the call counted the attempt, so concurrent wrong codes are still
/// never judged more often than the limit allows. Its
/// ``TOTPReplayStore`` and ``TOTPAttemptStore`` calls act on the same
/// records, for callers that need one half (a recovery that clears a
/// count).
public protocol TOTPVerificationStore: TOTPReplayStore, TOTPAttemptStore {
    /// Counts one attempt for `keyID` and, when `matchedStep` is later than
    /// the last accepted step, records it and clears the count — atomically.
    /// - Parameters:
    ///   - keyID: Whose key.
    ///   - matchedStep: The step the code matched, nil when it matched none.
    ///   - limit: The attempts allowed since the count last lapsed or was cleared.
    ///   - now: The time of the attempt.
    ///   - attemptsExpireAt: When the count lapses if nothing else happens
    ///     (the lock-out ends); each counted attempt moves it.
    ///   - retainUntil: When an accepted step's record stops mattering.
    /// - Returns: ``TOTPAttemptSettlement/refused`` at the limit,
    ///   ``TOTPAttemptSettlement/accepted`` when the step was recorded,
    ///   ``TOTPAttemptSettlement/counted`` otherwise.
    func settleAttempt(for keyID: String, matchedStep: UInt64?, limit: Int, at now: Date, attemptsExpireAt: Date,
                       retainUntil: Date) async throws -> TOTPAttemptSettlement
}

/// Entries with an expiry, bounded in number: what the in-memory stores
/// keep. Expired entries are removed as time passes (the `now` of the
/// calls, so a verifier run at a fixed time in tests sees a fixed world),
/// and past `capacity` the entries nearest their expiry go first, so a
/// stream of distinct keys keeps memory flat.
package struct ExpiringEntries<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Entry: Sendable {
        var value: Value
        var expiresAt: Date
    }

    package let capacity: Int
    private var entries: [Key: Entry] = [:]
    /// Keys in the order their current expiry was set; stale positions are skipped.
    private var order: [(key: Key, expiresAt: Date)] = []
    private var orderStart = 0
    /// Positions the compactions have walked so far: what a test holds to
    /// a constant per ``set(_:for:expiresAt:now:)``.
    package private(set) var compactedPositions = 0

    package init(capacity: Int) {
        self.capacity = capacity
    }

    package var count: Int { entries.count }

    /// The live value of `key` at `now`.
    package func value(for key: Key, at now: Date) -> Value? {
        guard let entry = entries[key], now < entry.expiresAt else { return nil }
        return entry.value
    }

    package mutating func set(_ value: Value, for key: Key, expiresAt: Date, now: Date) {
        entries[key] = Entry(value: value, expiresAt: expiresAt)
        order.append((key, expiresAt))
        removeExpired(at: now)
        while entries.count > capacity, let oldest = popOrder() { entries[oldest] = nil }
        compact()
    }

    package mutating func remove(_ key: Key) {
        entries[key] = nil
    }

    /// Removes entries whose expiry has passed, oldest first.
    private mutating func removeExpired(at now: Date) {
        while orderStart < order.count {
            let (key, expiresAt) = order[orderStart]
            if let entry = entries[key], entry.expiresAt == expiresAt {
                guard expiresAt <= now else { break }
                entries[key] = nil
            }
            orderStart += 1
        }
    }

    /// The key whose current expiry was set first, if any.
    private mutating func popOrder() -> Key? {
        while orderStart < order.count {
            let (key, expiresAt) = order[orderStart]
            orderStart += 1
            if entries[key]?.expiresAt == expiresAt { return key }
        }
        return nil
    }

    /// Drops the consumed front once it is half the positions, and stale
    /// positions once they outnumber the entries twice over. Each pass is
    /// paid for by at least as many `set` calls as it walks, so a `set`
    /// costs O(1) amortized: rebuilding every 1024 calls walked all of a
    /// large store's positions each time (a 20 ms pause at 400,000 keys).
    private mutating func compact() {
        if orderStart > 1024, orderStart >= order.count - orderStart {
            compactedPositions += order.count
            order.removeFirst(orderStart)
            orderStart = 0
        }
        if order.count - orderStart > 2 * max(entries.count, 512) {
            compactedPositions += order.count - orderStart
            order = order[orderStart...].filter { entries[$0.key]?.expiresAt == $0.expiresAt }
            orderStart = 0
        }
    }
}

/// Each key's last accepted step, in memory: the one home of the replay
/// rule for the in-memory stores.
package struct AcceptedSteps: Sendable {
    private var entries: ExpiringEntries<String, UInt64>

    package init(capacity: Int) { entries = ExpiringEntries(capacity: max(1, capacity)) }

    package var count: Int { entries.count }

    package func lastAcceptedStep(for keyID: String, at now: Date) -> UInt64? { entries.value(for: keyID, at: now) }

    /// Records `step` unless it is not after the last one recorded.
    package mutating func record(_ step: UInt64, for keyID: String, at now: Date, retainUntil: Date) -> Bool {
        if TOTPVerifier.isReplay(step, lastAcceptedStep: entries.value(for: keyID, at: now)) { return false }
        entries.set(step, for: keyID, expiresAt: retainUntil, now: now)
        return true
    }
}

/// Each key's attempt count, in memory: the one home of the counting rule
/// for the in-memory stores.
package struct AttemptCounts: Sendable {
    private var entries: ExpiringEntries<String, Int>

    package init(capacity: Int) { entries = ExpiringEntries(capacity: max(1, capacity)) }

    package var count: Int { entries.count }

    package func attempts(for keyID: String, at now: Date) -> Int { entries.value(for: keyID, at: now) ?? 0 }

    /// Counts an attempt unless `keyID` is at `limit`.
    package mutating func record(for keyID: String, limit: Int, at now: Date, expiresAt: Date) -> Bool {
        let count = attempts(for: keyID, at: now)
        guard count < limit else { return false }
        entries.set(count + 1, for: keyID, expiresAt: expiresAt, now: now)
        return true
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
    /// - Parameter capacity: The most keys remembered; past it the records
    ///   nearest their expiry go first.
    public init(capacity: Int = 100_000) {
        steps = AcceptedSteps(capacity: capacity)
    }

    /// Records `step` for `keyID` unless it is not after the last one recorded.
    public func recordAcceptedStep(_ step: UInt64, for keyID: String, at now: Date, retainUntil: Date) -> Bool {
        steps.record(step, for: keyID, at: now, retainUntil: retainUntil)
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
    /// - Parameter capacity: The most keys counted; past it the counts
    ///   nearest their expiry go first.
    public init(capacity: Int = 100_000) {
        counts = AttemptCounts(capacity: capacity)
    }

    /// Counts an attempt unless `keyID` is at `limit`.
    public func recordAttempt(for keyID: String, limit: Int, at now: Date, expiresAt: Date) -> Bool {
        counts.record(for: keyID, limit: limit, at: now, expiresAt: expiresAt)
    }

    /// Forgets `keyID`'s count.
    public func clearAttempts(for keyID: String) {
        counts.clear(for: keyID)
    }

    /// The attempts counted for `keyID` at `now` (0 when none or lapsed).
    public func attempts(for keyID: String, at now: Date = Date()) -> Int { counts.attempts(for: keyID, at: now) }

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
    /// - Parameter capacity: The most keys remembered, for counts and for
    ///   accepted steps each; past it the entries nearest their expiry go first.
    public init(capacity: Int = 100_000) {
        counts = AttemptCounts(capacity: capacity)
        steps = AcceptedSteps(capacity: capacity)
    }

    /// Counts the attempt unless at `limit`; records a later matched step and clears the count.
    public func settleAttempt(for keyID: String, matchedStep: UInt64?, limit: Int, at now: Date, attemptsExpireAt: Date,
                              retainUntil: Date) -> TOTPAttemptSettlement {
        guard counts.record(for: keyID, limit: limit, at: now, expiresAt: attemptsExpireAt) else { return .refused }
        guard let matchedStep, steps.record(matchedStep, for: keyID, at: now, retainUntil: retainUntil) else { return .counted }
        counts.clear(for: keyID)
        return .accepted
    }

    /// Records `step` for `keyID` unless it is not after the last one recorded.
    public func recordAcceptedStep(_ step: UInt64, for keyID: String, at now: Date, retainUntil: Date) -> Bool {
        steps.record(step, for: keyID, at: now, retainUntil: retainUntil)
    }

    /// Counts an attempt unless `keyID` is at `limit`.
    public func recordAttempt(for keyID: String, limit: Int, at now: Date, expiresAt: Date) -> Bool {
        counts.record(for: keyID, limit: limit, at: now, expiresAt: expiresAt)
    }

    /// Forgets `keyID`'s count (its last accepted step stays).
    public func clearAttempts(for keyID: String) {
        counts.clear(for: keyID)
    }

    /// The attempts counted for `keyID` at `now` (0 when none or lapsed).
    public func attempts(for keyID: String, at now: Date = Date()) -> Int { counts.attempts(for: keyID, at: now) }

    /// The last accepted step of `keyID` still remembered at `now`, if any.
    public func lastAcceptedStep(for keyID: String, at now: Date = Date()) -> UInt64? { steps.lastAcceptedStep(for: keyID, at: now) }
}
