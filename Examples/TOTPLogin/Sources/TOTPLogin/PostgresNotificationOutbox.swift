import Foundation
import Logging
import PostgresNIO
import TOTPLoginApp

/// The outbox as a table every instance shares (`totplogin_outbox`): one
/// row per notification, `sent_at` set by the mail worker that sends it.
struct PostgresNotificationOutbox: NotificationOutbox {
    let client: PostgresClient
    let logger: Logger

    /// Creates the table when missing (idempotent; every instance runs it at start).
    func migrate() async throws {
        try await client.query(
            """
            CREATE TABLE IF NOT EXISTS totplogin_outbox (id bigserial PRIMARY KEY, recipient text NOT NULL, uid text NOT NULL,
            kind text NOT NULL, subject text NOT NULL, body text NOT NULL, created_at timestamptz NOT NULL, sent_at timestamptz)
            """, logger: logger)
    }

    func enqueue(_ notification: OutboxNotification) async throws {
        try await client.query(
            """
            INSERT INTO totplogin_outbox (recipient, uid, kind, subject, body, created_at)
            VALUES (\(notification.recipient), \(notification.uid), \(notification.kind), \(notification.subject), \(notification.body), \(notification.createdAt))
            """, logger: logger)
    }

    func pending(limit: Int) async throws -> [OutboxNotification] {
        let rows = try await client.query(
            """
            SELECT recipient, uid, kind, subject, body, created_at FROM totplogin_outbox WHERE sent_at IS NULL ORDER BY id LIMIT \(max(0, limit))
            """, logger: logger)
        var found: [OutboxNotification] = []
        for try await (recipient, uid, kind, subject, body, createdAt) in rows.decode(
            (String, String, String, String, String, Date).self)
        {
            found.append(
                OutboxNotification(
                    recipient: recipient, uid: uid, kind: kind, subject: subject, body: body, createdAt: createdAt))
        }
        return found
    }
}
