#if PostgreSQL
import Foundation

/// The names of the tables and the statements that make them.
///
/// Since schema version 6 the stores use two tables: `…state` (the expiring
/// key-value store every security store is built on) and `…record_log`
/// (the append-only log of security events). The tables of versions 1–5
/// stay, read-only (see ``migration``), for instances of earlier releases
/// during a rolling deploy.
struct PostgresTables: Sendable {
    let prefix: String
    var state: String { prefix + "state" }
    var recordLog: String { prefix + "record_log" }
    var schema: String { prefix + "schema" }

    // Versions 1–5: each store had its own tables.
    var verifications: String { prefix + "totp_verifications" }
    var replay: String { prefix + "totp_replay" }
    var attempts: String { prefix + "totp_attempts" }
    var recoverySets: String { prefix + "recovery_sets" }
    var recoveryCodes: String { prefix + "recovery_codes" }
    var clockOffsets: String { prefix + "totp_clock_offsets" }
    var securityEvents: String { prefix + "security_events" }
    /// The `LISTEN`/`NOTIFY` channel of ``PostgresNotificationChannel`` (no table).
    var notifications: String { prefix + "notifications" }
    /// The settle function that releases 1.x up to schema version 4 call.
    var settleAttempt: String { prefix + "settle_totp_attempt" }
    /// The settle function that releases at schema version 5 call.
    var settleAttemptReportingRun: String { prefix + "settle_totp_attempt_v5" }
    /// Refuses writes to the tables whose records moved (version 6).
    var refuseMovedWrite: String { prefix + "refuse_moved_write" }
    /// Moves an event an earlier release appends into the record log (version 6).
    var forwardSecurityEvent: String { prefix + "forward_security_event" }

    /// One advisory-lock id per prefix, so that two apps with different
    /// prefixes in one database do not wait for each other.
    var migrationLockID: Int64 {
        // FNV-1a over the prefix: stable across processes and releases.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in ("identity-stores-migrate:" + prefix).utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int64(bitPattern: hash)
    }

    /// The statements that bring a database to `version` (1 to
    /// `PostgresIdentityStores.schemaVersion`), each safe to run again: all
    /// of them run, in one transaction, whenever the recorded version is
    /// below the current one. A change here raises the schema version, or
    /// databases already migrated never see it. A statement that moves data
    /// runs only while the recorded version is below the one it belongs to
    /// (``unlessRecorded(_:)``), so it moves each row once.
    func migration(upTo version: Int = PostgresIdentityStores.schemaVersion) -> [String] {
        Self.versions.filter { $0.version <= version }.flatMap { $0.statements(self) }
    }

    /// Each version's statements.
    private static let versions: [(version: Int, statements: @Sendable (PostgresTables) -> [String])] = [
        (
            1,
            { t in
                [
                    "CREATE TABLE IF NOT EXISTS \(t.replay) (key_id text PRIMARY KEY, last_step bigint NOT NULL, expires_at timestamptz NOT NULL)",
                    "CREATE INDEX IF NOT EXISTS \(t.replay)_expires_at ON \(t.replay) (expires_at)",
                    "CREATE TABLE IF NOT EXISTS \(t.attempts) (key_id text PRIMARY KEY, attempts integer NOT NULL, expires_at timestamptz NOT NULL)",
                    "CREATE INDEX IF NOT EXISTS \(t.attempts)_expires_at ON \(t.attempts) (expires_at)",
                    "CREATE TABLE IF NOT EXISTS \(t.state) (key text PRIMARY KEY, value bytea NOT NULL, expires_at timestamptz NOT NULL)",
                    "CREATE INDEX IF NOT EXISTS \(t.state)_expires_at ON \(t.state) (expires_at)",
                ]
            }
        ),
        // Recovery codes: a set's salt and cost; one row per unused code.
        (
            2,
            { t in
                [
                    "CREATE TABLE IF NOT EXISTS \(t.recoverySets) (user_id text PRIMARY KEY, salt bytea NOT NULL, rounds integer NOT NULL, created_at timestamptz NOT NULL)",
                    "CREATE TABLE IF NOT EXISTS \(t.recoveryCodes) (user_id text NOT NULL, digest bytea NOT NULL, PRIMARY KEY (user_id, digest))",
                ]
            }
        ),
        // Counts and accepted steps in one row per key (`expires_at` the
        // later of the two expiries, for the sweeper).
        (
            3,
            { t in
                [
                    """
                    CREATE TABLE IF NOT EXISTS \(t.verifications) (key_id text PRIMARY KEY, attempts integer NOT NULL, attempts_expire_at timestamptz NOT NULL,
                    last_step bigint, step_expires_at timestamptz, expires_at timestamptz NOT NULL)
                    """,
                    "CREATE INDEX IF NOT EXISTS \(t.verifications)_expires_at ON \(t.verifications) (expires_at)",
                ]
            }
        ),
        // Runs of failures with lengthening lock-outs (`locked_until`); the
        // schema table. Only when missing: ALTER TABLE waits for every row
        // lock on the table.
        (
            4,
            { t in
                [
                    """
                    DO $add$ BEGIN
                    IF NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema()
                                   AND table_name = '\(t.verifications)' AND column_name = 'locked_until') THEN
                        ALTER TABLE \(t.verifications) ADD COLUMN locked_until timestamptz;
                    END IF;
                    END $add$
                    """,
                    "DROP FUNCTION IF EXISTS \(t.settleAttempt)(text, bigint, timestamptz, timestamptz, timestamptz, integer)",
                    "CREATE TABLE IF NOT EXISTS \(t.schema) (version integer NOT NULL)",
                ]
            }
        ),
        // Each key's recent clock offsets, the append-only security events.
        (
            5,
            { t in
                [
                    "CREATE TABLE IF NOT EXISTS \(t.clockOffsets) (key_id text PRIMARY KEY, offsets integer[] NOT NULL, expires_at timestamptz NOT NULL)",
                    "CREATE INDEX IF NOT EXISTS \(t.clockOffsets)_expires_at ON \(t.clockOffsets) (expires_at)",
                    """
                    CREATE TABLE IF NOT EXISTS \(t.securityEvents) (id bigserial PRIMARY KEY, tenant_id text NOT NULL, uid text NOT NULL,
                    kind text NOT NULL, occurred_at timestamptz NOT NULL, event jsonb NOT NULL)
                    """,
                    "CREATE INDEX IF NOT EXISTS \(t.securityEvents)_user ON \(t.securityEvents) (tenant_id, uid, occurred_at DESC)",
                    "CREATE INDEX IF NOT EXISTS \(t.securityEvents)_occurred_at ON \(t.securityEvents) (occurred_at)",
                ]
            }
        ),
        (6, { t in t.version6 }),
    ]

    /// `WHERE` (or `AND`) clause of a statement that moves data: true until
    /// `version` is recorded.
    func unlessRecorded(_ version: Int) -> String {
        "NOT EXISTS (SELECT 1 FROM \(schema) WHERE version >= \(version))"
    }
}

#endif
