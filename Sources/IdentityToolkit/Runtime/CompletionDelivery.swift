public import Dispatch
import Foundation
import IdentitySupport

/// How the generated completion-handler facades (MultiFactorAuth's, from
/// `Spec/facades.yaml`) deliver their results.
///
/// Each runs its async twin in a task and calls the completion exactly once,
/// on ``queue``: by default a private serial queue, never the main queue,
/// so completions are delivered in a server process that never runs the
/// main queue too. Apps with a UI can set it to `.main`; code that wants
/// another queue for some calls only (a test, a request handler) scopes it
/// with ``withQueue(_:isolation:_:)`` instead of changing it for the process.
public enum CompletionDelivery {
    private static let configuredQueue = Locked(DispatchQueue(label: "swift-identity-mfa.completions"))

    /// The queue chosen for the current task by ``withQueue(_:isolation:_:)``, if any.
    @TaskLocal private static var scopedQueue: DispatchQueue?

    /// The queue completions run on: the current task's scoped queue, else
    /// the process-wide one (which setting changes).
    public static var queue: DispatchQueue {
        get { scopedQueue ?? configuredQueue.current }
        set { configuredQueue.withLock { $0 = newValue } }
    }

    /// Runs `body` with completions of the calls it starts delivered on
    /// `queue`, leaving every other task's queue as it is.
    public static func withQueue<Result>(
        _ queue: DispatchQueue, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Result
    ) async rethrows -> Result {
        try await $scopedQueue.withValue(queue, operation: body)
    }

    /// Runs `operation` in a new task and calls `completion` exactly once,
    /// on ``queue``, with its result: the one bridge from an async call to a
    /// callback (the generated clients' completion forms and the facades'
    /// twins both use it). Cancelling the returned task completes with
    /// `CancellationError`.
    @discardableResult
    public static func deliver<Value: Sendable>(
        _ operation: @escaping @Sendable () async throws -> Value,
        completion: @escaping @Sendable (Result<Value, any Error>) -> Void
    ) -> Task<Void, Never> {
        let queue = self.queue
        return Task {
            let result: Result<Value, any Error>
            do {
                result = .success(try await operation())
            } catch {
                result = .failure(error)
            }
            queue.async { completion(result) }
        }
    }

    /// The same in Firebase's `(value, error)` form: exactly one of the two
    /// is non-nil.
    @discardableResult
    public static func deliver<Value: Sendable>(
        _ operation: @escaping @Sendable () async throws -> Value,
        completion: @escaping @Sendable (Value?, (any Error)?) -> Void
    ) -> Task<Void, Never> {
        deliver(operation) { (result: Result<Value, any Error>) in
            switch result {
            case .success(let value): completion(value, nil)
            case .failure(let error): completion(nil, error)
            }
        }
    }
}
