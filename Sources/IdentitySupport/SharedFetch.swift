/// One fetch in flight for any number of concurrent callers: the first caller
/// starts it, those who arrive while it runs await the same result, and the
/// next caller after it ends starts a new one.
package final class SharedFetch<Value: Sendable>: Sendable {
    private let fetches = KeyedSharedFetch<Bool, Value>()

    package init() {}

    /// The result of the fetch in flight, or of a new one started with `fetch`.
    package func value(_ fetch: @escaping @Sendable () async throws -> Value) async throws -> Value {
        try await fetches.value(for: true, fetch)
    }
}

/// ``SharedFetch`` per key: one fetch in flight for each key (an account
/// lookup per uid), however many callers ask for it at once.
package final class KeyedSharedFetch<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let inflight = Locked<[Key: Task<Value, any Error>]>([:])

    package init() {}

    /// The result of `key`'s fetch in flight, or of a new one started with `fetch`.
    package func value(for key: Key, _ fetch: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let task = inflight.withLock { tasks -> Task<Value, any Error> in
            if let current = tasks[key] { return current }
            let task = Task { try await fetch() }
            tasks[key] = task
            return task
        }
        defer { inflight.withLock { if $0[key] == task { $0[key] = nil } } }
        return try await task.value
    }

    /// Fetches in flight now (tests).
    package var count: Int { inflight.withLock { $0.count } }
}
