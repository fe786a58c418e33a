public import Foundation
public import IdentityKeyValueStore
import IdentitySupport
public import Logging

/// A user of a project or of one of its tenants: whose factor, codes and
/// events a record is. Its ``storeKey`` is the one way the package names a
/// user in the shared stores, so that equal uids of two tenants (or of a
/// tenant and the project) never share a count, a code or an event.
public struct UserKey: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The user's id.
    public let uid: String
    /// Their tenant; nil for the project's own users.
    public let tenantID: String?

    /// The user `uid` of `tenantID` (nil: the project's own users).
    public init(uid: String, tenantID: String? = nil) {
        self.uid = uid
        self.tenantID = tenantID
    }

    /// The key of the user's records in the stores: the tenant, `/`, the
    /// uid. Tenant ids hold no `/`, so the first one ends the tenant.
    public var storeKey: String { "\(tenantID ?? "")/\(uid)" }

    /// The uid and tenant (ids, not secrets), made safe to log.
    public var description: String {
        tenantID.map { "\(LogSafeText.escaping($0))/\(LogSafeText.escaping(uid))" } ?? LogSafeText.escaping(uid)
    }
}

/// One thing that happened to the security of a user's account: a factor
/// enrolled or withdrawn, a code refused, a lock-out, a recovery, sessions
/// ended, a phone's clock noticed to be off.
///
/// The package records these where it sees them (``TOTPVerifier``,
/// `AccountRecovery`, `BaseAuth`'s session and factor calls) through
/// ``SecurityEventSystem``; an app records what only it sees (a factor
/// enrolled through its own pages) the same way. An event carries ids,
/// times and the request's facts (``SecurityEventContext``), **never** a
/// code, a key, a token, a password or an email address, so any sink
/// (a log, a table, a mail queue) may keep it.
public struct SecurityEvent: Sendable, Hashable, Codable {
    /// What happened. A struct of constants rather than an enum, so that
    /// later versions can add kinds without breaking an app's `switch`.
    public struct Kind: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        /// The kind's stable name, as sinks store it (`factor_enrolled`, …).
        public let rawValue: String

        /// The kind named `rawValue` (as a sink stored it).
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A second factor was enrolled.
        public static let factorEnrolled = Kind(rawValue: "factor_enrolled")
        /// A second factor was withdrawn (``SecurityEvent/initiatedBy`` says by whom).
        public static let factorWithdrawn = Kind(rawValue: "factor_withdrawn")
        /// A code (TOTP or recovery) matched nothing.
        public static let codeRefused = Kind(rawValue: "code_refused")
        /// A TOTP code was used a second time.
        public static let replayRefused = Kind(rawValue: "replay_refused")
        /// A run of failures locked the factor (``SecurityEvent/lockedUntil``;
        /// nil when it stays locked until cleared).
        public static let lockoutBegan = Kind(rawValue: "lockout_began")
        /// A lock-out was lifted: by a success after it lapsed, or by a clear
        /// (a recovery, an administrator).
        public static let lockoutEnded = Kind(rawValue: "lockout_ended")
        /// A recovery code was redeemed (``SecurityEvent/remainingCodes`` left).
        public static let recoveryCodeRedeemed = Kind(rawValue: "recovery_code_redeemed")
        /// A new set of recovery codes replaced the old one.
        public static let recoveryCodesIssued = Kind(rawValue: "recovery_codes_issued")
        /// Every session of the user was ended.
        public static let sessionsRevoked = Kind(rawValue: "sessions_revoked")
        /// The user's codes keep matching a few steps off: their device's
        /// clock is wrong (``SecurityEvent/clockOffsetSeconds``).
        public static let clockDriftNoticed = Kind(rawValue: "clock_drift_noticed")

