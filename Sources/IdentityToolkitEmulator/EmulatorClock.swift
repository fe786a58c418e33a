import Foundation

/// The emulator's notion of now: the system clock plus an offset that tests
/// set or advance through `/emulator/v1/clock`, so TOTP windows and token
/// expiry are tested without sleeping.
public final class EmulatorClock: @unchecked Sendable {
    private let lock = NSLock()
    private var offset: TimeInterval = 0
    private var fixed: Date?

    public init() {}

    /// The emulator's current time.
    public var now: Date {
        lock.withLock { fixed ?? Date().addingTimeInterval(offset) }
    }

    /// Freezes the clock at `date` (it stays there until advanced or released).
    public func set(_ date: Date) {
        lock.withLock { fixed = date }
    }

    /// Moves the clock forward (or back, with a negative value).
    public func advance(by seconds: TimeInterval) {
        lock.withLock {
            if let current = fixed {
                fixed = current.addingTimeInterval(seconds)
            } else {
                offset += seconds
            }
        }
    }

    /// Lets the clock run with the system clock again.
    public func release() {
        lock.withLock {
            fixed = nil
            offset = 0
        }
    }
}
