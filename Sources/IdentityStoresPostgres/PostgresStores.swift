public import Foundation
public import IdentityServerState
public import MultiFactorAuth
public import OTP
import PostgresNIO

/// `TOTPVerificationStore` on PostgreSQL: one row per key holding its
/// attempt count (with the lock-out end) and its last accepted step, so
/// that one statement settles a verification. Made by
/// ``PostgresIdentityStores/verificationStore``.
public struct PostgresTOTPVerificationStore: TOTPVerificationStore {
    let backend: PostgresStoreBackend

    /// Counts the attempt unless the key is at `limit` and, when
    /// `matchedStep` is later than the last accepted step, records it and
    /// clears the count, in one statement: a call of the SQL function that
    /// ``PostgresIdentityStores/migrate()`` creates
    /// (`…settle_totp_attempt`), whose one `INSERT … ON CONFLICT DO UPDATE`
    /// is written beside the tables' statements. A function, because
    /// PostgreSQL keeps its statement's plan for the session: the
    /// statement is parsed and planned once per connection instead of on
    /// every call, which is most of the server's work for it.
    ///
    /// Why it is atomic: concurrent settlements of one key serialize on its
    /// row lock (`INSERT … ON CONFLICT DO UPDATE` inserts or locks the
    /// row), and each evaluates the limit and the replay rule against the
    /// version the previous one committed — so no more than `limit`
    /// attempts are ever counted and one step is accepted once.
    public func settleAttempt(for keyID: String, matchedStep: UInt64?, limit: Int, at now: Date, attemptsExpireAt: Date,
                              retainUntil: Date) async throws(PostgresStoreError) -> TOTPAttemptSettlement {
        guard limit >= 1 else { return .refused }
        let function = backend.tables.settleAttempt
        let step: Int64? = matchedStep.map { Int64(clamping: $0) }
        let stepExpiresAt: Date? = matchedStep == nil ? nil : retainUntil
        let limit = Int32(clamping: limit)
        let call = SettleAttemptCall(keyID: keyID, step: step, attemptsExpireAt: attemptsExpireAt, stepExpiresAt: stepExpiresAt, now: now, limit: limit)
        return try await backend.perform("settle a TOTP attempt") { client in
            try await SettleAttemptCall.$function.withValue(function) {
                var settlement = TOTPAttemptSettlement.refused
                for try await accepted in try await client.execute(call) {
                    settlement = accepted.map { $0 ? .accepted : .counted } ?? .refused
                }
                return settlement
            }
        }
    }

    /// Records `step` for `keyID` unless a live step at or after it is
    /// recorded (one upsert; the count is left as it is).
    public func recordAcceptedStep(_ step: UInt64, for keyID: String, at now: Date, retainUntil: Date) async throws(PostgresStoreError) -> Bool {
        let table = backend.tables.verifications
        let step = Int64(clamping: step)
        return try await backend.perform("record an accepted TOTP step") { client in
            let rows = try await client.query("""
                INSERT INTO \(unescaped: table) AS row (key_id, attempts, attempts_expire_at, last_step, step_expires_at, expires_at)
                VALUES (\(keyID), 0, \(now), \(step), \(retainUntil), \(retainUntil))
                ON CONFLICT (key_id) DO UPDATE SET last_step = EXCLUDED.last_step, step_expires_at = EXCLUDED.step_expires_at,
                expires_at = GREATEST(row.attempts_expire_at, EXCLUDED.step_expires_at)
                WHERE row.last_step IS NULL OR row.step_expires_at <= \(now) OR row.last_step < EXCLUDED.last_step
                RETURNING 1
                """)
            var recorded = false
            for try await _ in rows { recorded = true }
            return recorded
        }
    }

    /// Counts an attempt unless `keyID` is at `limit` (a settlement with no matched step).
    public func recordAttempt(for keyID: String, limit: Int, at now: Date, expiresAt: Date) async throws(PostgresStoreError) -> Bool {
        try await settleAttempt(for: keyID, matchedStep: nil, limit: limit, at: now, attemptsExpireAt: expiresAt, retainUntil: expiresAt) != .refused
    }

    /// Forgets `keyID`'s count; its last accepted step stays (one `UPDATE`).
    public func clearAttempts(for keyID: String) async throws(PostgresStoreError) {
        let table = backend.tables.verifications
        try await backend.perform("clear TOTP attempts") { client in
            try await client.query("UPDATE \(unescaped: table) SET attempts = 0 WHERE key_id = \(keyID)")
        }
    }
}

