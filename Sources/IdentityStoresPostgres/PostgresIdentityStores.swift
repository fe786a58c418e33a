public import Foundation
public import Logging
import NIOCore
public import PostgresNIO
public import ServiceLifecycle
import IdentitySupport
public import IdentityKeyValueStore

/// The package's storage on PostgreSQL, for apps that run several
/// instances: its two primitives on one database, so that every
/// instance's stores share one state. A code accepted on one instance is
/// a replay on the next, wrong codes count once across the fleet, a
/// recovery code works once, and a sign-in started on one instance
/// finishes on another.
///
/// ```swift
/// let settings = try PostgresConnectionSettings(url: "postgres://app@db.internal/app?sslmode=verify-full",
///                                               password: ProcessInfo.processInfo.environment["PGPASSWORD"])
/// let client = PostgresClient(configuration: settings.clientConfiguration)
/// // run `client` (client.run(), or in a ServiceGroup), then:
/// let stores = try PostgresIdentityStores(client: client)
/// try await stores.migrate()                       // idempotent; safe from every instance at once
/// let verifier = try TOTPVerifier(totp: totp, store: stores.verificationStore)
/// ```
///
/// It is an `IdentityStorage`: ``stateStore`` (an `ExpiringStateStore`)
/// and ``recordLog`` (an `AppendOnlyRecordLog`). `IdentityOTP` builds its
/// stores on them (`verificationStore`, `recoveryCodeStore`,
/// `clockOffsetStore`, `securityEventLog`), MultiFactorAuth its sessions,
/// IdentityServerState its sealed state; this module knows none of them.
///
/// Each call is one SQL statement (an update of a key that has a row,
/// two; each one's atomicity is argued where it is written), runs under
/// ``queryTimeout``, and throws a
/// ``PostgresStoreError`` — never hangs, never traps — when the server is
/// down, refuses the password or drops the connection. Verification fails
/// closed on such an error.
///
/// The tables, named with ``tablePrefix``: `…state` (every expiring entry,
/// each store under its own key prefix), `…record_log` (append-only; see
/// ``PostgresRecordLog``) and `…schema` (the schema version). Expired
/// entries are removed by ``sweepExpired(now:)``; ``runSweeper(every:)``
/// calls it periodically. The tables of schema versions 1–5
/// (`…totp_verifications`, `…totp_replay`, `…totp_attempts`,
/// `…recovery_sets`, `…recovery_codes`, `…totp_clock_offsets`,
/// `…security_events`) had their rows moved by version 6 and stay,
/// read-only, for instances of earlier releases during a rolling deploy
/// (see ``migrate()``); drop them once none runs.
public struct PostgresIdentityStores: IdentityStorage {
    /// The schema version ``migrate()`` brings the tables to.
    public static let schemaVersion = 6

    let backend: PostgresStoreBackend

    /// Whose clock judges whether a lock-out or a record has lapsed.
    public enum Clock: Sendable, Hashable {
        /// The database server's (`now()`): one clock for the whole fleet,
        /// so an instance whose clock runs ahead cannot end a lock-out early.
        case database
        /// The `now` each call passes: for tests that move time.
        case caller
    }

    /// Stores on `client`'s database.
    /// - Parameters:
    ///   - client: A running `PostgresClient` (the app runs it).
    ///   - tablePrefix: Starts every table's name: 1 to 40 of `a–z 0–9 _`, not starting with a digit.
    ///   - queryTimeout: The longest a store call may take before it throws `timedOut`.
    ///   - clock: Whose clock judges lapses: the database's by default.
    ///   - logger: Where failures are noted (never a bound value).
    /// - Throws: ``PostgresStoreError`` `invalidConfiguration` for a bad prefix or timeout.
    public init(client: PostgresClient, tablePrefix: String = "identity_", queryTimeout: Duration = .seconds(5), clock: Clock = .database,
                logger: Logger = Logger(label: "IdentityStoresPostgres")) throws(PostgresStoreError) {
        guard Self.isValidTablePrefix(tablePrefix) else {
            throw .invalidConfiguration("the table prefix must be 1 to 40 of a-z 0-9 _, not starting with a digit")
        }
        guard queryTimeout > .zero else { throw .invalidConfiguration("the query timeout must be positive") }
        backend = PostgresStoreBackend(client: client, tables: PostgresTables(prefix: tablePrefix), queryTimeout: queryTimeout, clock: clock, logger: logger)
    }

