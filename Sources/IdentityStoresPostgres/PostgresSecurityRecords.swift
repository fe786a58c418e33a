public import Foundation
public import IdentityOTP
import PostgresNIO
public import ServiceLifecycle
import IdentitySupport

/// `TOTPClockOffsetStore` on PostgreSQL: one row per key with the offsets
/// of its last accepted codes. Made by ``PostgresIdentityStores/clockOffsetStore``.
public struct PostgresTOTPClockOffsetStore: TOTPClockOffsetStore {
    let backend: PostgresStoreBackend

    /// Appends `offset` and keeps the newest `keep`, in one upsert (the
    /// key's row lock orders concurrent calls; a lapsed list starts again).
    public func recordOffset(_ offset: Int, for keyID: String, keep: Int, at now: Date, retainUntil: Date) async throws(PostgresStoreError) -> [Int] {
        let table = backend.tables.clockOffsets
        let now = backend.now(now)
        let offset = Int32(clamping: offset)
        let keep = Int32(clamping: max(1, keep))
        return try await backend.perform("record a TOTP clock offset") { client in
            let rows = try await client.query("""
                INSERT INTO \(unescaped: table) AS row (key_id, offsets, expires_at) VALUES (\(keyID), ARRAY[\(offset)]::integer[], \(retainUntil))
                ON CONFLICT (key_id) DO UPDATE SET
                offsets = (SELECT s.a[GREATEST(1, cardinality(s.a) - \(keep) + 1):] FROM (SELECT CASE
                    WHEN row.expires_at <= COALESCE(\(now), now()) THEN EXCLUDED.offsets ELSE row.offsets || EXCLUDED.offsets END AS a) AS s),
                expires_at = EXCLUDED.expires_at
                RETURNING offsets
                """)
            var offsets: [Int32] = []
            for try await list in rows.decode([Int32].self) { offsets = list }
            return offsets.map(Int.init)
        }
    }

    /// `keyID`'s kept offsets, oldest first.
    public func recentOffsets(for keyID: String, at now: Date) async throws(PostgresStoreError) -> [Int] {
        let table = backend.tables.clockOffsets
        let now = backend.now(now)
        return try await backend.perform("read TOTP clock offsets") { client in
            var offsets: [Int32] = []
            for try await list in try await client.query("""
                SELECT offsets FROM \(unescaped: table) WHERE key_id = \(keyID) AND expires_at > COALESCE(\(now), now())
                """).decode([Int32].self) { offsets = list }
            return offsets.map(Int.init)
        }
    }
}

/// The security-event audit table on PostgreSQL (`SecurityEventLog`):
/// one row per event, appended and never updated; rows leave only through
/// the retention sweep (``removeEvents(before:)``,
/// ``retentionSweeper(keeping:every:)``). Made by
/// ``PostgresIdentityStores/securityEventLog``.
///
/// An event holds ids, times and the request's facts, never a secret
/// (`SecurityEvent`), so the table may be read by support staff.
public struct PostgresSecurityEventLog: SecurityEventLog {
    let backend: PostgresStoreBackend

    /// The one encoding of an event in the table's `event` column.
    private static func encode(_ event: SecurityEvent) throws -> String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(event), as: UTF8.self)
    }

    private static func decode(_ text: String) throws -> SecurityEvent {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return try decoder.decode(SecurityEvent.self, from: Data(text.utf8))
    }

    /// Appends `event` (one `INSERT`). A failure is logged, not thrown:
    /// the operation that raised the event stands.
    public func record(_ event: SecurityEvent) async {
        do {
            try await append(event)
        } catch {
            backend.logger.error("could not append a security event", metadata: ["event": "\(event.kind.rawValue)", "error": "\(error)"])
        }
    }

    /// Appends `event`, throwing when the table cannot take it (for an app
    /// that must know, such as an import).
    public func append(_ event: SecurityEvent) async throws(PostgresStoreError) {
        let table = backend.tables.securityEvents
        let json: String
        do { json = try Self.encode(event) } catch { throw .invalidConfiguration("the event could not be encoded") }
        let tenant = event.user.tenantID ?? ""
        let uid = event.user.uid
        let kind = event.kind.rawValue
        let date = event.date
        try await backend.perform("append a security event") { client in
            try await client.query("""
                INSERT INTO \(unescaped: table) (tenant_id, uid, kind, occurred_at, event) VALUES (\(tenant), \(uid), \(kind), \(date), \(json)::jsonb)
                """)
        }
    }

    /// `user`'s newest events, newest first, at most `limit` (one indexed `SELECT`).
    public func recentEvents(for user: UserKey, limit: Int) async throws(PostgresStoreError) -> [SecurityEvent] {
        let table = backend.tables.securityEvents
        let tenant = user.tenantID ?? ""
        let uid = user.uid
        let limit = max(0, min(limit, 1000))
        return try await backend.perform("read security events") { client in
            var events: [SecurityEvent] = []
            for try await text in try await client.query("""
                SELECT event::text FROM \(unescaped: table) WHERE tenant_id = \(tenant) AND uid = \(uid)
                ORDER BY occurred_at DESC, id DESC LIMIT \(limit)
                """).decode(String.self) {
                guard let event = try? Self.decode(text) else { throw PostgresStoreError.corruptRow("read security events") }
                events.append(event)
            }
            return events
        }
    }

    /// Deletes the events that happened before `cutoff` (the retention sweep).
    @discardableResult
    public func removeEvents(before cutoff: Date) async throws(PostgresStoreError) -> Int {
        let table = backend.tables.securityEvents
        return try await backend.perform("sweep security events") { client in
            var count = 0
            for try await _ in try await client.query("DELETE FROM \(unescaped: table) WHERE occurred_at < \(cutoff) RETURNING 1") { count += 1 }
            return count
        }
    }

    /// A service (for the app's `ServiceGroup`) that removes events older
    /// than `retention` every `interval` until graceful shutdown; a failed
    /// sweep is logged and tried again.
    public func retentionSweeper(keeping retention: Duration = .seconds(400 * 24 * 3600), every interval: Duration = .seconds(3600)) -> PostgresSecurityEventRetention {
        PostgresSecurityEventRetention(log: self, retention: retention, interval: interval)
    }
}

/// ``PostgresSecurityEventLog/retentionSweeper(keeping:every:)`` as a `Service`.
public struct PostgresSecurityEventRetention: Service {
    let log: PostgresSecurityEventLog
    let retention: Duration
    let interval: Duration

    /// Sweeps until graceful shutdown or cancellation (waiting quietly
    /// for `migrate()` at start-up, as ``PostgresIdentityStores/runSweeper(every:)``).
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await log.backend.sweepRepeatedly(every: interval, rows: "security events") {
                try await log.removeEvents(before: Date().addingTimeInterval(-retention.timeInterval))
            }
        }
    }
}