/// The call of the settle function (`PostgresTables.settleFunction`) as a
/// prepared statement, so that each connection parses and plans it once
/// (with `pgbench`, 20 clients: 5,700 calls/s prepared beside 4,240 sent
/// unnamed, on one core of this 2-core VM).
///
/// postgres-nio names a prepared statement by its type, with a `static`
/// name and SQL, but the function's name carries the table prefix, which
/// is chosen at run time. So the two are read from ``function``, a
/// task-local that `settleAttempt` binds around the call: postgres-nio
/// reads them in the calling task when it builds the request. Each prefix
/// gets its own statement name. Unbound, the SQL is refused by the server
/// (a syntax error becomes `queryFailed`), never run against other tables.
/// The parameters' types are the function's: the server resolves them from
/// its signature, so they are not written here a second time.
struct SettleAttemptCall: PostgresPreparedStatement {
    /// The settle function of the store making the call (prefix included).
    @TaskLocal static var function = ""

    static var name: String { "identity-settle-totp-attempt:" + function }
    static var sql: String { "SELECT \(function)($1, $2, $3, $4, $5, $6)" }

    typealias Row = Bool?

    let keyID: String
    let step: Int64?
    let attemptsExpireAt: Date
    let stepExpiresAt: Date?
    let now: Date
    let limit: Int32

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 6)
        bindings.append(keyID)
        bindings.append(step)
        bindings.append(attemptsExpireAt)
        bindings.append(stepExpiresAt)
        bindings.append(now)
        bindings.append(limit)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Bool? {
        try row.decode(Bool?.self)
    }
}

/// `TOTPReplayStore` on PostgreSQL: one row per key with its last
/// accepted step. Made by ``PostgresIdentityStores/replayStore``.
public struct PostgresTOTPReplayStore: TOTPReplayStore {
    let backend: PostgresStoreBackend

    /// Records `step` for `keyID` unless it is not later than the last one
    /// recorded (and still retained), in one statement:
    ///
    /// ```sql
    /// INSERT … VALUES (key, step, retain) ON CONFLICT (key_id) DO UPDATE SET …
    ///   WHERE row.last_step < step OR row.expires_at <= now RETURNING 1
    /// ```
    ///
    /// Why it is atomic: `INSERT … ON CONFLICT DO UPDATE` guarantees an
    /// insert or an update for each proposed row, even under concurrency. Of
    /// concurrent recordings of one key, the first inserts (or locks the
    /// existing row); the others wait on that row's lock and then evaluate
    /// the `WHERE` against the committed new version, so for one step
    /// exactly one statement returns a row: the code is accepted once.
    public func recordAcceptedStep(_ step: UInt64, for keyID: String, at now: Date, retainUntil: Date) async throws(PostgresStoreError) -> Bool {
        let table = backend.tables.replay
        let step = Int64(clamping: step)
        return try await backend.perform("record an accepted TOTP step") { client in
            let rows = try await client.query("""
                INSERT INTO \(unescaped: table) AS row (key_id, last_step, expires_at) VALUES (\(keyID), \(step), \(retainUntil))
                ON CONFLICT (key_id) DO UPDATE SET last_step = EXCLUDED.last_step, expires_at = EXCLUDED.expires_at
                WHERE row.last_step < EXCLUDED.last_step OR row.expires_at <= \(now)
                RETURNING 1
                """)
            var recorded = false
            for try await _ in rows { recorded = true }
            return recorded
        }
    }
}

/// `TOTPAttemptStore` on PostgreSQL: one row per key with its count and
/// the end of its lock-out. Made by ``PostgresIdentityStores/attemptStore``.
public struct PostgresTOTPAttemptStore: TOTPAttemptStore {
    let backend: PostgresStoreBackend

    /// Counts an attempt for `keyID` unless it already had `limit`, in one statement:
    ///
    /// ```sql
    /// INSERT … VALUES (key, 1, expires) ON CONFLICT (key_id) DO UPDATE
    ///   SET attempts = CASE WHEN row.expires_at <= now THEN 1 ELSE row.attempts + 1 END, …
    ///   WHERE row.expires_at <= now OR row.attempts < limit RETURNING 1
    /// ```
    ///
    /// Why it is atomic: as for the replay store, concurrent attempts on
    /// one key serialize on its row lock and each sees the count the
    /// previous one committed, so no more than `limit` are ever counted —
    /// and the count is taken before the code is checked.
    public func recordAttempt(for keyID: String, limit: Int, at now: Date, expiresAt: Date) async throws(PostgresStoreError) -> Bool {
        guard limit >= 1 else { return false }
        let table = backend.tables.attempts
        let limit = Int32(clamping: limit)
        return try await backend.perform("count a TOTP attempt") { client in
            let rows = try await client.query("""
                INSERT INTO \(unescaped: table) AS row (key_id, attempts, expires_at) VALUES (\(keyID), 1, \(expiresAt))
                ON CONFLICT (key_id) DO UPDATE
                SET attempts = CASE WHEN row.expires_at <= \(now) THEN 1 ELSE row.attempts + 1 END, expires_at = EXCLUDED.expires_at
                WHERE row.expires_at <= \(now) OR row.attempts < \(limit)
                RETURNING 1
                """)
            var counted = false
            for try await _ in rows { counted = true }
            return counted
        }
    }

