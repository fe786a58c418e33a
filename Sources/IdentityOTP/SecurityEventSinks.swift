public import Foundation
public import IdentityKeyValueStore
import IdentitySupport
public import Logging

// Where security events go: sinks, the process-wide system, and the log a "recent security activity" page reads.

/// Where security events go. Recording never throws: a sink that cannot
/// keep an event (a database down) logs that itself, because the security
/// operation that raised the event (a sign-in refused, a recovery) must not
/// fail or be undone for it.
public protocol SecurityEventSink: Sendable {
    /// Keeps or forwards `event`.
    func record(_ event: SecurityEvent) async
}

/// A sink that also answers "what happened to this account lately", for a
/// "recent security activity" page: ``AppendOnlySecurityEventLog``, in one
/// process's memory or on PostgreSQL's record log for a fleet.
public protocol SecurityEventLog: SecurityEventSink {
    /// `user`'s newest events, newest first, at most `limit`.
    func recentEvents(for user: UserKey, limit: Int) async throws -> [SecurityEvent]
    /// Forgets events that happened before `cutoff` (the retention sweep).
    /// - Returns: How many were removed.
    func removeEvents(before cutoff: Date) async throws -> Int
}

/// Writes each event as one swift-log line at `notice` (the default sink),
/// with the event's metadata (``SecurityEvent/logMetadata``).
public struct LoggingSecurityEventSink: SecurityEventSink {
    /// Where the lines go.
    public let logger: Logger
    /// Their level.
    public let level: Logger.Level

    /// A sink writing to `logger` at `level`.
    public init(logger: Logger = Logger(label: "IdentityOTP.SecurityEvents"), level: Logger.Level = .notice) {
        self.logger = logger
        self.level = level
    }

    /// Writes `event`'s line.
    public func record(_ event: SecurityEvent) async {
        logger.log(level: level, "security event", metadata: event.logMetadata)
    }
}

/// Calls the app's closure with each event (to mail a "was this you?"
/// notice, to feed a queue).
public struct SecurityEventHandler: SecurityEventSink {
    private let handler: @Sendable (SecurityEvent) async -> Void

    /// A sink calling `handler` with each event.
    public init(_ handler: @escaping @Sendable (SecurityEvent) async -> Void) { self.handler = handler }

    /// Calls the closure.
    public func record(_ event: SecurityEvent) async { await handler(event) }
}

/// Hands each event to several sinks, in order (a log and an audit table,
/// say).
public struct MultiplexSecurityEventSink: SecurityEventSink {
    /// The sinks, in the order they are called.
    public let sinks: [any SecurityEventSink]

    /// A sink forwarding to each of `sinks`.
    public init(_ sinks: [any SecurityEventSink]) { self.sinks = sinks }

    /// Records `event` in each sink.
    public func record(_ event: SecurityEvent) async {
        for sink in sinks { await sink.record(event) }
    }
}

/// The process's security-event sink, set up once at start as swift-log's
/// `LoggingSystem` is: the package's components record to it, so no
/// initializer has to carry a sink. Until bootstrapped it logs each event
/// (``LoggingSecurityEventSink``).
///
/// ```swift
/// SecurityEventSystem.bootstrap(MultiplexSecurityEventSink([
///     LoggingSecurityEventSink(), stores.securityEventLog, SecurityEventHandler { await outbox.notify($0) },
/// ]))
/// ```
///
/// ``withSink(_:isolation:_:)`` routes one task's events elsewhere (a test, a tenant's
/// own sink) without touching the process's.
public enum SecurityEventSystem {
    private static let bootstrapped = Locked<any SecurityEventSink>(LoggingSecurityEventSink())
    @TaskLocal private static var taskSink: (any SecurityEventSink)?

    /// Makes `sink` the process's sink (a later call replaces it).
    public static func bootstrap(_ sink: any SecurityEventSink) {
        bootstrapped.withLock { $0 = sink }
    }

