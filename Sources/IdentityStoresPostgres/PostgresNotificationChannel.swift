#if PostgreSQL
public import IdentityKeyValueStore
import Logging
import PostgresNIO
import IdentitySupport

/// `NotificationChannel` on PostgreSQL: `NOTIFY` sends (through the pool,
/// under the query timeout), and each listener holds one connection of the
/// pool in `LISTEN` on the channel `<prefix>notifications`. When that
/// connection drops (the database restarts, a failover), the listener hears
/// `NotificationChannelEvent.interrupted(reason:)`, reconnects with a
/// backoff (0.1 s doubling to 5 s) and hears `listening` again. Made by
/// ``PostgresIdentityStores/notificationChannel``; it needs no table, so no
/// migration.
public struct PostgresNotificationChannel: NotificationChannel {
    let backend: PostgresStoreBackend

    /// The channel's name, `<prefix>notifications`.
    public var name: String { backend.tables.notifications }

    /// Sends `payload` with `pg_notify` (delivered when the statement's
    /// implicit transaction commits, to every session listening).
    /// - Throws: `NotificationPayloadTooLong`, or ``PostgresStoreError``.
    public func publish(_ payload: String) async throws {
        guard payload.utf8.count <= Self.maximumPayloadBytes else {
            throw NotificationPayloadTooLong(byteCount: payload.utf8.count)
        }
        let name = self.name
        try await backend.perform("notify") { client in
            try await client.query("SELECT pg_notify(\(name), \(payload))")
        }
    }

    /// Listens on one pooled connection until the task is cancelled,
    /// reconnecting after each interruption.
    public func listen(_ handle: @escaping @Sendable (NotificationChannelEvent) async -> Void) async throws {
        let (name, client, logger) = (self.name, backend.client, backend.logger)
        var backoff = Self.firstBackoff
        while !Task.isCancelled {
            var heard = false
            let reason: String
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: name) { notifications in
                        heard = true
                        backoff = Self.firstBackoff
                        await handle(.listening)
                        for try await notification in notifications {
                            await handle(.notification(notification.payload))
                        }
                    }
                }
                reason = "the listening connection closed"
            } catch {
                // PostgresStoreError names the failure (SQLSTATE, connection) without a query's values.
                let storeError = PostgresStoreBackend.storeError(error, operation: "listen", timeout: .zero)
                reason = LogSafeText.escaping("\(storeError)", limit: 200)
            }
            if Task.isCancelled { return }
            if heard { await handle(.interrupted(reason: reason)) }
            logger.debug("notification channel reconnecting", metadata: ["channel": "\(name)", "reason": "\(reason)"])
            try? await Task.sleep(for: backoff)
            backoff = min(backoff * 2, Self.longestBackoff)
        }
    }

    static let firstBackoff: Duration = .milliseconds(100)
    static let longestBackoff: Duration = .seconds(5)
}
#endif