    /// Forgets `keyID`'s count (one `DELETE`).
    public func clearAttempts(for keyID: String) async throws(PostgresStoreError) {
        let table = backend.tables.attempts
        try await backend.perform("clear TOTP attempts") { client in
            try await client.query("DELETE FROM \(unescaped: table) WHERE key_id = \(keyID)")
        }
    }

    /// The attempts counted for `keyID` at `now` (0 when none or lapsed).
    public func attempts(for keyID: String, at now: Date = Date()) async throws(PostgresStoreError) -> Int {
        let table = backend.tables.attempts
        return try await backend.perform("read TOTP attempts") { client in
            let rows = try await client.query("SELECT attempts FROM \(unescaped: table) WHERE key_id = \(keyID) AND expires_at > \(now)")
            var count = 0
            for try await attempts in rows.decode(Int32.self) { count = Int(attempts) }
            return count
        }
    }
}

/// `ExpiringStateStore` on PostgreSQL: one row per key with its bytes
/// and expiry. Made by ``PostgresIdentityStores/stateStore``.
public struct PostgresStateStore: ExpiringStateStore {
    let backend: PostgresStoreBackend

    /// Keeps `value` under `key` until `expiresAt` (one upsert).
    public func setValue(_ value: Data, forKey key: String, expiresAt: Date) async throws(PostgresStoreError) {
        let table = backend.tables.state
        try await backend.perform("keep state") { client in
            try await client.query("""
                INSERT INTO \(unescaped: table) (key, value, expires_at) VALUES (\(key), \(value), \(expiresAt))
                ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, expires_at = EXCLUDED.expires_at
                """)
        }
    }

    /// The value under `key`, unless absent or expired by `now`.
    public func value(forKey key: String, at now: Date) async throws(PostgresStoreError) -> Data? {
        let table = backend.tables.state
        return try await backend.perform("read state") { client in
            let rows = try await client.query("SELECT value FROM \(unescaped: table) WHERE key = \(key) AND expires_at > \(now)")
            var value: Data?
            for try await bytes in rows.decode(Data.self) { value = bytes }
            return value
        }
    }

    /// The value under `key`, removed in the same statement
    /// (`DELETE … RETURNING`: of concurrent takers, the one whose delete
    /// wins the row lock gets it, the others find no row).
    public func takeValue(forKey key: String, at now: Date) async throws(PostgresStoreError) -> Data? {
        let table = backend.tables.state
        return try await backend.perform("take state") { client in
            let rows = try await client.query("DELETE FROM \(unescaped: table) WHERE key = \(key) RETURNING value, expires_at")
            var value: Data?
            for try await (bytes, expiresAt) in rows.decode((Data, Date).self) where expiresAt > now { value = bytes }
            return value
        }
    }

    /// Forgets the value under `key` (one `DELETE`).
    public func removeValue(forKey key: String) async throws(PostgresStoreError) {
        let table = backend.tables.state
        try await backend.perform("remove state") { client in
            try await client.query("DELETE FROM \(unescaped: table) WHERE key = \(key)")
        }
    }
}

/// `AuthSessionStore` on PostgreSQL: signed-in users' sessions in the
/// state table, under `auth-session/` keys, each lasting ``lifetime``
/// after its last save, sealed at rest when a codec is given. Made by
/// ``PostgresIdentityStores/authSessionStore(lifetime:sealing:)``; give
/// each browser or user a scope of its own with
/// `store.scoped(to: browserID)`.
public struct PostgresAuthSessionStore: AuthSessionStore {
    /// A saved session is gone when it was not saved again for this long.
    public let lifetime: Duration
    private let state: any ExpiringStateStore

    init(state: PostgresStateStore, lifetime: Duration, sealing: SealedStateCodec?) {
        self.lifetime = lifetime
        self.state = sealing.map { SealingStateStore(base: state, codec: $0) } ?? state
    }

