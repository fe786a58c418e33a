public import Foundation
public import IdentityKeyValueStore

/// A device clock found to be off: the user's recent codes matched this
/// many steps away from the server's present (RFC 6238 §6).
public struct TOTPClockDrift: Sendable, Hashable {
    /// Steps off; positive when the device's clock is ahead.
    public let steps: Int
    /// The same in seconds (steps × the period), for "your phone's clock
    /// is about N seconds off".
    public let seconds: Int

    /// A drift of `steps` steps of `period` seconds.
    public init(steps: Int, period: Int64) {
        self.steps = steps
        seconds = steps * Int(clamping: period)
    }
}

/// How a ``TOTPVerifier`` watches for a wrong device clock
/// (``TOTPVerifier/detectingClockDrift(_:)``): it keeps each key's offsets
/// of its last accepted codes in `store`, and reports a drift once the last
/// ``consistentCodes`` all matched at least ``minimumSteps`` away, on the
/// same side.
///
/// With ``recentresWindow`` the window moves onto that drift (RFC 6238 §6:
/// "resynchronize"), so a phone several steps off keeps working after the
/// user's habit catches it. It is off by default, and bounded: the window
/// keeps its width (no code more is accepted) and never reaches past
/// ``TOTPVerifier/widestWindow`` steps from the server's present.
public struct TOTPClockDriftDetection: Sendable {
    /// Where each key's recent offsets are kept.
    public let store: any TOTPClockOffsetStore
    /// The smallest offset, in steps, that counts as drift: 2 by default
    /// (one step off is a user typing a code as it changes).
    public let minimumSteps: Int
    /// How many accepted codes in a row must agree: 3 by default.
    public let consistentCodes: Int
    /// Whether the window is centred on the recorded drift.
    public let recentresWindow: Bool
    /// How long a key's offsets are kept after its last accepted code.
    public let retention: Duration

    /// - Parameters:
    ///   - store: Where offsets are kept (a shared one for a fleet).
    ///   - minimumSteps: The smallest offset counted as drift, 1 to 10.
    ///   - consistentCodes: Accepted codes in a row that must agree, 1 to 20.
    ///   - recentresWindow: Centre the window on the recorded drift (off by default).
    ///   - retention: How long offsets outlive the last accepted code (90 days).
    /// - Throws: ``OTPError/invalidWindow(_:)`` for `minimumSteps` out of
    ///   range, ``OTPError/invalidAttemptLimit(_:)`` for `consistentCodes` out of range.
    public init(
        store: any TOTPClockOffsetStore, minimumSteps: Int = 2, consistentCodes: Int = 3, recentresWindow: Bool = false,
        retention: Duration = .seconds(90 * 24 * 3600)
    ) throws {
        guard (1...TOTPVerifier.widestWindow).contains(minimumSteps) else { throw OTPError.invalidWindow(minimumSteps) }
        guard (1...20).contains(consistentCodes) else { throw OTPError.invalidAttemptLimit(consistentCodes) }
        self.store = store
        self.minimumSteps = minimumSteps
        self.consistentCodes = consistentCodes
        self.recentresWindow = recentresWindow
        self.retention = retention
    }

    /// The drift, in steps, that `offsets` (oldest first) show: the median
    /// of the last ``consistentCodes`` when each is at least
    /// ``minimumSteps`` away on the same side; nil otherwise. The one home
    /// of the rule.
    public func drift(in offsets: [Int]) -> Int? {
        guard offsets.count >= consistentCodes else { return nil }
        let recent = offsets.suffix(consistentCodes)
        let agree = recent.allSatisfy { $0 >= minimumSteps } || recent.allSatisfy { $0 <= -minimumSteps }
        guard agree else { return nil }
        return recent.sorted()[recent.count / 2]
    }

    /// The centre of a window of `window` steps moved by `drift`, bounded
    /// so that it reaches no further than the widest window from now.
    static func centre(for drift: Int?, window: Int) -> Int {
        guard let drift else { return 0 }
        let reach = TOTPVerifier.widestWindow - window
        return min(max(drift, -reach), reach)
    }
}

/// Keeps, per key, the offsets (in steps, device minus server) of its last
/// accepted codes, for ``TOTPClockDriftDetection``. Offsets are facts about
/// a clock, not secrets. A fleet shares one store (the PostgreSQL one), or
/// each instance sees only its own share of a user's sign-ins. The
/// package's is ``ExpiringStateTOTPClockOffsetStore``.
public protocol TOTPClockOffsetStore: Sendable {
    /// Appends `offset` to `keyID`'s list, keeps the newest `keep`, and
    /// returns them oldest first, atomically.
    /// - Parameters:
    ///   - offset: The accepted code's offset in steps.
    ///   - keyID: Whose key.
    ///   - keep: How many offsets to keep.
    ///   - now: The time of the verification.
    ///   - retainUntil: When the list may be forgotten if nothing is added.
    func recordOffset(_ offset: Int, for keyID: String, keep: Int, at now: Date, retainUntil: Date) async throws
        -> [Int]

    /// `keyID`'s kept offsets, oldest first (empty when none).
    func recentOffsets(for keyID: String, at now: Date) async throws -> [Int]
}

/// A ``TOTPClockOffsetStore`` built on any `ExpiringStateStore`: each
/// key's offsets are one entry (a JSON list), appended to by one atomic
/// read-modify-write (`ExpiringStateStore.updateValue(forKey:at:maxAttempts:_:)`),
/// so two instances' codes for one key never drop each other's offset.
///
/// In memory (``init(capacity:)``, ``ExpiringStateTOTPClockOffsetStore``) a
/// full store forgets the list nearest its expiry: losing an offset list
/// only delays a drift notice.
public struct ExpiringStateTOTPClockOffsetStore: TOTPClockOffsetStore {
    /// Where the lists are kept.
    public let state: any ExpiringStateStore
    /// What each list's key starts with, so one store can hold other state.
    public let keyPrefix: String

    /// Lists kept in `state`.
    /// - Parameters:
    ///   - state: Where the lists are kept: share it between instances.
    ///   - keyPrefix: What each list's key starts with.
    public init(state: any ExpiringStateStore, keyPrefix: String = "totp-clock/") {
        self.state = state
        self.keyPrefix = keyPrefix
    }

    /// Lists in this process's memory, at most `capacity` keys.
    public init(capacity: Int = 100_000) {
        self.init(state: InMemoryExpiringStateStore(capacity: capacity, whenFull: .evictNearestExpiry))
    }

    /// One in-memory store for the whole process.
    public static let shared = ExpiringStateTOTPClockOffsetStore()

    /// Appends `offset` and keeps the newest `keep`, atomically (a lapsed
    /// list starts again).
    public func recordOffset(_ offset: Int, for keyID: String, keep: Int, at now: Date, retainUntil: Date) async throws
        -> [Int]
    {
        try await state.updateValue(forKey: keyPrefix + keyID, at: now) { stored in
            var list = try stored.map { try JSONDecoder().decode([Int].self, from: $0) } ?? []
            list.append(offset)
            if list.count > max(1, keep) { list.removeFirst(list.count - max(1, keep)) }
            return .store(try JSONEncoder().encode(list), expiresAt: retainUntil, result: list)
        }
    }

    /// `keyID`'s kept offsets, oldest first.
    public func recentOffsets(for keyID: String, at now: Date) async throws -> [Int] {
        try await state.value(forKey: keyPrefix + keyID, at: now).map { try JSONDecoder().decode([Int].self, from: $0) }
            ?? []
    }
}