    /// The sink events recorded now go to: the task's, else the process's.
    public static var sink: any SecurityEventSink { taskSink ?? bootstrapped.current }

    /// Runs `operation` with its events (and those of the tasks it starts)
    /// going to `sink`.
    public static func withSink<Result>(
        _ sink: any SecurityEventSink, isolation: isolated (any Actor)? = #isolation,
        _ operation: () async throws -> Result
    ) async rethrows -> Result {
        try await $taskSink.withValue(sink, operation: operation, isolation: isolation)
    }

    /// Records `event` in the current sink, with the current request's
    /// facts (``SecurityEventContext/current``) when it has none.
    public static func record(_ event: SecurityEvent) async {
        var event = event
        if event.context == nil { event.context = SecurityEventContext.current }
        Telemetry.counter("security_events_total", [("kind", event.kind.rawValue)]).increment()
        await sink.record(event)
    }
}

/// A ``SecurityEventLog`` on any `AppendOnlyRecordLog`: each event is one
/// record under its user's ``UserKey/storeKey``, as JSON (dates in
/// milliseconds since 1970, keys sorted), so that a database keeps a
/// queryable audit trail (`record->>'kind'` on PostgreSQL). Appending reads
/// nothing, so events for one user never contend, however fast they come.
///
/// In memory (``init(eventsPerUser:users:)``, ``AppendOnlySecurityEventLog``)
/// it keeps each user's newest events, for a bounded number of users.
public struct AppendOnlySecurityEventLog: SecurityEventLog {
    /// Where the events are kept.
    public let records: any AppendOnlyRecordLog
    /// Where a failure to keep an event is noted (its kind, never its facts).
    public let logger: Logger

    /// Events kept in `records`.
    /// - Parameters:
    ///   - records: The log: share it between instances.
    ///   - logger: Where a failed append is noted.
    public init(records: any AppendOnlyRecordLog, logger: Logger = Logger(label: "IdentityOTP.SecurityEvents")) {
        self.records = records
        self.logger = logger
    }

    /// Events in this process's memory: each user's newest `eventsPerUser`,
    /// for at most `users` users (the one recorded least recently is forgotten first).
    public init(eventsPerUser: Int = 100, users: Int = 100_000) {
        self.init(records: InMemoryAppendOnlyRecordLog(recordsPerSubject: eventsPerUser, subjects: users))
    }

    /// The one encoding of an event as a record.
    static func encode(_ event: SecurityEvent) throws -> Data {
        let encoder = CanonicalJSON.encoder
        encoder.dateEncodingStrategy = .millisecondsSince1970
        return try encoder.encode(event)
    }

    static func decode(_ record: Data) throws -> SecurityEvent {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return try decoder.decode(SecurityEvent.self, from: record)
    }

    /// Appends `event`. A failure is logged, not thrown: the operation
    /// that raised the event stands.
    public func record(_ event: SecurityEvent) async {
        do {
            try await append(event)
        } catch {
            logger.error(
                "could not append a security event", metadata: ["event": "\(event.kind.rawValue)", "error": "\(error)"])
        }
    }

    /// Appends `event`, throwing when the log cannot take it (for an app
    /// that must know, such as an import).
    public func append(_ event: SecurityEvent) async throws {
        try await records.append(try Self.encode(event), subject: event.user.storeKey, at: event.date)
    }

    /// `user`'s newest events, newest first, at most `limit` (up to 1,000).
    /// - Throws: The log's errors, or a decoding error for a record that is
    ///   not an event.
    public func recentEvents(for user: UserKey, limit: Int) async throws -> [SecurityEvent] {
        try await records.records(for: user.storeKey, limit: max(0, min(limit, 1000))).map(Self.decode)
    }

    /// Removes the events that happened before `cutoff` (the retention sweep).
    public func removeEvents(before cutoff: Date) async throws -> Int {
        try await records.removeRecords(before: cutoff)
    }
}
