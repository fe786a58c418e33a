import Foundation

/// Runs work under a hard deadline, whatever the work does.
///
/// A transport's own timeout may stop applying part-way (AsyncHTTPClient's
/// deadline does not cover a body that trickles in after the headers), so
/// the request executor enforces its request timeout itself: at the
/// deadline the caller gets ``DeadlineExceeded`` and the work is cancelled,
/// even if the work never checks for cancellation. Each caller maps
/// ``DeadlineExceeded`` to its own error (a transport's `timedOut`, a
/// store's, the emulator's 408).
package enum Deadline {
    /// Runs `operation`; throws ``DeadlineExceeded`` when it has not
    /// finished within `timeout`, and `CancellationError` when the calling
    /// task is cancelled first. The operation is cancelled in both cases.
    package static func run<Value: Sendable>(
        within timeout: Duration,
        _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let race = Race<Value>()
        let deadline = ContinuousClock.now + timeout
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                race.begin(continuation)
                let work = Task {
                    do {
                        race.finish(.success(try await operation()))
                    } catch {
                        race.finish(.failure(error))
                    }
                }
                let timer = DeadlineSweeper.shared.schedule(at: deadline) { race.finish(.failure(DeadlineExceeded())) }
                race.attach(work: work, timer: timer)
            }
        } onCancel: {
            race.finish(.failure(CancellationError()))
        }
    }

    /// The first of work, timer and cancellation to finish resumes the caller
    /// (exactly once), cancels the work and withdraws the timer.
    private final class Race<Value: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<Value, any Error>?
            var outcome: Result<Value, any Error>?
            var work: Task<Void, Never>?
            /// The ``DeadlineSweeper`` registration.
            var timer: UInt64?
        }

        private let state = Locked(State())

        func begin(_ continuation: CheckedContinuation<Value, any Error>) {
            let early = state.withLock { state -> Result<Value, any Error>? in
                if let outcome = state.outcome { return outcome }
                state.continuation = continuation
                return nil
            }
            if let early { continuation.resume(with: early) }
        }

        func attach(work: Task<Void, Never>, timer: UInt64) {
            let finished = state.withLock { state -> Bool in
                state.work = work
                state.timer = timer
                return state.outcome != nil
            }
            if finished {
                work.cancel()
                DeadlineSweeper.shared.withdraw(timer)
            }
        }

        func finish(_ outcome: Result<Value, any Error>) {
            let (continuation, work, timer) = state.withLock {
                state -> (CheckedContinuation<Value, any Error>?, Task<Void, Never>?, UInt64?) in
                guard state.outcome == nil else { return (nil, nil, nil) }
                state.outcome = outcome
                defer { state.continuation = nil }
                return (state.continuation, state.work, state.timer)
            }
            continuation?.resume(with: outcome)
            work?.cancel()
            if let timer { DeadlineSweeper.shared.withdraw(timer) }
        }
    }
}

/// What ``Deadline/run(within:_:)`` throws when the time ran out first.
package struct DeadlineExceeded: Error, Sendable, Equatable {
    package init() {}
}
