#if PostgreSQL
import Foundation
import Logging
import NIOCore
import PostgresNIO
import IdentitySupport
import IdentityKeyValueStore

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
    func perform<Value: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (PostgresClient) async throws -> Value
    ) async throws(PostgresStoreError) -> Value {
        let client = self.client
        let started = ContinuousClock.now
        do {
            let value = try await Deadline.run(within: queryTimeout) { try await body(client) }
            Telemetry.timer(Self.latencyLabel, [("operation", operation), ("outcome", "ok")]).record(
                ContinuousClock.now - started)
            return value
        } catch {
            Telemetry.timer(Self.latencyLabel, [("operation", operation), ("outcome", "failed")]).record(
                ContinuousClock.now - started)
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
    func performPrepared<Value: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (PostgresClient) async throws -> Value
    ) async throws(PostgresStoreError) -> Value {
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
            for try await present in try await client.query("SELECT to_regclass(\(newest)) IS NOT NULL").decode(
                Bool.self)
            {
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
                logger.debug(
                    "the tables are not there yet: sweeping once migrate() has made them",
                    metadata: ["rows": "\(rows)"])
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
            guard let cause = error.beginError ?? error.closureError ?? error.commitError ?? error.rollbackError
            else {
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
#endif
