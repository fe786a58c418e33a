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

// MARK: - Version 6: every store on the state table and the record log

extension PostgresTables {
    var version6: [String] {
        let layout = StateEntryLayout.self
        return [
            // First, the tables whose rows move: a write an earlier release
            // has in flight commits before the copy reads (and is copied),
            // and a later one waits for this transaction, then meets the
            // triggers below. Without it, what committed between the copy's
            // snapshot and CREATE TRIGGER's lock was lost (a counted
            // failure, an accepted step, a used recovery code). SHARE ROW
            // EXCLUSIVE is what CREATE TRIGGER takes anyway: no upgrade later.
            """
            LOCK TABLE \(verifications), \(replay), \(recoverySets), \(recoveryCodes), \(clockOffsets), \(securityEvents)
            IN SHARE ROW EXCLUSIVE MODE
            """,
            "CREATE TABLE IF NOT EXISTS \(recordLog) (id bigserial PRIMARY KEY, subject text NOT NULL, occurred_at timestamptz NOT NULL, record jsonb NOT NULL)",
            "CREATE INDEX IF NOT EXISTS \(recordLog)_subject ON \(recordLog) (subject, occurred_at DESC, id DESC)",
            "CREATE INDEX IF NOT EXISTS \(recordLog)_occurred_at ON \(recordLog) (occurred_at)",
            // The security events, in the order they were appended.
            """
            INSERT INTO \(recordLog) (subject, occurred_at, record)
            SELECT tenant_id || '/' || uid, occurred_at, event FROM \(securityEvents) WHERE \(unlessRecorded(6)) ORDER BY id
            """,
            // Each key's live run and its later live accepted step (from the
            // combined table and the replay table of separate stores), as
            // one `ExpiringStateTOTPVerificationStore` entry.
            """
            INSERT INTO \(state) (key, value, expires_at)
            SELECT '\(layout.totpKey)' || key_id, convert_to(jsonb_strip_nulls(jsonb_build_object(
                'lastAcceptedStep', last_step, 'stepRetainUntil', \(layout.date("step_expires_at")), 'attempts', attempts))::text, 'UTF8'),
                GREATEST(run_expires_at, step_expires_at)
            FROM (
                SELECT COALESCE(v.key_id, r.key_id) AS key_id, step.last_step, step.step_expires_at,
                    CASE WHEN v.attempts > 0 AND v.attempts_expire_at > now() THEN jsonb_strip_nulls(jsonb_build_object(
                        'failures', v.attempts, 'lockedUntil', \(layout.date("v.locked_until")),
                        'forgetAt', CASE WHEN isfinite(v.attempts_expire_at) THEN \(layout.date("v.attempts_expire_at")) ELSE \(layout.distantFuture) END))
                    END AS attempts,
                    CASE WHEN v.attempts > 0 AND v.attempts_expire_at > now() THEN v.attempts_expire_at END AS run_expires_at
                FROM \(verifications) v FULL OUTER JOIN \(replay) r ON r.key_id = v.key_id
                LEFT JOIN LATERAL (
                    SELECT c.last_step, c.step_expires_at FROM (VALUES (v.last_step, v.step_expires_at), (r.last_step, r.expires_at)) AS c (last_step, step_expires_at)
                    WHERE c.last_step IS NOT NULL AND c.step_expires_at > now() ORDER BY c.last_step DESC, c.step_expires_at DESC LIMIT 1
                ) AS step ON true
            ) AS moved
            WHERE GREATEST(run_expires_at, step_expires_at) > now() AND \(unlessRecorded(6))
            ON CONFLICT (key) DO NOTHING
            """,
            // Each user's recovery-code set with its unused codes, as one
            // `ExpiringStateRecoveryCodeStore` entry (`RecoveryCodeVerifiers`).
            """
            INSERT INTO \(state) (key, value, expires_at)
            SELECT '\(layout.recoveryCodes)' || s.user_id, convert_to(jsonb_build_object(
                'salt', translate(encode(s.salt, 'base64'), E'\\n', ''), 'rounds', s.rounds,
                'digests', COALESCE((SELECT jsonb_agg(translate(encode(c.digest, 'base64'), E'\\n', '') ORDER BY c.digest)
                                     FROM \(recoveryCodes) c WHERE c.user_id = s.user_id), '[]'::jsonb),
                'createdAt', \(layout.date("s.created_at")))::text, 'UTF8'), 'infinity'
            FROM \(recoverySets) s WHERE \(unlessRecorded(6))
            ON CONFLICT (key) DO NOTHING
            """,
            // Each key's live clock offsets, as one `ExpiringStateTOTPClockOffsetStore` entry.
            """
            INSERT INTO \(state) (key, value, expires_at)
            SELECT '\(layout.clockOffsets)' || key_id, convert_to(to_jsonb(offsets)::text, 'UTF8'), expires_at
            FROM \(clockOffsets) WHERE expires_at > now() AND \(unlessRecorded(6))
            ON CONFLICT (key) DO NOTHING
            """,
            // Earlier releases settle through these functions: they now
            // settle in the same state entries, so a rolling deploy's old
            // and new instances count one run per key between them.
            settleFunction(named: settleAttempt, acceptedAnswer: "'accepted'"),
            settleFunction(named: settleAttemptReportingRun, acceptedAnswer: "'accepted:' || failures"),
            // Their other writes to the moved tables are refused (a
            // recovery on an old instance fails closed: a code used there
            // could be used again here); the sweeper's deletes stay allowed.
            """
            CREATE OR REPLACE FUNCTION \(refuseMovedWrite)() RETURNS trigger LANGUAGE plpgsql AS $refuse$
            BEGIN
                RAISE EXCEPTION 'the table % is read-only since schema version 6: its records moved to %', TG_TABLE_NAME, TG_ARGV[0]
                    USING ERRCODE = '55000';
            END
            $refuse$
            """,
            trigger(
                "read_only", on: verifications, "BEFORE INSERT OR UPDATE", "FOR EACH STATEMENT",
                "\(refuseMovedWrite)('\(state)')"),
            trigger(
                "read_only", on: replay, "BEFORE INSERT OR UPDATE", "FOR EACH STATEMENT",
                "\(refuseMovedWrite)('\(state)')"),
            trigger(
                "read_only", on: recoverySets, "BEFORE INSERT OR UPDATE OR DELETE", "FOR EACH STATEMENT",
                "\(refuseMovedWrite)('\(state)')"),
            trigger(
                "read_only", on: recoveryCodes, "BEFORE INSERT OR UPDATE OR DELETE", "FOR EACH STATEMENT",
                "\(refuseMovedWrite)('\(state)')"),
            // An event an earlier release appends goes to the record log instead.
            """
            CREATE OR REPLACE FUNCTION \(forwardSecurityEvent)() RETURNS trigger LANGUAGE plpgsql AS $forward$
            BEGIN
                INSERT INTO \(recordLog) (subject, occurred_at, record) VALUES (NEW.tenant_id || '/' || NEW.uid, NEW.occurred_at, NEW.event);
                RETURN NULL;
            END
            $forward$
            """,
            trigger("forward", on: securityEvents, "BEFORE INSERT", "FOR EACH ROW", "\(forwardSecurityEvent)()"),
        ]
    }

