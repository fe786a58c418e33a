import Foundation

/// One task for the whole process that fires ``Deadline``'s timeouts.
///
/// A timer per call (a task sleeping on the dispatch timer heap) cost each
/// database query and HTTP request a task, a timer armed and a timer
/// cancelled, and waking dispatch's manager thread for both: about a tenth
/// of a PostgreSQL store's client CPU. Here a call's deadline is an entry
/// in a heap, added and withdrawn under a lock. The sweeper sleeps until
/// the earliest live deadline; a call whose deadline is earlier than that
/// wakes it (rare: one component's timeouts share a duration, so later
/// calls end later).
package final class DeadlineSweeper: Sendable {
    /// The process's sweeper; its task starts with the first deadline.
    package static let shared = DeadlineSweeper()

    private struct Entry: Comparable, Sendable {
        var deadline: ContinuousClock.Instant
        var id: UInt64

        static func < (lhs: Entry, rhs: Entry) -> Bool { lhs.deadline < rhs.deadline }
    }

    private struct State {
        /// A binary min-heap by deadline. Withdrawn entries stay until they
        /// reach the top or a compaction drops them.
        var heap = MinHeap<Entry>()
        var pending: [UInt64: @Sendable () -> Void] = [:]
        var nextID: UInt64 = 0
        var sweeping = false
        /// What the sweeper sleeps until, and the sleep to cancel to wake it
        /// for an earlier deadline.
        var target: ContinuousClock.Instant?
        var sleep: Task<Void, Never>?
    }

    private let state = Locked(State())
    private let clock = ContinuousClock()

    package init() {}

    /// Calls `expire` once at `deadline` (give or take the scheduler)
    /// unless ``withdraw(_:)`` is called first.
    /// - Returns: The registration's id, for ``withdraw(_:)``.
    package func schedule(at deadline: ContinuousClock.Instant, _ expire: @escaping @Sendable () -> Void) -> UInt64 {
        let (id, start, wake) = state.withLock { state -> (UInt64, Bool, Task<Void, Never>?) in
            state.nextID &+= 1
            let id = state.nextID
            state.pending[id] = expire
            state.heap.push(Entry(deadline: deadline, id: id))
            let start = !state.sweeping
            state.sweeping = true
            var wake: Task<Void, Never>?
            if let target = state.target, deadline < target {
                wake = state.sleep
                state.target = deadline
            }
            return (id, start, wake)
        }
        wake?.cancel()
        if start { Task.detached { await self.sweep() } }
        return id
    }

    /// Withdraws a registration whose work finished first; a no-op once it fired.
    package func withdraw(_ id: UInt64) {
        state.withLock { state in
            guard state.pending.removeValue(forKey: id) != nil else { return }
            // Withdrawn entries outnumbering live ones twice over are dropped
            // in one O(n) pass, paid for by the n/2 calls that made them.
            if state.heap.count > 2 * state.pending.count + 64 {
                let pending = state.pending
                state.heap.filter { pending[$0.id] != nil }
            }
        }
    }

    /// Registrations not yet fired or withdrawn, and the heap's size: what
    /// a test holds bounded.
    package var counts: (pending: Int, heap: Int) {
        state.withLock { ($0.pending.count, $0.heap.count) }
    }

    /// Fires what is due, then sleeps until the next live deadline; ends
    /// when none is left (the next ``schedule(at:_:)`` starts it again).
    private func sweep() async {
        while true {
            let now = clock.now
            let (due, next) = state.withLock { state -> ([@Sendable () -> Void], Task<Void, Never>?) in
                var due: [@Sendable () -> Void] = []
                while let top = state.heap.min {
                    if let expire = state.pending[top.id] {
                        guard top.deadline <= now else { break }
                        state.pending[top.id] = nil
                        due.append(expire)
                    }
                    state.heap.popMin()
                }
                guard let top = state.heap.min else {
                    state.sweeping = false
                    state.target = nil
                    state.sleep = nil
                    return (due, nil)
                }
                let clock = self.clock
                let sleep = Task<Void, Never> {
                    _ = try? await clock.sleep(until: top.deadline, tolerance: .milliseconds(1))
                }
                state.target = top.deadline
                state.sleep = sleep
                return (due, sleep)
            }
            for expire in due { expire() }
            guard let next else { return }
            await next.value
        }
    }
}
