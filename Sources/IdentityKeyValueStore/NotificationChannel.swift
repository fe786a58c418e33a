import IdentitySupport

/// What a listener of a ``NotificationChannel`` hears.
public enum NotificationChannelEvent: Sendable, Hashable {
    /// The listener is subscribed: every notification published from now on
    /// reaches it. After an ``interrupted(reason:)``, this says the channel
    /// is back (what was published meanwhile is lost).
    case listening
    /// One published payload.
    case notification(String)
    /// The channel is down (the database restarted, the network dropped):
    /// notifications published until the next ``listening`` do not arrive.
    /// The reason names the failure, never a payload.
    case interrupted(reason: String)
}

/// A channel every instance of a fleet hears at once: the package's third
/// storage shape, beside ``ExpiringStateStore`` (state that changes) and
/// ``AppendOnlyRecordLog`` (what must stay as it happened). A payload is a
/// short text (at most ``maximumPayloadBytes`` bytes of UTF-8) that every
/// listener, on every instance and this one too, receives once while it is
/// listening; nothing is kept for a listener that was not. What it carries
/// must therefore be safe to lose: IdentityAdmin's revocation notices drop a
/// cached account state at once, and a lost one leaves it to expire as
/// before.
///
/// ``InMemoryNotificationChannel`` is one process's (tests, a single
/// instance); `IdentityStoresPostgres`' `PostgresNotificationChannel` is the
/// fleet's (`LISTEN`/`NOTIFY`). An app with another store brings its own
/// (Redis pub/sub, say).
public protocol NotificationChannel: Sendable {
    /// Sends `payload` to every listener.
    /// - Throws: When the channel cannot take it (the payload is too long,
    ///   the database is unreachable); nothing was sent.
    func publish(_ payload: String) async throws

    /// Listens until the calling task is cancelled, handing `handle` each
    /// event in order: ``NotificationChannelEvent/listening`` first, then
    /// notifications, and an interruption and a new `listening` each time
    /// the channel drops and comes back (it reconnects by itself). Returns
    /// when the task is cancelled.
    func listen(_ handle: @escaping @Sendable (NotificationChannelEvent) async -> Void) async throws
}

extension NotificationChannel {
    /// The longest payload every channel carries: PostgreSQL's `NOTIFY`
    /// takes less than 8,000 bytes.
    public static var maximumPayloadBytes: Int { 7_999 }
}

/// A payload longer than ``NotificationChannel/maximumPayloadBytes``.
public struct NotificationPayloadTooLong: Error, Sendable, Hashable, CustomStringConvertible {
    /// The payload's length in bytes.
    public let byteCount: Int

    /// Creates the error for a payload of `byteCount` bytes.
    public init(byteCount: Int) { self.byteCount = byteCount }

    /// Names the length and the limit, never the payload.
    public var description: String {
        "a notification of \(byteCount) bytes is longer than the \(InMemoryNotificationChannel.maximumPayloadBytes) a channel carries"
    }
}

/// A ``NotificationChannel`` within one process: every listener of this
/// instance hears every payload published on it.
public final class InMemoryNotificationChannel: NotificationChannel {
    private struct Listeners {
        var next = 0
        var continuations: [Int: AsyncStream<String>.Continuation] = [:]
    }

    private let listeners = Locked(Listeners())

    /// A channel without listeners.
    public init() {}

    /// Hands `payload` to every current listener.
    /// - Throws: ``NotificationPayloadTooLong`` past ``NotificationChannel/maximumPayloadBytes``.
    public func publish(_ payload: String) async throws {
        guard payload.utf8.count <= Self.maximumPayloadBytes else {
            throw NotificationPayloadTooLong(byteCount: payload.utf8.count)
        }
        for continuation in listeners.withLock({ Array($0.continuations.values) }) {
            continuation.yield(payload)
        }
    }

    /// Listens until the task is cancelled; never interrupted.
    public func listen(_ handle: @escaping @Sendable (NotificationChannelEvent) async -> Void) async throws {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        let id = listeners.withLock { listeners in
            defer { listeners.next += 1 }
            listeners.continuations[listeners.next] = continuation
            return listeners.next
        }
        continuation.onTermination = { [listeners] _ in
            _ = listeners.withLock { $0.continuations.removeValue(forKey: id) }
        }
        await handle(.listening)
        for await payload in stream {
            await handle(.notification(payload))
        }
    }
}
