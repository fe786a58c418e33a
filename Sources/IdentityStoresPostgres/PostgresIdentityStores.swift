#if PostgreSQL
public import Foundation
public import Logging
import NIOCore
public import PostgresNIO
import ServiceLifecycle
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
    public init(
        client: PostgresClient, tablePrefix: String = "identity_", queryTimeout: Duration = .seconds(5),
        clock: Clock = .database,
        logger: Logger = Logger(label: "IdentityStoresPostgres")
    ) throws(PostgresStoreError) {
        guard Self.isValidTablePrefix(tablePrefix) else {
            throw .invalidConfiguration("the table prefix must be 1 to 40 of a-z 0-9 _, not starting with a digit")
        }
        guard queryTimeout > .zero else { throw .invalidConfiguration("the query timeout must be positive") }
        backend = PostgresStoreBackend(
            client: client, tables: PostgresTables(prefix: tablePrefix), queryTimeout: queryTimeout, clock: clock,
            logger: logger)
    }

    /// Whether `prefix` can start the tables' names: 1 to 40 of `a–z 0–9 _`,
    /// not starting with a digit (so that it needs no quoting in SQL).
    public static func isValidTablePrefix(_ prefix: String) -> Bool {
        let allowed = prefix.utf8.allSatisfy {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "_")
        }
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

    /// The channel every instance on this database (and prefix) hears,
    /// `LISTEN`/`NOTIFY` on `<prefix>notifications`.
    public var notificationChannel: PostgresNotificationChannel { PostgresNotificationChannel(backend: backend) }

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
                try await connection.query(
                    "SELECT pg_advisory_xact_lock(\(tables.migrationLockID))", logger: logger)
                if try await Self.recordedVersion(tables: tables, on: connection, logger: logger) >= version {
                    return
                }
                for statement in tables.migration(upTo: version) {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    """
                    INSERT INTO \(unescaped: tables.schema) (version) SELECT \(version)
                    WHERE NOT EXISTS (SELECT 1 FROM \(unescaped: tables.schema) WHERE version >= \(version))
                    """, logger: logger)
            }
        }
    }

    /// The newest version a migration recorded, 0 before the first one.
    /// Any change to ``PostgresTables/migration(upTo:)`` raises ``schemaVersion``,
    /// or databases already migrated never see it.
    private static func recordedVersion(tables: PostgresTables, on connection: PostgresConnection, logger: Logger)
        async throws -> Int
    {
        for try await present in try await connection.query(
            "SELECT to_regclass(\(tables.schema)) IS NOT NULL", logger: logger
        ).decode(Bool.self) {
            guard present else { return 0 }
        }
        for try await newest in try await connection.query(
            "SELECT COALESCE(max(version), 0) FROM \(unescaped: tables.schema)", logger: logger
        )
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
                let rows = try await client.query(
                    "DELETE FROM \(unescaped: table) WHERE expires_at <= COALESCE(\(now), now()) RETURNING 1")
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
    public static func checkConnection(
        _ settings: PostgresConnectionSettings, logger: Logger = Logger(label: "IdentityStoresPostgres")
    ) async throws(PostgresStoreError) {
        let configuration = try settings.connectionConfiguration()
        let timeout = settings.connectTimeout + settings.statementTimeout
        do {
            try await Deadline.run(within: timeout) {
                let connection = try await PostgresConnection.connect(
                    configuration: configuration, id: 1, logger: logger)
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
#endif