    /// A trigger `name` on `table`, made only when missing (creating one
    /// waits for every lock on the table).
    private func trigger(_ name: String, on table: String, _ timing: String, _ level: String, _ function: String)
        -> String
    {
        """
        DO $trigger$ BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = '\(table)'::regclass AND tgname = '\(table)_\(name)') THEN
            CREATE TRIGGER \(table)_\(name) \(timing) ON \(table) \(level) EXECUTE FUNCTION \(function);
        END IF;
        END $trigger$
        """
    }

    /// A settle function of an earlier release (by its name and answer),
    /// over the key's `ExpiringStateTOTPVerificationStore` entry: the
    /// entry is made if missing (expired at once, so it reads as none) and
    /// locked for the call, so it serializes with the stores' swaps on the
    /// row, which then find the value changed and read it again. It applies
    /// `TOTPAttemptLimit.admit(_:at:)` and the replay rule as the Swift
    /// store does (the PostgreSQL suite runs the shared cases on it).
    /// Arguments: the key, the matched step (NULL when none), the step's
    /// retention end, now (NULL: the database's clock), the limit's
    /// failures per run, its final bound (NULL for a rate limit), its first
    /// and longest lock-out in seconds. Answers `accepted` (`accepted:N`),
    /// `counted:N` (N failures before it), `until:EPOCH` or `locked:N`.
    func settleFunction(named function: String, acceptedAnswer: String) -> String {
        let layout = StateEntryLayout.self
        return """
            CREATE OR REPLACE FUNCTION \(function)(p_key text, p_step bigint, p_step_expires_at timestamptz, p_now timestamptz,
                                                  p_run integer, p_cap integer, p_lockout double precision, p_max_lockout double precision)
            RETURNS text LANGUAGE plpgsql AS $settle$
            DECLARE
                now_ timestamptz := COALESCE(p_now, now());
                entry_key text := '\(layout.totpKey)' || p_key;
                stored bytea;
                live boolean;
                entry jsonb := '{}';
                last_step bigint;
                step_until timestamptz;
                failures integer := 0;
                locked timestamptz;
                forget timestamptz;
            BEGIN
                INSERT INTO \(state) (key, value, expires_at) VALUES (entry_key, convert_to('{}', 'UTF8'), now_) ON CONFLICT (key) DO NOTHING;
                SELECT value, expires_at > now_ INTO stored, live FROM \(state) WHERE key = entry_key FOR UPDATE;
                IF live THEN entry := convert_from(stored, 'UTF8')::jsonb; END IF;
                IF entry ? 'stepRetainUntil' AND \(layout.timestamp("entry ->> 'stepRetainUntil'")) > now_ THEN
                    last_step := (entry ->> 'lastAcceptedStep')::bigint;
                    step_until := \(layout.timestamp("entry ->> 'stepRetainUntil'"));
                END IF;
                IF entry ? 'attempts' AND \(layout.timestamp("entry #>> '{attempts,forgetAt}'")) > now_ THEN
                    failures := (entry #>> '{attempts,failures}')::integer;
                    locked := \(layout.timestamp("entry #>> '{attempts,lockedUntil}'"));
                END IF;
                IF p_cap IS NOT NULL AND failures >= p_cap THEN RETURN 'locked:' || failures; END IF;
                IF locked IS NOT NULL AND locked > now_ THEN RETURN 'until:' || extract(epoch FROM locked); END IF;
                IF p_step IS NOT NULL AND (last_step IS NULL OR last_step < p_step) THEN
                    UPDATE \(state) SET value = convert_to(jsonb_build_object('lastAcceptedStep', p_step,
                        'stepRetainUntil', \(layout.date("p_step_expires_at")))::text, 'UTF8'), expires_at = p_step_expires_at
                    WHERE key = entry_key;
                    RETURN \(acceptedAnswer);
                END IF;
                failures := failures + 1;
                locked := CASE WHEN failures % p_run = 0
                    THEN now_ + make_interval(secs => LEAST(p_lockout * power(2, LEAST(failures / p_run - 1, 62)), p_max_lockout)) END;
                forget := CASE WHEN p_cap IS NULL THEN GREATEST(COALESCE(locked, now_), now_) + make_interval(secs => p_lockout) END;
                UPDATE \(state) SET value = convert_to(jsonb_strip_nulls(jsonb_build_object(
                        'lastAcceptedStep', last_step, 'stepRetainUntil', \(layout.date("step_until")),
                        'attempts', jsonb_strip_nulls(jsonb_build_object('failures', failures, 'lockedUntil', \(layout.date("locked")),
                            'forgetAt', COALESCE(\(layout.date("forget")), \(layout.distantFuture))))))::text, 'UTF8'),
                    expires_at = GREATEST(COALESCE(forget, 'infinity'), step_until)
                WHERE key = entry_key;
                RETURN 'counted:' || (failures - 1);
            END
            $settle$
            """
    }
}
#endif
