import Foundation

/// A value behind a lock: the mutable state of the package's `Sendable`
/// classes. Package-visible, not public API. It is `Sendable` only when the
/// value is: a lock makes access exclusive, not a non-`Sendable` value safe
/// to hand to another thread.
package final class Locked<Value> {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    package var current: Value { withLock { $0 } }
}

extension Locked: @unchecked Sendable where Value: Sendable {}
