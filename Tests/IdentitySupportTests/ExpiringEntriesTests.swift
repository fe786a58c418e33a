import Foundation
import IdentitySupport
import Testing

/// The bounded, expiring entries of the in-memory stores and caches, and
/// the min-heap under them and the deadline sweeper.
@Suite struct ExpiringEntriesTests {
    /// The one min-heap (expiring stores, the deadline sweeper): whatever
    /// order elements come in, they leave least first; a filter keeps the heap.
    @Test func theMinHeapPopsInOrder() {
        var generator = SystemRandomNumberGenerator()
        for count in [0, 1, 2, 3, 17, 1_000] {
            let values = (0..<count).map { _ in Int.random(in: -50...50, using: &generator) }
            var pushed = MinHeap<Int>()
            for value in values { pushed.push(value) }
            var built = MinHeap(values)
            var fromPushes: [Int] = []
            var fromBuild: [Int] = []
            while let least = pushed.popMin() { fromPushes.append(least) }
            while let least = built.popMin() { fromBuild.append(least) }
            #expect(fromPushes == values.sorted() && fromBuild == values.sorted())
            var filtered = MinHeap(values)
            filtered.filter { $0 % 2 == 0 }
            var evens: [Int] = []
            while let least = filtered.popMin() { evens.append(least) }
            #expect(evens == values.filter { $0 % 2 == 0 }.sorted())
        }
    }

    /// A full store's bookkeeping costs a constant per write: compacting
    /// the expiry order every 1024 writes walked every live key each time
    /// (5 million positions here, and 20 ms pauses at 400,000 keys).
    @Test func aFullStoresWritesCostAConstantEach() {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        var entries = ExpiringEntries<String, Int>(capacity: 50_000)
        let writes = 150_000
        for index in 0..<writes {
            entries.set(index, for: "k\(index)", expiresAt: start.addingTimeInterval(3600), now: start)
        }
        #expect(entries.count == 50_000)
        #expect(entries.value(for: "k\(writes - 1)", at: start) == writes - 1)
        #expect(entries.value(for: "k0", at: start) == nil)
        #expect(
            entries.compactedPositions <= 3 * writes,
            "walked \(entries.compactedPositions) positions for \(writes) writes")
        // Rewriting one key leaves stale positions, which are dropped too.
        var rewritten = ExpiringEntries<String, Int>(capacity: 10)
        for index in 0..<100_000 {
            rewritten.set(index, for: "one", expiresAt: start.addingTimeInterval(Double(index)), now: start)
        }
        #expect(rewritten.value(for: "one", at: start) == 99_999)
        #expect(rewritten.compactedPositions <= 3 * 100_000)
    }
}