    /// Whether `prefix` can start the tables' names: 1 to 40 of `a–z 0–9 _`,
    /// not starting with a digit (so that it needs no quoting in SQL).
    public static func isValidTablePrefix(_ prefix: String) -> Bool {
        let allowed = prefix.utf8.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "_") }
        return (1...40).contains(prefix.utf8.count) && allowed && !(prefix.first?.isNumber ?? true)
    }

    /// Starts every table's name.
    public var tablePrefix: String { backend.tables.prefix }
    /// The longest a store call may take.
    public var queryTimeout: Duration { backend.queryTimeout }

    /// The shared `ExpiringStateStore`: every store `IdentityOTP` builds
    /// on this storage keeps its entries here. Wrap it in a
    /// `SealingStateStore` to keep values sealed at rest; give it to
    /// MultiFactorAuth's `ExpiringStateAuthSessionStore` for signed-in
    /// users' sessions.
    public var stateStore: PostgresStateStore { PostgresStateStore(backend: backend) }
    /// The append-only audit table: `IdentityOTP`'s `securityEventLog`
    /// keeps its events here.
    public var recordLog: PostgresRecordLog { PostgresRecordLog(backend: backend) }

    /// Creates the tables and indexes that are missing and records the
    /// schema version. Idempotent, and safe when several instances start
    /// at once: it runs in one transaction behind an advisory lock.
    ///
    /// When the recorded version is this one or newer it changes nothing
    /// and takes no table lock: even `CREATE INDEX IF NOT EXISTS` waits
    /// for every open write on its table (and holds up the writes behind
    /// it), so an instance starting beside busy ones would stall them, and
    /// an older instance in a rolling deploy would put back its older
    /// settle function.
    ///
    /// Version 6 moves the rows of the earlier versions' tables into
    /// ``stateStore`` and ``recordLog`` (each attempt run, accepted step,
    /// recovery-code set, clock-offset list and security event), in the
    /// same transaction, so no lock-out or code is lost on upgrade: it locks
    /// those tables before it copies them, so a write an earlier release has
    /// in flight is copied, and a later one waits and is refused. During
    /// a rolling deploy, instances of earlier releases keep settling TOTP
    /// codes in the same entries (their settle functions now work on
    /// them), their security events go to the record log, and their other
    /// writes to the moved tables are refused (SQLSTATE 55000: a recovery
    /// on such an instance fails closed until it is replaced).
    /// - Throws: ``PostgresStoreError``; `queryFailed` with SQLSTATE 42501
    ///   when the role may not create tables.
    public func migrate() async throws(PostgresStoreError) {
        try await migrate(upTo: Self.schemaVersion)
    }

    /// ``migrate()`` to an earlier `version`, as an earlier release left
    /// the database: for the tests of the upgrade.
    package func migrate(upTo version: Int) async throws(PostgresStoreError) {
        let tables = backend.tables
        let logger = backend.logger
        try await backend.perform("migrate") { client in
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(tables.migrationLockID))", logger: logger)
                if try await Self.recordedVersion(tables: tables, on: connection, logger: logger) >= version { return }
                for statement in tables.migration(upTo: version) {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("""
                    INSERT INTO \(unescaped: tables.schema) (version) SELECT \(version)
                    WHERE NOT EXISTS (SELECT 1 FROM \(unescaped: tables.schema) WHERE version >= \(version))
                    """, logger: logger)
            }
        }
    }

    /// The newest version a migration recorded, 0 before the first one.
    /// Any change to ``PostgresTables/migration(upTo:)`` raises ``schemaVersion``,
    /// or databases already migrated never see it.
    private static func recordedVersion(tables: PostgresTables, on connection: PostgresConnection, logger: Logger) async throws -> Int {
        for try await present in try await connection.query("SELECT to_regclass(\(tables.schema)) IS NOT NULL", logger: logger).decode(Bool.self) {
            guard present else { return 0 }
        }
        for try await newest in try await connection.query("SELECT COALESCE(max(version), 0) FROM \(unescaped: tables.schema)", logger: logger)
            .decode(Int.self) {
            return newest
        }
        return 0
    }

    /// Removes every entry whose expiry is at or before now (the database's
    /// clock, or `now` with ``Clock/caller``), and the expired rows left in
    /// the tables version 6 moved from.
    /// - Returns: How many rows were removed.
    @discardableResult
    public func sweepExpired(now: Date = Date()) async throws(PostgresStoreError) -> Int {
        var removed = 0
        let now = backend.now(now)
        let tables = backend.tables
        for table in [tables.state, tables.verifications, tables.replay, tables.attempts, tables.clockOffsets] {
            removed += try await backend.perform("sweep \(table)") { client in
                let rows = try await client.query("DELETE FROM \(unescaped: table) WHERE expires_at <= COALESCE(\(now), now()) RETURNING 1")
                var count = 0
                for try await _ in rows { count += 1 }
                return count
            }
        }
        return removed
    }

    /// Sweeps expired rows every `interval` until the calling task is
    /// cancelled; a failed sweep is logged and tried again next time. In
    /// its first minute it waits quietly for ``migrate()``, which an app
    /// runs at start-up beside it; after that, missing tables are a warning.
    public func runSweeper(every interval: Duration = .seconds(300)) async {
        await backend.sweepRepeatedly(every: interval, rows: "expired rows") { try await sweepExpired() }
    }

    /// The sweeper as a service of the app's `ServiceGroup` (or Hummingbird's
    /// `Application(services:)`): ``runSweeper(every:)`` until graceful
    /// shutdown; list it after the `PostgresClient`, so that it stops first.
    /// - Parameter interval: The time between two sweeps.
    public func sweeper(every interval: Duration = .seconds(300)) -> PostgresStoreSweeper {
        PostgresStoreSweeper(stores: self, interval: interval)
    }

    /// Connects once with `settings` and runs `SELECT 1`, outside any pool,
    /// so that a wrong password or an unreachable server is reported at
    /// start-up as exactly that (a pool retries quietly instead).
    /// - Throws: ``PostgresStoreError`` `unavailable`, `authenticationFailed`,
    ///   `timedOut` or `invalidConfiguration`.
    public static func checkConnection(_ settings: PostgresConnectionSettings, logger: Logger = Logger(label: "IdentityStoresPostgres")) async throws(PostgresStoreError) {
        let configuration = try settings.connectionConfiguration()
        let timeout = settings.connectTimeout + settings.statementTimeout
        do {
            try await Deadline.run(within: timeout) {
                let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
                do {
                    try await connection.query("SELECT 1", logger: logger)
                } catch {
                    try? await connection.close()
                    throw error
                }
                try await connection.close()
            }
        } catch {
            throw PostgresStoreBackend.storeError(error, operation: "connect", timeout: timeout)
        }
    }
}

