public import Foundation
public import Logging
import NIOCore
public import PostgresNIO
public import ServiceLifecycle
import IdentitySupport

/// The package's shared stores on PostgreSQL, for apps that run several
/// instances: every instance gives its verifiers and its sign-in flow the
/// same stores, so a code accepted on one instance is a replay on the
/// next, wrong codes count once across the fleet, and a sign-in started on
/// one instance finishes on another.
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
/// Each call is one SQL statement (its atomicity is argued where it is
/// written), runs under ``queryTimeout``, and throws a
/// ``PostgresStoreError`` — never hangs, never traps — when the server is
/// down, refuses the password or drops the connection. Verification fails
/// closed on such an error.
///
/// The tables, named with ``tablePrefix``: `…totp_verifications` (per key,
/// the run of failures with its lock-out and the last accepted step, for
/// ``verificationStore`` and ``attemptStore``), `…totp_replay` (for
/// ``replayStore``), `…totp_attempts` (unused since version 4), `…state`
/// (in-flight state and saved sessions, with expiries), `…recovery_sets`
/// and `…recovery_codes`, `…totp_clock_offsets`, `…security_events` (append-only; see
/// ``PostgresSecurityEventLog``), and `…schema` (the schema version). Expired rows are removed by
/// ``sweepExpired(now:)``; ``runSweeper(every:)`` calls it periodically.
public struct PostgresIdentityStores: Sendable {
    /// The schema version ``migrate()`` brings the tables to.
    public static let schemaVersion = 5

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