    /// Saves `session` under `key`.
    public func save(_ session: AuthSession, key: String) async throws {
        let seconds = Double(lifetime.components.seconds) + Double(lifetime.components.attoseconds) / 1e18
        try await state.set(session, forKey: Self.prefix + key, expiresAt: Date().addingTimeInterval(seconds))
    }

    /// The session saved under `key`, or nil.
    public func load(key: String) async throws -> AuthSession? {
        try await state.get(AuthSession.self, forKey: Self.prefix + key)
    }

    /// Forgets the session saved under `key`.
    public func remove(key: String) async throws {
        try await state.removeValue(forKey: Self.prefix + key)
    }

    static let prefix = "auth-session/"
}

/// `RecoveryCodeStore` on PostgreSQL: a row per set (its salt and cost)
/// and a row per unused code's digest. Made by
/// ``PostgresIdentityStores/recoveryCodeStore``.
///
/// Consuming a code is one `DELETE … RETURNING` on its row: of two
/// instances redeeming the same code at once, the second waits on the
/// first's row lock and then finds no row, so exactly one succeeds.
public struct PostgresRecoveryCodeStore: RecoveryCodeStore {
    let backend: PostgresStoreBackend

    /// Replaces the user's set whole, in one transaction.
    public func replaceCodes(_ verifiers: RecoveryCodeVerifiers, for userID: String) async throws(PostgresStoreError) {
        let (sets, codes) = (backend.tables.recoverySets, backend.tables.recoveryCodes)
        let logger = backend.logger
        try await backend.perform("replace recovery codes") { client in
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query("DELETE FROM \(unescaped: codes) WHERE user_id = \(userID)", logger: logger)
                try await connection.query("""
                    INSERT INTO \(unescaped: sets) (user_id, salt, rounds, created_at)
                    VALUES (\(userID), \(verifiers.salt), \(verifiers.rounds), \(verifiers.createdAt))
                    ON CONFLICT (user_id) DO UPDATE SET salt = EXCLUDED.salt, rounds = EXCLUDED.rounds, created_at = EXCLUDED.created_at
                    """, logger: logger)
                for digest in verifiers.digests {
                    try await connection.query("""
                        INSERT INTO \(unescaped: codes) (user_id, digest) VALUES (\(userID), \(digest)) ON CONFLICT DO NOTHING
                        """, logger: logger)
                }
            }
        }
    }

    /// The user's set with its unused codes' digests, nil when there is none.
    public func verifiers(for userID: String) async throws(PostgresStoreError) -> RecoveryCodeVerifiers? {
        let (sets, codes) = (backend.tables.recoverySets, backend.tables.recoveryCodes)
        return try await backend.perform("read recovery codes") { client in
            var set: (Data, Int, Date)?
            for try await row in try await client.query("SELECT salt, rounds, created_at FROM \(unescaped: sets) WHERE user_id = \(userID)")
                .decode((Data, Int, Date).self) { set = row }
            guard let (salt, rounds, createdAt) = set else { return nil }
            var digests: [Data] = []
            for try await digest in try await client.query("SELECT digest FROM \(unescaped: codes) WHERE user_id = \(userID)").decode(Data.self) {
                digests.append(digest)
            }
            return RecoveryCodeVerifiers(salt: salt, rounds: rounds, digests: digests, createdAt: createdAt)
        }
    }

    /// Deletes the code's row; the count in `RETURNING` reads the rows as
    /// they were before the statement, hence the minus one.
    public func consumeCode(withDigest digest: Data, for userID: String) async throws(PostgresStoreError) -> Int? {
        let codes = backend.tables.recoveryCodes
        return try await backend.perform("consume a recovery code") { client in
            let rows = try await client.query("""
                DELETE FROM \(unescaped: codes) WHERE user_id = \(userID) AND digest = \(digest)
                RETURNING (SELECT count(*) FROM \(unescaped: codes) WHERE user_id = \(userID)) - 1
                """)
            var remaining: Int?
            for try await count in rows.decode(Int.self) { remaining = count }
            return remaining
        }
    }

    /// Forgets the user's set and codes.
    public func removeCodes(for userID: String) async throws(PostgresStoreError) {
        let (sets, codes) = (backend.tables.recoverySets, backend.tables.recoveryCodes)
        let logger = backend.logger
        try await backend.perform("remove recovery codes") { client in
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query("DELETE FROM \(unescaped: codes) WHERE user_id = \(userID)", logger: logger)
                try await connection.query("DELETE FROM \(unescaped: sets) WHERE user_id = \(userID)", logger: logger)
            }
        }
    }
}
