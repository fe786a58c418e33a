import Foundation
import IdentityToolkit

/// The emulator's notion of now: the system clock plus an offset that tests
/// set or advance through `/emulator/v1/clock`, so TOTP windows and token
/// expiry are tested without sleeping.
public final class EmulatorClock: Sendable {
    private struct State {
        var offset: TimeInterval = 0
        var fixed: Date?
    }

    private let state = Locked(State())

    public init() {}

    /// The emulator's current time.
    public var now: Date {
        state.withLock { $0.fixed ?? Date().addingTimeInterval($0.offset) }
    }

    /// Freezes the clock at `date` (it stays there until advanced or released).
    public func set(_ date: Date) {
        state.withLock { $0.fixed = date }
    }

    /// Moves the clock forward (or back, with a negative value).
    public func advance(by seconds: TimeInterval) {
        state.withLock {
            if let current = $0.fixed {
                $0.fixed = current.addingTimeInterval(seconds)
            } else {
                $0.offset += seconds
            }
        }
    }

    /// Lets the clock run with the system clock again.
    public func release() {
        state.withLock { $0 = State() }
    }
}
