#if PostgreSQL
import Foundation

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