/// What every store shares: the pool, the table names, the timeout, and
/// the one place where errors become ``PostgresStoreError``.
struct PostgresStoreBackend: Sendable {
    let client: PostgresClient
    let tables: PostgresTables
    let queryTimeout: Duration
    let clock: PostgresIdentityStores.Clock
    let logger: Logger
    /// Whether the tables were seen, shared by every store of one
    /// ``PostgresIdentityStores`` (see ``performPrepared(_:_:)``).
    let tablesSeen = Locked(false)

    /// The `now` a statement binds: nil (then `now()`, the database's
    /// clock) unless the stores judge time by the caller's.
    func now(_ callerNow: Date) -> Date? { clock == .caller ? callerNow : nil }

    /// Runs `body` under the query timeout; every failure becomes a
    /// ``PostgresStoreError``. Timed in `identity_store_seconds` by
    /// `operation` (these fixed phrases) and `outcome` (`ok`, `failed`;
    /// the `Telemetry` trait).
    @discardableResult
    func perform<Value: Sendable>(_ operation: String, _ body: @escaping @Sendable (PostgresClient) async throws -> Value) async throws(PostgresStoreError) -> Value {
        let client = self.client
        let started = ContinuousClock.now
        do {
            let value = try await Deadline.run(within: queryTimeout) { try await body(client) }
            Telemetry.timer(Self.latencyLabel, [("operation", operation), ("outcome", "ok")]).record(ContinuousClock.now - started)
            return value
        } catch {
            Telemetry.timer(Self.latencyLabel, [("operation", operation), ("outcome", "failed")]).record(ContinuousClock.now - started)
            let storeError = Self.storeError(error, operation: operation, timeout: queryTimeout)
            logger.warning("store call failed", metadata: ["operation": "\(operation)", "error": "\(storeError)"])
            throw storeError
        }
    }

    /// ``perform(_:_:)`` for a body that executes prepared statements,
    /// only once the tables are known to be there. postgres-nio keeps a
    /// statement whose preparation failed, with its error, for the life of
    /// the connection: prepared before `migrate()` had made its table (an
    /// instance serving while another migrates), a statement would fail on
    /// that connection ever after. So until the tables have been seen,
    /// each call checks for them first (one small query) and fails as not
    /// migrated without preparing anything; once seen, never again.
    func performPrepared<Value: Sendable>(_ operation: String, _ body: @escaping @Sendable (PostgresClient) async throws -> Value) async throws(PostgresStoreError) -> Value {
        if !tablesSeen.current {
            guard try await isMigrated() else { throw .notMigrated(operation) }
            tablesSeen.withLock { $0 = true }
        }
        return try await perform(operation, body)
    }

