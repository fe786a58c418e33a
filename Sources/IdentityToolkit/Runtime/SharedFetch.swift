import Foundation

/// Runs at most one fetch at a time: callers that arrive while one is in
/// flight await its result instead of starting another. The one in-flight
/// de-duplicator of the package (token refresh, access-token fetch).
package final class SharedFetch<Value: Sendable>: Sendable {
    private let inflight = Locked<Task<Value, any Error>?>(nil)

    package init() {}

    /// The result of the fetch in flight, or of a new one started with `fetch`.
    package func value(_ fetch: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let task = inflight.withLock { current -> Task<Value, any Error> in
            if let current { return current }
            let task = Task { try await fetch() }
            current = task
            return task
        }
        defer { inflight.withLock { if $0 == task { $0 = nil } } }
        return try await task.value
    }
}
