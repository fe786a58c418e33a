#if Emulator
public import Foundation
import IdentityToolkit
import IdentitySupport

/// The emulator's notion of now: the system clock plus an offset that tests
/// set or advance through `/emulator/v1/clock`, so TOTP windows and token
/// expiry are tested without sleeping.
public final class EmulatorClock: Sendable {
    private struct State {
        var offset: TimeInterval = 0
        var fixed: Date?
    }

    private let state = Locked(State())

    /// A clock that runs with the system clock.
    public init() {}

    /// The emulator's current time.
    public var now: Date {
        state.withLock { $0.fixed ?? Date().addingTimeInterval($0.offset) }
    }

    /// Freezes the clock at `date` (it stays there until advanced or
    /// released), limited to ``validRange``.
    public func set(_ date: Date) {
        let clamped = min(max(date, Self.validRange.lowerBound), Self.validRange.upperBound)
        state.withLock { $0.fixed = clamped }
    }

    /// The times the clock can show: 1970 to the end of 9999, so that every
    /// conversion to whole seconds or milliseconds (Int64) is exact and safe.
    public static let validRange = Date(timeIntervalSince1970: 0)...Date(timeIntervalSince1970: 253_402_300_799.999)
    /// ``validRange`` in milliseconds since 1970.
    public static let validRangeMillis: ClosedRange<Int64> = 0...253_402_300_799_999
    /// The largest single move of ``advance(by:)``: about 8,000 years.
    public static let maximumStep: TimeInterval = 253_402_300_799

    /// Moves the clock forward (or back, with a negative value).
    /// - Returns: false, leaving the clock where it was, when `seconds` is
    ///   not finite or the clock would leave ``validRange``.
    @discardableResult
    public func advance(by seconds: TimeInterval) -> Bool {
        guard seconds.isFinite else { return false }
        return state.withLock {
            let current = $0.fixed ?? Date().addingTimeInterval($0.offset)
            guard Self.validRange.contains(current.addingTimeInterval(seconds)) else { return false }
            if $0.fixed != nil {
                $0.fixed = current.addingTimeInterval(seconds)
            } else {
                $0.offset += seconds
            }
            return true
        }
    }

    /// Whether the clock differs from the system clock (set or advanced).
    public var isAdjusted: Bool {
        state.withLock { $0.fixed != nil || $0.offset != 0 }
    }

    /// Lets the clock run with the system clock again.
    public func release() {
        state.withLock { $0 = State() }
    }
}
#endif
