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

/// Entries with an expiry, bounded in number: what the in-memory stores
/// keep. Expired entries are removed as time passes (the `now` of the
/// calls, so a verifier run at a fixed time in tests sees a fixed world),
/// and past `capacity` the entries nearest their expiry go first, so a
/// stream of distinct keys keeps memory flat.
package struct ExpiringEntries<Value: Sendable>: Sendable {
    private struct Entry: Sendable {
        var value: Value
        var expiresAt: Date
    }

    package let capacity: Int
    private var entries: [String: Entry] = [:]
    /// Keys in the order their current expiry was set; stale positions are skipped.
    private var order: [(key: String, expiresAt: Date)] = []
    private var orderStart = 0

    package init(capacity: Int) {
        self.capacity = capacity
    }

    package var count: Int { entries.count }

    /// The live value of `key` at `now`.
    package func value(for key: String, at now: Date) -> Value? {
        guard let entry = entries[key], now < entry.expiresAt else { return nil }
        return entry.value
    }

    package mutating func set(_ value: Value, for key: String, expiresAt: Date, now: Date) {
        entries[key] = Entry(value: value, expiresAt: expiresAt)
        order.append((key, expiresAt))
        removeExpired(at: now)
        while entries.count > capacity, let oldest = popOrder() { entries[oldest] = nil }
        compact()
    }

    package mutating func remove(_ key: String) {
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
    private mutating func popOrder() -> String? {
        while orderStart < order.count {
            let (key, expiresAt) = order[orderStart]
            orderStart += 1
            if entries[key]?.expiresAt == expiresAt { return key }
        }
        return nil
    }

    /// Drops the consumed front and stale positions once they dominate.
    private mutating func compact() {
        guard orderStart > 1024 || order.count > 2 * max(entries.count, 512) else { return }
        order = order[orderStart...].filter { entries[$0.key]?.expiresAt == $0.expiresAt }
        orderStart = 0
    }
}

/// An in-memory ``TOTPReplayStore``: for one process (tests, a single
/// instance). An actor, so safe under concurrency. Records are forgotten
/// once they can no longer matter, and at most `capacity` are kept.
public actor InMemoryTOTPReplayStore: TOTPReplayStore {
    /// One store for the whole process: a verifier built per request (it
    /// holds one user's key) still shares what earlier requests recorded.
    public static let shared = InMemoryTOTPReplayStore()

    private var lastAccepted: ExpiringEntries<UInt64>

    /// An empty store.
    /// - Parameter capacity: The most keys remembered; past it the records
    ///   nearest their expiry go first.
    public init(capacity: Int = 100_000) {
        lastAccepted = ExpiringEntries(capacity: max(1, capacity))
    }

    /// Records `step` for `keyID` unless it is not after the last one recorded.
    public func recordAcceptedStep(_ step: UInt64, for keyID: String, at now: Date, retainUntil: Date) -> Bool {
        if TOTPVerifier.isReplay(step, lastAcceptedStep: lastAccepted.value(for: keyID, at: now)) { return false }
        lastAccepted.set(step, for: keyID, expiresAt: retainUntil, now: now)
        return true
    }

    /// The last accepted step of `keyID` still remembered at `now`, if any.
    public func lastAcceptedStep(for keyID: String, at now: Date = Date()) -> UInt64? { lastAccepted.value(for: keyID, at: now) }

    /// How many keys are remembered (expired ones may remain until the next write).
    public var count: Int { lastAccepted.count }
}

/// An in-memory ``TOTPAttemptStore``: for one process (tests, a single
/// instance). An actor, so each call's check and count are one step.
public actor InMemoryTOTPAttemptStore: TOTPAttemptStore {
    /// One store for the whole process (see ``InMemoryTOTPReplayStore/shared``).
    public static let shared = InMemoryTOTPAttemptStore()

    private var attempts: ExpiringEntries<Int>

    /// An empty store.
    /// - Parameter capacity: The most keys counted; past it the counts
    ///   nearest their expiry go first.
    public init(capacity: Int = 100_000) {
        attempts = ExpiringEntries(capacity: max(1, capacity))
    }

    /// Counts an attempt unless `keyID` is at `limit`.
    public func recordAttempt(for keyID: String, limit: Int, at now: Date, expiresAt: Date) -> Bool {
        let count = attempts.value(for: keyID, at: now) ?? 0
        guard count < limit else { return false }
        attempts.set(count + 1, for: keyID, expiresAt: expiresAt, now: now)
        return true
    }

    /// Forgets `keyID`'s count.
    public func clearAttempts(for keyID: String) {
        attempts.remove(keyID)
    }

    /// The attempts counted for `keyID` at `now` (0 when none or lapsed).
    public func attempts(for keyID: String, at now: Date = Date()) -> Int { attempts.value(for: keyID, at: now) ?? 0 }

    /// How many keys have a count (lapsed ones may remain until the next write).
    public var count: Int { attempts.count }
}
