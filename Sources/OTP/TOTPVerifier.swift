/// Remembers, per key, the last time step whose code was accepted.
///
/// Implementations must make ``recordAcceptedStep(_:for:)`` atomic, so that
/// two concurrent verifications of one code cannot both succeed.
public protocol TOTPReplayStore: Sendable {
    /// Records `step` for `keyID` if it is later than the last recorded step.
    /// - Returns: false when `step` is not later (the code is a replay).
    func recordAcceptedStep(_ step: UInt64, for keyID: String) async throws -> Bool
}

/// An in-memory ``TOTPReplayStore``; an actor, so safe under concurrency.
public actor InMemoryTOTPReplayStore: TOTPReplayStore {
    private var lastAccepted: [String: UInt64] = [:]

    public init() {}

    public func recordAcceptedStep(_ step: UInt64, for keyID: String) -> Bool {
        if TOTPVerifier.isReplay(step, lastAcceptedStep: lastAccepted[keyID]) { return false }
        lastAccepted[keyID] = step
        return true
    }

    /// The last accepted step of `keyID`, if any.
    public func lastAcceptedStep(for keyID: String) -> UInt64? { lastAccepted[keyID] }
}

/// Verifies TOTP codes with a window and replay protection (RFC 6238 §5.2):
/// once a code is accepted, no code of that step or an earlier one is
/// accepted again for the same key.
public struct TOTPVerifier: Sendable {
    /// The outcome of one verification.
    public enum Result: Sendable, Hashable {
        /// The code matches `step` and was not used before.
        case accepted(step: UInt64)
        /// The code matches `step`, but that step (or a later one) was already used.
        case replayed(step: UInt64)
        /// The code matches no step in the window.
        case invalid
    }

    public let totp: TOTP
    /// Steps accepted on either side of now (Identity Platform's `adjacentIntervals`).
    public let window: Int
    /// Where accepted steps are remembered.
    public let store: any TOTPReplayStore

    /// - Throws: ``OTPError/invalidWindow(_:)`` outside 0…10.
    public init(totp: TOTP, window: Int = 5, store: any TOTPReplayStore = InMemoryTOTPReplayStore()) throws {
        guard (0...10).contains(window) else { throw OTPError.invalidWindow(window) }
        self.totp = totp
        self.window = window
        self.store = store
    }

    /// Verifies `code` for the key named `keyID` at `unixTime`.
    public func verify(_ code: String, keyID: String, at unixTime: Int64) async throws -> Result {
        guard let step = try totp.matchingStep(for: code, at: unixTime, window: window) else { return .invalid }
        return try await store.recordAcceptedStep(step, for: keyID) ? .accepted(step: step) : .replayed(step: step)
    }

    /// The same verification for a caller that keeps each key's last
    /// accepted step itself, such as a server's account store: it must
    /// record the step of an `.accepted` result atomically with this check
    /// (inside one actor method or database transaction), or two concurrent
    /// requests could both use one code. The emulator verifies this way.
    /// - Throws: ``OTPError/invalidWindow(_:)`` outside 0…10, or a time before 1970.
    public static func check(_ code: String, totp: TOTP, window: Int, at unixTime: Int64, lastAcceptedStep: UInt64?) throws -> Result {
        guard let step = try totp.matchingStep(for: code, at: unixTime, window: window) else { return .invalid }
        return isReplay(step, lastAcceptedStep: lastAcceptedStep) ? .replayed(step: step) : .accepted(step: step)
    }

    /// RFC 6238 §5.2: a step at or before the last accepted one is a replay.
    public static func isReplay(_ step: UInt64, lastAcceptedStep: UInt64?) -> Bool {
        guard let lastAcceptedStep else { return false }
        return step <= lastAcceptedStep
    }
}
