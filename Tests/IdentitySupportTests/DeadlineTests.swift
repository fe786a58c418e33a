import Foundation
import IdentitySupport
import Testing

/// `Deadline.run` and the sweeper that fires its timeouts.
@Suite struct DeadlineTests {
    @Test func workThatFinishesReturnsItsValue() async throws {
        for index in 0..<2_000 {
            let value = try await Deadline.run(within: .seconds(60)) { index }
            #expect(value == index)
        }
    }

    /// Withdrawn registrations are compacted: the heap stays near the live
    /// count, not the number of calls. (A sweeper of its own: the shared one
    /// holds the deadlines of every test running beside this one.)
    @Test func withdrawnDeadlinesLeaveTheHeap() {
        let sweeper = DeadlineSweeper()
        let far = ContinuousClock.now + .seconds(600)
        let kept = sweeper.schedule(at: far + .seconds(1)) {}
        for _ in 0..<2_000 { sweeper.withdraw(sweeper.schedule(at: far) {}) }
        let (pending, heap) = sweeper.counts
        #expect(pending == 1 && heap <= 70, "pending \(pending), heap \(heap)")
        sweeper.withdraw(kept)
    }

    @Test func aThrownErrorReachesTheCaller() async {
        struct Failure: Error {}
        await #expect(throws: Failure.self) {
            try await Deadline.run(within: .seconds(60)) { () throws -> Int in throw Failure() }
        }
    }

    /// Work that never looks at cancellation still gives the caller back at
    /// its deadline: the error proves the timeout came first. (No bound on
    /// the wait below the work's 20 s: under a loaded CI the pool runs the
    /// sweeper late, as it ran the timer task each call had before.)
    @Test(.timeLimit(.minutes(1))) func workThatIgnoresCancellationTimesOut() async {
        let clock = ContinuousClock()
        let started = clock.now
        await #expect(throws: DeadlineExceeded()) {
            try await Deadline.run(within: .milliseconds(200)) { () -> Int in
                // Answers in 20 s whatever happens, without holding one of
                // the pool's threads (on two cores it has two).
                await withCheckedContinuation { continuation in
                    DispatchQueue.global().asyncAfter(deadline: .now() + 20) { continuation.resume(returning: 1) }
                }
            }
        }
        #expect(clock.now - started >= .milliseconds(200))
    }

    /// A short deadline registered while the sweeper sleeps toward a long
    /// one wakes it: it is not fired at the long one's time.
    @Test(.timeLimit(.minutes(1))) func anEarlierDeadlineWakesTheSweeper() async throws {
        let clock = ContinuousClock()
        async let long: Int = Deadline.run(within: .seconds(30)) {
            try await Task.sleep(for: .seconds(3))
            return 1
        }
        try await Task.sleep(for: .milliseconds(50))
        let started = clock.now
        await #expect(throws: DeadlineExceeded()) {
            try await Deadline.run(within: .milliseconds(100)) { () -> Int in
                try? await Task.sleep(for: .seconds(20))
                return 2
            }
        }
        let waited = clock.now - started
        #expect(waited >= .milliseconds(100) && waited < .seconds(10), "waited \(waited)")
        #expect(try await long == 1)
    }

    @Test(.timeLimit(.minutes(1))) func cancellingTheCallerEndsTheWait() async {
        let task = Task {
            try await Deadline.run(within: .seconds(60)) { () -> Int in
                try? await Task.sleep(for: .seconds(30))
                return 1
            }
        }
        try? await Task.sleep(for: .milliseconds(50))
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    /// Deadlines fire in order, each once, also when they were scheduled out of order.
    @Test(.timeLimit(.minutes(1))) func aSweeperFiresEachDueDeadlineOnceInOrder() async throws {
        let sweeper = DeadlineSweeper()
        let fired = Locked<[Int]>([])
        let base = ContinuousClock.now
        let offsets = [300, 100, 500, 200, 400]
        for (index, milliseconds) in offsets.enumerated() {
            _ = sweeper.schedule(at: base + .milliseconds(milliseconds)) { fired.withLock { $0.append(index) } }
        }
        let withdrawn = sweeper.schedule(at: base + .milliseconds(250)) { fired.withLock { $0.append(99) } }
        sweeper.withdraw(withdrawn)
        while fired.current.count < offsets.count { try await Task.sleep(for: .milliseconds(20)) }
        try await Task.sleep(for: .milliseconds(100))
        #expect(fired.current == [1, 3, 0, 4, 2])
        let counts = sweeper.counts
        #expect(counts.pending == 0 && counts.heap == 0)
    }
}
