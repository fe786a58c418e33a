import Foundation

/// Runs `work` on a thread of its own and returns what it returns.
///
/// Swift Testing runs every test as a task on the cooperative pool, which
/// has one thread per core (two on CI). A test that computes for seconds
/// without suspending holds one of those threads the whole time; two such
/// tests stall every other test, and the request deadlines of tests queued
/// behind them expire although nothing is wrong. On a thread of its own
/// the work is time-sliced by the kernel instead, and the pool keeps
/// moving. `work` should return what the test checks rather than call
/// `#expect` itself: the thread has no test to record an issue against.
public func offThePool<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try work() })
        }
    }
}

/// The request deadline of the test harnesses' clients. Their requests go
/// to an emulator in the same process, yet each waits its turn on the
/// cooperative pool behind every test that is computing, and on two shared
/// cores that wait alone has passed 30 seconds (the SDK's default). Tests of
/// the deadline itself set their own.
public let harnessRequestTimeout: Duration = .seconds(300)