        /// The raw name.
        public var description: String { rawValue }
    }

    /// Who caused an event.
    public enum Initiator: String, Sendable, Hashable, Codable {
        /// The user, signed in.
        case user
        /// An administrator or support (the admin API, `mfa admin`).
        case admin
        /// The account-recovery path (a recovery code).
        case recovery
    }

    /// What happened.
    public var kind: Kind
    /// To whom.
    public var user: UserKey
    /// When.
    public var date: Date
    /// Who caused it, where that is known.
    public var initiatedBy: Initiator?
    /// The factor concerned: its enrollment id (`mfaEnrollmentId`), or the
    /// store key of a verifier's key; nil when the event is about the account.
    public var factorID: String?
    /// The kind of factor or code: Firebase's factor id (``totpFactorKind``,
    /// `phone`) or ``recoveryCodeFactorKind``.
    public var factorKind: String?

    /// ``factorKind`` of a TOTP factor: Firebase's factor id.
    public static let totpFactorKind = "totp"
    /// ``factorKind`` of a recovery code.
    public static let recoveryCodeFactorKind = "recovery_code"
    /// The request it happened in, where the app or a middleware set one
    /// (``SecurityEventContext``).
    public var context: SecurityEventContext?
    /// For ``Kind/lockoutBegan``: until when; nil for the final lock.
    public var lockedUntil: Date?
    /// For ``Kind/lockoutBegan``: the failures in a row so far.
    public var consecutiveFailures: Int?
    /// For recovery codes: the unused codes left, or issued.
    public var remainingCodes: Int?
    /// For ``Kind/clockDriftNoticed``: how far the device's clock seems to
    /// be off, in seconds (positive: ahead).
    public var clockOffsetSeconds: Int?

    /// An event of `kind` for `user` at `date`; the other facts are set as
    /// properties. ``context`` is filled in from ``SecurityEventContext/current``
    /// when the event is recorded, if left nil.
    public init(
        _ kind: Kind, user: UserKey, date: Date = Date(), initiatedBy: Initiator? = nil, factorID: String? = nil,
        factorKind: String? = nil
    ) {
        self.kind = kind
        self.user = user
        self.date = date
        self.initiatedBy = initiatedBy
        self.factorID = factorID
        self.factorKind = factorKind
    }

    /// The event as log metadata: ids, counts and times, each made safe to log.
    public var logMetadata: Logger.Metadata {
        var metadata: Logger.Metadata = ["event": "\(kind.rawValue)", "uid": "\(LogSafeText.escaping(user.uid))"]
        if let tenantID = user.tenantID { metadata["tenant"] = "\(LogSafeText.escaping(tenantID))" }
        if let initiatedBy { metadata["initiatedBy"] = "\(initiatedBy.rawValue)" }
        if let factorID { metadata["factor"] = "\(LogSafeText.escaping(factorID))" }
        if let factorKind { metadata["factorKind"] = "\(LogSafeText.escaping(factorKind))" }
        if let lockedUntil { metadata["lockedUntil"] = "\(Int(lockedUntil.timeIntervalSince1970))" }
        if let consecutiveFailures { metadata["failures"] = "\(consecutiveFailures)" }
        if let remainingCodes { metadata["remainingCodes"] = "\(remainingCodes)" }
        if let clockOffsetSeconds { metadata["clockOffsetSeconds"] = "\(clockOffsetSeconds)" }
        if let requestID = context?.requestID { metadata["requestID"] = "\(LogSafeText.escaping(requestID))" }
        if let clientAddress = context?.clientAddress { metadata["client"] = "\(LogSafeText.escaping(clientAddress))" }
        if let userAgent = context?.userAgent { metadata["userAgent"] = "\(LogSafeText.escaping(userAgent))" }
        return metadata
    }
}

/// The facts of the request an event happened in: set by the Hummingbird
/// and Vapor middlewares of IdentityAdmin for the requests they pass on, or
/// by the app around its own calls. Each value is cut to
/// ``maximumLength`` characters, so a hostile header cannot bloat a sink.
public struct SecurityEventContext: Sendable, Hashable, Codable {
    /// The request's id (a framework's id, or `X-Request-Id`).
    public var requestID: String?
    /// The client's address, as the app trusts it (behind a load balancer:
    /// the forwarded address the balancer vouches for).
    public var clientAddress: String?
    /// The client's `User-Agent`.
    public var userAgent: String?

    /// The most characters kept of each value.
    public static let maximumLength = 256

    /// The facts of one request; each is cut to ``maximumLength``.
    public init(requestID: String? = nil, clientAddress: String? = nil, userAgent: String? = nil) {
        self.requestID = requestID.map { String($0.prefix(Self.maximumLength)) }
        self.clientAddress = clientAddress.map { String($0.prefix(Self.maximumLength)) }
        self.userAgent = userAgent.map { String($0.prefix(Self.maximumLength)) }
    }

    @TaskLocal private static var stored: SecurityEventContext?

    /// The context of the request the current task serves, if set.
    public static var current: SecurityEventContext? { stored }

    /// Runs `operation` with `context` as the current request's (for it and
    /// every task it starts).
    public static func withValue<Result>(
        _ context: SecurityEventContext, isolation: isolated (any Actor)? = #isolation,
        _ operation: () async throws -> Result
    ) async rethrows -> Result {
        try await $stored.withValue(context, operation: operation, isolation: isolation)
    }
}

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
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.outputFormatting = .sortedKeys
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
