#if PostgreSQL
public import Foundation
public import IdentityKeyValueStore
import PostgresNIO
public import ServiceLifecycle
import IdentitySupport

/// `AppendOnlyRecordLog` on PostgreSQL: one row per record (its subject,
/// date and JSON as `jsonb`), appended and never updated; rows leave only
/// through the retention sweep (``removeRecords(before:)``,
/// ``retentionSweeper(keeping:every:)``). Made by
/// ``PostgresIdentityStores/recordLog``; `IdentityOTP`'s security-event log
/// keeps its events here, so the table is an audit trail support staff can
/// query (`record->>'kind'`); an event holds ids, times and the request's
/// facts, never a secret.
public struct PostgresRecordLog: AppendOnlyRecordLog {
    let backend: PostgresStoreBackend

    /// Appends `record` (one `INSERT`; nothing is read, so appends never wait on each other).
    /// - Throws: ``PostgresStoreError``; `invalidConfiguration` when the
    ///   bytes are not UTF-8, `queryFailed` (SQLSTATE 22P02) when they are not JSON.
    public func append(_ record: Data, subject: String, at date: Date) async throws(PostgresStoreError) {
        let table = backend.tables.recordLog
        guard let json = String(data: record, encoding: .utf8) else {
            throw .invalidConfiguration("a record must be the UTF-8 text of a JSON value")
        }
        try await backend.perform("append a record") { client in
            try await client.query(
                "INSERT INTO \(unescaped: table) (subject, occurred_at, record) VALUES (\(subject), \(date), \(json)::jsonb)"
            )
        }
    }

    /// `subject`'s newest records, newest first, at most `limit` (one indexed `SELECT`).
    public func records(for subject: String, limit: Int) async throws(PostgresStoreError) -> [Data] {
        let table = backend.tables.recordLog
        let limit = max(0, limit)
        return try await backend.perform("read records") { client in
            var records: [Data] = []
            for try await text in try await client.query(
                """
                SELECT record::text FROM \(unescaped: table) WHERE subject = \(subject) ORDER BY occurred_at DESC, id DESC LIMIT \(limit)
                """
            ).decode(String.self) {
                records.append(Data(text.utf8))
            }
            return records
        }
    }

    /// Deletes the records dated before `cutoff` (the retention sweep).
    @discardableResult
    public func removeRecords(before cutoff: Date) async throws(PostgresStoreError) -> Int {
        let table = backend.tables.recordLog
        return try await backend.perform("sweep records") { client in
            var count = 0
            for try await removed in try await client.query(
                """
                WITH removed AS (DELETE FROM \(unescaped: table) WHERE occurred_at < \(cutoff) RETURNING 1) SELECT count(*) FROM removed
                """
            ).decode(Int.self) { count = removed }
            return count
        }
    }

    /// A service (for the app's `ServiceGroup`) that removes records older
    /// than `retention` every `interval` until graceful shutdown; a failed
    /// sweep is logged and tried again.
    /// - Parameters:
    ///   - retention: How long a record is kept: 400 days by default.
    ///   - interval: The time between two sweeps.
    public func retentionSweeper(
        keeping retention: Duration = .seconds(400 * 24 * 3600), every interval: Duration = .seconds(3600)
    ) -> PostgresRecordLogRetention {
        PostgresRecordLogRetention(log: self, retention: retention, interval: interval)
    }
}

/// ``PostgresRecordLog/retentionSweeper(keeping:every:)`` as a `Service`.
public struct PostgresRecordLogRetention: Service {
    let log: PostgresRecordLog
    let retention: Duration
    let interval: Duration

    /// Sweeps until graceful shutdown or cancellation (waiting quietly
    /// for `migrate()` at start-up, as ``PostgresIdentityStores/runSweeper(every:)``).
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await log.backend.sweepRepeatedly(every: interval, rows: "records") {
                try await log.removeRecords(before: Date().addingTimeInterval(-retention.timeInterval))
            }
        }
    }
}
#endif
