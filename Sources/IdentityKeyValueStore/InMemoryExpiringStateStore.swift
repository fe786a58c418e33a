public import Foundation
import IdentitySupport

/// An in-memory ``ExpiringStateStore``: the embedded default, for one
/// process (tests, a single instance). Bounded: past `capacity` a cache
/// forgets the entries nearest their expiry; a store of security records
/// (``WhenFull/refuse``) forgets none and refuses new keys instead.
public actor InMemoryExpiringStateStore: ExpiringStateStore {
    /// What a full store does with a new key.
    public enum WhenFull: Sendable, Hashable {
        /// Forgets the entries nearest their expiry: for state whose loss
        /// costs a retry (a sign-in in flight), so a stream of keys keeps
        /// memory flat.
        case evictNearestExpiry
        /// Forgets no live entry and throws ``InMemoryStoreFullError``:
        /// for security records (attempt counts, accepted steps), whose
        /// loss would end a lock-out or reopen a replay, and whose keys an
        /// attacker may choose.
        case refuse
    }

    private var entries: ExpiringEntries<String, Data>

    /// An empty store.
    /// - Parameters:
    ///   - capacity: The most entries kept.
    ///   - whenFull: What a full store does with a new key.
    public init(capacity: Int = 100_000, whenFull: WhenFull = .evictNearestExpiry) {
        entries = ExpiringEntries(
            capacity: max(1, capacity), whenFull: whenFull == .refuse ? .refuse : .evictNearestExpiry)
    }

    /// Keeps `value` under `key` until `expiresAt`.
    /// - Throws: ``InMemoryStoreFullError`` when a refusing store is full
    ///   of live entries and `key` is not one of them.
    public func setValue(_ value: Data, forKey key: String, expiresAt: Date) throws(InMemoryStoreFullError) {
        try keep(value, forKey: key, expiresAt: expiresAt, now: Date())
    }

    /// The live value under `key` at `now`.
    public func value(forKey key: String, at now: Date) -> Data? {
        entries.value(for: key, at: now)
    }

    /// The live value under `key` at `now`, removed.
    public func takeValue(forKey key: String, at now: Date) -> Data? {
        defer { entries.remove(key) }
        return entries.value(for: key, at: now)
    }

    /// Forgets the value under `key`.
    public func removeValue(forKey key: String) {
        entries.remove(key)
    }

    /// Swaps in `newValue` when the live value is `expected`; atomic
    /// because the actor runs one call at a time.
    /// - Throws: ``InMemoryStoreFullError`` when a refusing store is full.
    public func compareAndSwapValue(
        forKey key: String, expected: Data?, newValue: Data?, expiresAt: Date,
        at now: Date
    ) throws(InMemoryStoreFullError) -> Bool {
        guard entries.value(for: key, at: now) == expected else { return false }
        if let newValue { try keep(newValue, forKey: key, expiresAt: expiresAt, now: now) } else { entries.remove(key) }
        return true
    }

    /// How many entries are kept (expired ones may remain until the next write).
    public var count: Int { entries.count }

    private func keep(_ value: Data, forKey key: String, expiresAt: Date, now: Date) throws(InMemoryStoreFullError) {
        guard entries.set(value, for: key, expiresAt: expiresAt, now: now) else {
            throw InMemoryStoreFullError(capacity: entries.capacity)
        }
    }
}

/// An in-memory store holds `capacity` live records and is full: it
/// refuses to forget a live one (that would end a lock-out or reopen a
/// replay), so the verification fails closed until records expire.
public struct InMemoryStoreFullError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The records the store holds at most.
    public let capacity: Int

    /// A refusal of a store of `capacity` records.
    public init(capacity: Int) { self.capacity = capacity }

    /// What happened and what to do; no key is named.
    public var description: String {
        "the in-memory store holds its \(capacity) live records and forgets none of them early; attempts are refused until records expire (give it a larger capacity, or use a shared store)"
    }
}