    /// The shared `TOTPVerificationStore`: one statement per verification,
    /// the fastest way to verify on a fleet.
    public var verificationStore: PostgresTOTPVerificationStore { PostgresTOTPVerificationStore(backend: backend) }
    /// The shared `TOTPReplayStore`, for a verifier with separate stores.
    public var replayStore: PostgresTOTPReplayStore { PostgresTOTPReplayStore(backend: backend) }
    /// The shared `TOTPAttemptStore`, for a verifier with separate stores
    /// and for `RecoveryCodeRedeemer`.
    public var attemptStore: PostgresTOTPAttemptStore { PostgresTOTPAttemptStore(backend: backend) }
    /// The shared `ExpiringStateStore` for in-flight state. Wrap it in a
    /// `SealingStateStore` to keep its values sealed at rest; give it to
    /// MultiFactorAuth's `ExpiringStateAuthSessionStore` for signed-in
    /// users' sessions.
    public var stateStore: PostgresStateStore { PostgresStateStore(backend: backend) }
    /// Each user's recovery-code verifiers (`RecoveryCodeStore`).
    public var recoveryCodeStore: PostgresRecoveryCodeStore { PostgresRecoveryCodeStore(backend: backend) }
    /// Each key's recent clock offsets (`TOTPClockOffsetStore`), for
    /// `TOTPClockDriftDetection`.
    public var clockOffsetStore: PostgresTOTPClockOffsetStore { PostgresTOTPClockOffsetStore(backend: backend) }
    /// The append-only audit table of security events (`SecurityEventLog`).
    public var securityEventLog: PostgresSecurityEventLog { PostgresSecurityEventLog(backend: backend) }

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
    /// - Throws: ``PostgresStoreError``; `queryFailed` with SQLSTATE 42501
    ///   when the role may not create tables.
    public func migrate() async throws(PostgresStoreError) {
        let tables = backend.tables
        let logger = backend.logger
        let version = Self.schemaVersion
        try await backend.perform("migrate") { client in
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(tables.migrationLockID))", logger: logger)
                if try await Self.recordedVersion(tables: tables, on: connection, logger: logger) >= version { return }
                for statement in tables.migration {
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
    /// Any change to ``PostgresTables/migration`` raises ``schemaVersion``,
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

    /// Removes every row whose expiry is at or before now (the database's
    /// clock, or `now` with ``Clock/caller``).
    /// - Returns: How many rows were removed.
    @discardableResult
    public func sweepExpired(now: Date = Date()) async throws(PostgresStoreError) -> Int {
        var removed = 0
        let now = backend.now(now)
        for table in [backend.tables.verifications, backend.tables.replay, backend.tables.attempts, backend.tables.state, backend.tables.clockOffsets] {
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

/// The names of the tables and the statements that make them.
struct PostgresTables: Sendable {
    let prefix: String
    var verifications: String { prefix + "totp_verifications" }
    /// The function that settles one verification, as schema version 4
    /// made it (answers `accepted` alone): kept for instances of earlier
    /// releases during a rolling deploy.
    var settleAttempt: String { prefix + "settle_totp_attempt" }
    /// The function this release calls: it answers `accepted:N`, with the
    /// failures the run held, so a lock-out's end can be reported.
    var settleAttemptReportingRun: String { prefix + "settle_totp_attempt_v5" }
    var clockOffsets: String { prefix + "totp_clock_offsets" }
    var securityEvents: String { prefix + "security_events" }
    var replay: String { prefix + "totp_replay" }
    var attempts: String { prefix + "totp_attempts" }
    var state: String { prefix + "state" }
    var recoverySets: String { prefix + "recovery_sets" }
    var recoveryCodes: String { prefix + "recovery_codes" }
    var schema: String { prefix + "schema" }

    /// One advisory-lock id per prefix, so that two apps with different
    /// prefixes in one database do not wait for each other.
    var migrationLockID: Int64 {
        // FNV-1a over the prefix: stable across processes and releases.
        var hash: UInt64 = 0xcbf29ce484222325
        for byte in ("identity-stores-migrate:" + prefix).utf8 { hash = (hash ^ UInt64(byte)) &* 0x100000001b3 }
        return Int64(bitPattern: hash)
    }

    /// Every statement of every version, each safe to run again. A change
    /// here raises `PostgresIdentityStores.schemaVersion`: `migrate()`
    /// skips databases at that version.
    var migration: [String] {
        [
            "CREATE TABLE IF NOT EXISTS \(replay) (key_id text PRIMARY KEY, last_step bigint NOT NULL, expires_at timestamptz NOT NULL)",
            "CREATE INDEX IF NOT EXISTS \(replay)_expires_at ON \(replay) (expires_at)",
            "CREATE TABLE IF NOT EXISTS \(attempts) (key_id text PRIMARY KEY, attempts integer NOT NULL, expires_at timestamptz NOT NULL)",
            "CREATE INDEX IF NOT EXISTS \(attempts)_expires_at ON \(attempts) (expires_at)",
            "CREATE TABLE IF NOT EXISTS \(state) (key text PRIMARY KEY, value bytea NOT NULL, expires_at timestamptz NOT NULL)",
            "CREATE INDEX IF NOT EXISTS \(state)_expires_at ON \(state) (expires_at)",
            // Version 2: recovery codes (a set's salt and cost; one row per unused code).
            "CREATE TABLE IF NOT EXISTS \(recoverySets) (user_id text PRIMARY KEY, salt bytea NOT NULL, rounds integer NOT NULL, created_at timestamptz NOT NULL)",
            "CREATE TABLE IF NOT EXISTS \(recoveryCodes) (user_id text NOT NULL, digest bytea NOT NULL, PRIMARY KEY (user_id, digest))",
            // Version 3: counts and accepted steps in one row per key, so that
            // one statement settles a verification. `expires_at` is the later
            // of the two expiries, for the sweeper.
            """
            CREATE TABLE IF NOT EXISTS \(verifications) (key_id text PRIMARY KEY, attempts integer NOT NULL, attempts_expire_at timestamptz NOT NULL,
            last_step bigint, step_expires_at timestamptz, expires_at timestamptz NOT NULL)
            """,
            "CREATE INDEX IF NOT EXISTS \(verifications)_expires_at ON \(verifications) (expires_at)",
            // Version 4: runs of failures that only a success clears, with
            // lock-outs that lengthen (`attempts_expire_at` is when a run
            // may be forgotten: never for a second factor's limit).
            // Only when missing: ALTER TABLE waits for every row lock on the
            // table, so an instance starting beside busy ones would stall.
            """
            DO $add$ BEGIN
            IF NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema()
                           AND table_name = '\(verifications)' AND column_name = 'locked_until') THEN
                ALTER TABLE \(verifications) ADD COLUMN locked_until timestamptz;
            END IF;
            END $add$
            """,
            "DROP FUNCTION IF EXISTS \(settleAttempt)(text, bigint, timestamptz, timestamptz, timestamptz, integer)",
            settleFunction(named: settleAttempt, acceptedAnswer: "'accepted'"),
            "CREATE TABLE IF NOT EXISTS \(schema) (version integer NOT NULL)",
            // Version 5: the settle function that reports the run, each key's
            // recent clock offsets, and the append-only security-event log.
            settleFunction(named: settleAttemptReportingRun, acceptedAnswer: "'accepted:' || failures"),
            "CREATE TABLE IF NOT EXISTS \(clockOffsets) (key_id text PRIMARY KEY, offsets integer[] NOT NULL, expires_at timestamptz NOT NULL)",
            "CREATE INDEX IF NOT EXISTS \(clockOffsets)_expires_at ON \(clockOffsets) (expires_at)",
            """
            CREATE TABLE IF NOT EXISTS \(securityEvents) (id bigserial PRIMARY KEY, tenant_id text NOT NULL, uid text NOT NULL,
            kind text NOT NULL, occurred_at timestamptz NOT NULL, event jsonb NOT NULL)
            """,
            "CREATE INDEX IF NOT EXISTS \(securityEvents)_user ON \(securityEvents) (tenant_id, uid, occurred_at DESC)",
            "CREATE INDEX IF NOT EXISTS \(securityEvents)_occurred_at ON \(securityEvents) (occurred_at)",
        ]
    }
}

extension PostgresTables {
    /// `PostgresTOTPVerificationStore.settleAttempt`'s statement, as a
    /// function so that its plan is kept per session. It applies
    /// `TOTPAttemptLimit.admit(_:at:)` (the rule's home, in OTP; the shared
    /// conformance cases hold this copy to it) to the key's row, locked
    /// for the call: the row is made if missing, then read `FOR UPDATE`, so
    /// concurrent calls on one key serialize and each sees what the last
    /// one committed. Arguments: the key, the matched step (NULL when
    /// none), the step's retention end, now, the limit's failures per run,
    /// its final bound (NULL for a rate limit), its first and longest
    /// lock-out in seconds. Now is the database's clock when `p_now` is
    /// NULL (``PostgresIdentityStores/Clock/database``). It returns `accepted` (`accepted:N` from the
    /// version-5 function, N failures before it), `counted:N` (N failures
    /// before it), `until:EPOCH` or `locked:N`.
    func settleFunction(named function: String, acceptedAnswer: String) -> String {
        """
        CREATE OR REPLACE FUNCTION \(function)(p_key text, p_step bigint, p_step_expires_at timestamptz, p_now timestamptz,
                                                    p_run integer, p_cap integer, p_lockout double precision, p_max_lockout double precision)
        RETURNS text LANGUAGE plpgsql AS $settle$
        DECLARE
            now_ timestamptz := COALESCE(p_now, now());
            r \(verifications)%ROWTYPE;
            failures integer;
            locked timestamptz;
            forget timestamptz;
        BEGIN
            INSERT INTO \(verifications) (key_id, attempts, attempts_expire_at, last_step, step_expires_at, expires_at)
            VALUES (p_key, 0, now_, NULL, NULL, now_) ON CONFLICT (key_id) DO NOTHING;
            SELECT * INTO r FROM \(verifications) WHERE key_id = p_key FOR UPDATE;
            -- A run past its forget time is no run.
            IF r.attempts_expire_at > now_ THEN failures := r.attempts; locked := r.locked_until;
            ELSE failures := 0; locked := NULL; END IF;
            IF p_cap IS NOT NULL AND failures >= p_cap THEN RETURN 'locked:' || failures; END IF;
            IF locked IS NOT NULL AND locked > now_ THEN RETURN 'until:' || extract(epoch FROM locked); END IF;
            IF p_step IS NOT NULL AND (r.last_step IS NULL OR r.step_expires_at <= now_ OR r.last_step < p_step) THEN
                UPDATE \(verifications) SET attempts = 0, attempts_expire_at = now_, locked_until = NULL, last_step = p_step,
                    step_expires_at = p_step_expires_at, expires_at = GREATEST(now_, p_step_expires_at)
                WHERE key_id = p_key;
                RETURN \(acceptedAnswer);
            END IF;
            failures := failures + 1;
            locked := CASE WHEN failures % p_run = 0
                THEN now_ + make_interval(secs => LEAST(p_lockout * power(2, LEAST(failures / p_run - 1, 62)), p_max_lockout)) END;
            forget := CASE WHEN p_cap IS NULL THEN GREATEST(COALESCE(locked, now_), now_) + make_interval(secs => p_lockout)
                ELSE 'infinity'::timestamptz END;
            UPDATE \(verifications) SET attempts = failures, attempts_expire_at = forget, locked_until = locked,
                expires_at = GREATEST(forget, COALESCE(r.step_expires_at, forget))
            WHERE key_id = p_key;
            RETURN 'counted:' || (failures - 1);
        END
        $settle$
        """
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

    /// How long a sweeper waits quietly for the tables at start-up.
    static let migrationWait: Duration = .seconds(60)

    /// Whether ``PostgresIdentityStores/migrate()`` has run: its one
    /// transaction creates every table at once, so the newest one tells.
    func isMigrated() async throws(PostgresStoreError) -> Bool {
        let newest = tables.securityEvents
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