    static let latencyLabel = "identity_store_seconds"

    /// The database's clock as last read, on this instance's monotonic clock.
    let databaseClock = Locked<DatabaseClockReading?>(nil)

    /// How long a sweeper waits quietly for the tables at start-up.
    static let migrationWait: Duration = .seconds(60)

    /// Whether ``PostgresIdentityStores/migrate()`` has run: its one
    /// transaction creates every table at once, so the newest one tells.
    func isMigrated() async throws(PostgresStoreError) -> Bool {
        let newest = tables.recordLog
        return try await perform("check the tables") { client in
            for try await present in try await client.query("SELECT to_regclass(\(newest)) IS NOT NULL").decode(Bool.self) {
                return present
            }
            return false
        }
    }

    /// A sweeper's loop: `sweep` every `interval` until the task is
    /// cancelled, each failure logged and tried again at the next turn.
    /// Started with the app, it runs beside `migrate()`: for its first
    /// ``migrationWait`` it checks every second, quietly, until the tables
    /// are there; past that, a missing table is a warning like any failure.
    func sweepRepeatedly(every interval: Duration, rows: String, _ sweep: () async throws -> Int) async {
        let started = ContinuousClock.now
        while !Task.isCancelled {
            if ContinuousClock.now - started < Self.migrationWait, (try? await isMigrated()) == false {
                logger.debug("the tables are not there yet: sweeping once migrate() has made them", metadata: ["rows": "\(rows)"])
                try? await Task.sleep(for: min(interval, .seconds(1)))
                continue
            }
            do {
                let removed = try await sweep()
                if removed > 0 { logger.debug("swept \(rows)", metadata: ["rows": "\(removed)"]) }
            } catch {
                logger.warning("could not sweep \(rows)", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: interval)
        }
    }

    /// The store error for whatever a PostgreSQL call threw.
    static func storeError(_ error: any Error, operation: String, timeout: Duration) -> PostgresStoreError {
        switch error {
        case let error as PostgresStoreError:
            return error
        case is DeadlineExceeded:
            return .timedOut(operation, after: timeout)
        case is CancellationError:
            return .cancelled
        case let error as PSQLError:
            return storeError(error, operation: operation)
        case let error as PostgresTransactionError:
            // The first failure of BEGIN, the body and COMMIT is the cause.
            guard let cause = error.beginError ?? error.closureError ?? error.commitError ?? error.rollbackError else {
                return .unavailable("\(operation): the transaction failed")
            }
            return storeError(cause, operation: operation, timeout: timeout)
        case is PostgresDecodingError:
            return .corruptRow(operation)
        default:
            // ConnectionPoolError (the pool gave up reaching the server),
            // NIO's channel errors, and whatever else keeps the call from
            // the server.
            return .unavailable("\(operation): the server cannot be reached (\(type(of: error)))")
        }
    }

    private static func storeError(_ error: PSQLError, operation: String) -> PostgresStoreError {
        let sqlState = error.serverInfo?[.sqlState]
        switch error.code {
        case .server:
            switch sqlState {
            case "28P01", "28000": return .authenticationFailed(sqlState: sqlState)
            case "42P01": return .notMigrated(operation)
            case "57014": return .statementTimedOut(operation)
            case let state? where state.hasPrefix("08") || state.hasPrefix("57P"):
                // Connection exceptions; the server shutting down or a
                // backend terminated by an administrator.
                return .unavailable("\(operation): the connection ended (SQLSTATE \(state))")
            default: return .queryFailed(operation, sqlState: sqlState)
            }
        case .authMechanismRequiresPassword, .unsupportedAuthMechanism, .saslError:
            return .authenticationFailed(sqlState: sqlState)
        case .queryCancelled:
            return .cancelled
        default:
            return .unavailable("\(operation): the connection failed or ended (\(error.code))")
        }
    }
}

/// ``PostgresIdentityStores/runSweeper(every:)`` as a `Service`, from
/// ``PostgresIdentityStores/sweeper(every:)``.
public struct PostgresStoreSweeper: Service {
    let stores: PostgresIdentityStores
    let interval: Duration

    /// Sweeps every interval until graceful shutdown or cancellation; a
    /// sweep under way is cancelled (rows left for the next run), and the
    /// service returns without an error.
    public func run() async throws {
        await cancelWhenGracefulShutdown { await stores.runSweeper(every: interval) }
    }
}
