package import Foundation

/// Entries with an expiry, bounded in number: what the in-memory stores
/// and caches keep. Expired entries are removed as time passes (the `now`
/// of the calls, so a verifier run at a fixed time in tests sees a fixed
/// world). Past `capacity`, a cache (``WhenFull/evictNearestExpiry``)
/// drops the entries nearest their expiry, so a stream of distinct keys
/// keeps memory flat; a security store (``WhenFull/refuse``) drops no live
/// entry — forgetting one would end a lock-out or reopen a replay, and the
/// keys may be an attacker's — and refuses the new one instead.
package struct ExpiringEntries<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// What a full store does with a new key.
    package enum WhenFull: Sendable {
        case evictNearestExpiry, refuse
    }

    private struct Entry: Sendable {
        var value: Value
        var expiresAt: Date
    }

    /// A key at the expiry it had when set; stale once the key's expiry changed.
    private struct Position: Sendable, Comparable {
        var expiresAt: Date
        var key: Key

        static func < (lhs: Position, rhs: Position) -> Bool { lhs.expiresAt < rhs.expiresAt }
        static func == (lhs: Position, rhs: Position) -> Bool { lhs.expiresAt == rhs.expiresAt && lhs.key == rhs.key }
    }

    package let capacity: Int
    package let whenFull: WhenFull
    private var entries: [Key: Entry] = [:]
    /// A min-heap of positions by expiry: the nearest expiry at the top,
    /// whatever order the keys came in (a record kept for ever does not
    /// hold back the removal of those behind it). Stale positions are
    /// skipped when they surface and dropped when they outnumber the entries.
    private var heap = MinHeap<Position>()
    /// Positions the rebuilds have walked so far: what a test holds to a
    /// constant per ``set(_:for:expiresAt:now:)``.
    package private(set) var compactedPositions = 0

    package init(capacity: Int, whenFull: WhenFull = .evictNearestExpiry) {
        self.capacity = capacity
        self.whenFull = whenFull
    }

    package var count: Int { entries.count }

    /// The live value of `key` at `now`.
    package func value(for key: Key, at now: Date) -> Value? {
        guard let entry = entries[key], now < entry.expiresAt else { return nil }
        return entry.value
    }

    /// Sets `key`'s value; false (nothing changed) when a refusing store is
    /// full of live entries and `key` is not one of them.
    @discardableResult
    package mutating func set(_ value: Value, for key: Key, expiresAt: Date, now: Date) -> Bool {
        removeExpired(at: now)
        if whenFull == .refuse, entries[key] == nil, entries.count >= capacity { return false }
        let previous = entries.updateValue(Entry(value: value, expiresAt: expiresAt), forKey: key)
        if previous?.expiresAt != expiresAt { heap.push(Position(expiresAt: expiresAt, key: key)) }
        while entries.count > capacity, let nearest = popCurrent() { entries[nearest.key] = nil }
        compact()
        return true
    }

    package mutating func remove(_ key: Key) {
        entries[key] = nil
    }

    /// Removes every entry whose value matches: a walk of all of them, for
    /// what is rare (a revocation), never for a request's path.
    /// - Returns: How many were removed.
    @discardableResult
    package mutating func removeAll(where matches: (Value) -> Bool) -> Int {
        let before = entries.count
        entries = entries.filter { !matches($0.value.value) }
        return before - entries.count
    }

    /// Removes every entry.
    package mutating func removeAll() {
        entries.removeAll()
        heap = MinHeap()
    }

    /// Removes the entries whose expiry has passed, nearest first.
    private mutating func removeExpired(at now: Date) {
        while let top = heap.min, top.expiresAt <= now {
            heap.popMin()
            if entries[top.key]?.expiresAt == top.expiresAt { entries[top.key] = nil }
        }
    }

    /// The current position nearest its expiry, taken off the heap.
    private mutating func popCurrent() -> Position? {
        while let top = heap.popMin() {
            if entries[top.key]?.expiresAt == top.expiresAt { return top }
        }
        return nil
    }

    /// Rebuilds the heap from the entries once stale positions outnumber
    /// them twice over: each rebuild is paid for by as many `set` calls as
    /// it walks, so a `set` costs O(log n) amortized.
    private mutating func compact() {
        guard heap.count > 2 * max(entries.count, 512) else { return }
        compactedPositions += heap.count
        heap = MinHeap(entries.map { Position(expiresAt: $0.value.expiresAt, key: $0.key) })
    }
}
