public import Foundation
public import IdentityKeyValueStore
public import IdentityOTP
import PostgresNIO
import IdentitySupport

/// `TOTPVerificationStore` on PostgreSQL: one row per key holding its run
/// of failures (with its lock-out) and its last accepted step, so that one
/// statement settles a verification. Made by
/// ``PostgresIdentityStores/verificationStore``.
public struct PostgresTOTPVerificationStore: TOTPVerificationStore {
    let backend: PostgresStoreBackend

    /// Counts the attempt unless `limit` locks the key and, when
    /// `matchedStep` is later than the last accepted step, records it and
    /// clears the run, in one statement: a call of the SQL function that
    /// ``PostgresIdentityStores/migrate()`` creates (`…settle_totp_attempt`),
    /// written beside the tables' statements. A function, because
    /// PostgreSQL keeps its statements' plans for the session: they are
    /// parsed and planned once per connection instead of on every call.
    ///
    /// Why it is atomic: the function makes the key's row if it is missing
    /// and reads it `FOR UPDATE`, so concurrent settlements of one key
    /// serialize on its row lock and each applies the rule to the version
    /// the previous one committed — so no more attempts are ever counted
    /// than the limit allows, and one step is accepted once.
    public func settleAttempt(for keyID: String, matchedStep: UInt64?, limit: TOTPAttemptLimit, at now: Date,
                              retainUntil: Date) async throws(PostgresStoreError) -> TOTPAttemptSettlement {
        try await settle(for: keyID, matchedStep: matchedStep, limit: limit, at: now, retainUntil: retainUntil).settlement
    }

    /// ``settleAttempt(for:matchedStep:limit:at:retainUntil:)``, with the
    /// failures the key's run held before it (the same one statement).
    public func settleAttemptReportingRun(for keyID: String, matchedStep: UInt64?, limit: TOTPAttemptLimit, at now: Date,
                                          retainUntil: Date) async throws(PostgresStoreError) -> TOTPAttemptSettlementReport {
        let (settlement, failures) = try await settle(for: keyID, matchedStep: matchedStep, limit: limit, at: now, retainUntil: retainUntil)
        if case .refused = settlement { return TOTPAttemptSettlementReport(settlement: settlement, failuresBefore: nil) }
        return TOTPAttemptSettlementReport(settlement: settlement, failuresBefore: failures)
    }

    /// The settlement, with the failures counted before it.
    private func settle(for keyID: String, matchedStep: UInt64?, limit: TOTPAttemptLimit, at now: Date,
                        retainUntil: Date) async throws(PostgresStoreError) -> (settlement: TOTPAttemptSettlement, failuresBefore: Int) {
        let function = backend.tables.settleAttemptReportingRun
        let call = SettleAttemptCall(keyID: keyID, step: matchedStep.map { Int64(clamping: $0) }, stepExpiresAt: matchedStep == nil ? nil : retainUntil,
                                     now: backend.now(now), limit: limit)
        return try await backend.performPrepared("settle a TOTP attempt") { client in
            try await SettleAttemptCall.$function.withValue(function) {
                var answer: String?
                for try await text in try await client.execute(call) { answer = text }
                guard let answer, let settlement = SettleAttemptCall.answer(answer) else {
                    throw PostgresStoreError.corruptRow("settle a TOTP attempt")
                }
                return settlement
            }
        }
    }

    /// Records `step` for `keyID` unless a live step at or after it is
    /// recorded (one upsert; the run is left as it is).
    public func recordAcceptedStep(_ step: UInt64, for keyID: String, at now: Date, retainUntil: Date) async throws(PostgresStoreError) -> Bool {
        let table = backend.tables.verifications
        let step = Int64(clamping: step)
        let now = backend.now(now)
        return try await backend.perform("record an accepted TOTP step") { client in
            let rows = try await client.query("""
                INSERT INTO \(unescaped: table) AS row (key_id, attempts, attempts_expire_at, last_step, step_expires_at, expires_at)
                VALUES (\(keyID), 0, COALESCE(\(now), now()), \(step), \(retainUntil), \(retainUntil))
                ON CONFLICT (key_id) DO UPDATE SET last_step = EXCLUDED.last_step, step_expires_at = EXCLUDED.step_expires_at,
                expires_at = GREATEST(row.attempts_expire_at, EXCLUDED.step_expires_at)
                WHERE row.last_step IS NULL OR row.step_expires_at <= COALESCE(\(now), now()) OR row.last_step < EXCLUDED.last_step
                RETURNING 1
                """)
            var recorded = false
            for try await _ in rows { recorded = true }
            return recorded
        }
    }

    /// Counts an attempt unless `limit` locks `keyID` (a settlement with no matched step).
    public func recordAttempt(for keyID: String, limit: TOTPAttemptLimit, at now: Date) async throws(PostgresStoreError) -> TOTPAttemptAdmission {
        let (settlement, failures) = try await settle(for: keyID, matchedStep: nil, limit: limit, at: now, retainUntil: now)
        if case .refused(let admission) = settlement { return admission }
        return .counted(failures: failures)
    }

    /// Forgets `keyID`'s run and its lock-out; its last accepted step stays (one `UPDATE`).
    public func clearAttempts(for keyID: String) async throws(PostgresStoreError) {
        let table = backend.tables.verifications
        try await backend.perform("clear TOTP attempts") { client in
            try await client.query("""
                UPDATE \(unescaped: table) SET attempts = 0, locked_until = NULL, attempts_expire_at = '-infinity',
                expires_at = COALESCE(step_expires_at, '-infinity') WHERE key_id = \(keyID)
                """)
        }
    }

    /// `keyID`'s run of failures at `now` (0 when none or forgotten).
    public func failures(for keyID: String, at now: Date = Date()) async throws(PostgresStoreError) -> Int {
        let table = backend.tables.verifications
        let now = backend.now(now)
        return try await backend.perform("read TOTP attempts") { client in
            let rows = try await client.query("SELECT attempts FROM \(unescaped: table) WHERE key_id = \(keyID) AND attempts_expire_at > COALESCE(\(now), now())")
            var count = 0
            for try await attempts in rows.decode(Int32.self) { count = Int(attempts) }
            return count
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

    static var name: String { "identity-settle-totp-attempt-v5:" + function }
    static var sql: String { "SELECT \(function)($1, $2, $3, $4, $5, $6, $7, $8)" }

    typealias Row = String

    let keyID: String
    let step: Int64?
    let stepExpiresAt: Date?
    /// Nil: the database's clock.
    let now: Date?
    let limit: TOTPAttemptLimit

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 8)
        bindings.append(keyID)
        bindings.append(step)
        bindings.append(stepExpiresAt)
        bindings.append(now)
        bindings.append(Int32(clamping: limit.maximumFailures))
        bindings.append(limit.maximumConsecutiveFailures.map { Int32(clamping: $0) })
        bindings.append(limit.lockout.timeInterval)
        bindings.append(limit.maximumLockout.timeInterval)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> String {
        try row.decode(String.self)
    }

    /// The function's answer as a settlement with the failures counted
    /// before it; nil for text it never returns.
    static func answer(_ answer: String) -> (settlement: TOTPAttemptSettlement, failuresBefore: Int)? {
        let parts = answer.split(separator: ":", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        switch parts[0] {
        case "accepted": return Int(parts[1]).map { (.accepted, $0) }
        case "counted": return Int(parts[1]).map { (.counted, $0) }
        case "locked": return Int(parts[1]).map { (.refused(.locked(failures: $0)), $0) }
        case "until": return Double(parts[1]).map { (.refused(.lockedUntil(Date(timeIntervalSince1970: $0))), 0) }
        default: return nil
        }
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
        let now = backend.now(now)
        return try await backend.perform("record an accepted TOTP step") { client in
            let rows = try await client.query("""
                INSERT INTO \(unescaped: table) AS row (key_id, last_step, expires_at) VALUES (\(keyID), \(step), \(retainUntil))
                ON CONFLICT (key_id) DO UPDATE SET last_step = EXCLUDED.last_step, expires_at = EXCLUDED.expires_at
                WHERE row.last_step < EXCLUDED.last_step OR row.expires_at <= COALESCE(\(now), now())
                RETURNING 1
                """)
            var recorded = false
            for try await _ in rows { recorded = true }
            return recorded
        }
    }
}

/// `TOTPAttemptStore` on PostgreSQL: the run half of
/// ``PostgresTOTPVerificationStore`` (one row per key with its run of
/// failures and its lock-out, settled by the same function). Made by
/// ``PostgresIdentityStores/attemptStore``.
public struct PostgresTOTPAttemptStore: TOTPAttemptStore {
    let backend: PostgresStoreBackend

    private var runs: PostgresTOTPVerificationStore { PostgresTOTPVerificationStore(backend: backend) }

    /// Counts an attempt for `keyID` unless `limit` locks it, in one
    /// statement (see ``PostgresTOTPVerificationStore/settleAttempt(for:matchedStep:limit:at:retainUntil:)``):
    /// the count is taken before the code is checked, and concurrent
    /// attempts on one key serialize on its row.
    public func recordAttempt(for keyID: String, limit: TOTPAttemptLimit, at now: Date) async throws(PostgresStoreError) -> TOTPAttemptAdmission {
        try await runs.recordAttempt(for: keyID, limit: limit, at: now)
    }

    /// Forgets `keyID`'s run and its lock-out.
    public func clearAttempts(for keyID: String) async throws(PostgresStoreError) {
        try await runs.clearAttempts(for: keyID)
    }

    /// `keyID`'s run of failures at `now` (0 when none or forgotten).
    public func failures(for keyID: String, at now: Date = Date()) async throws(PostgresStoreError) -> Int {
        try await runs.failures(for: keyID, at: now)
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

    /// The value under `key`, unless absent or expired by now (the
    /// database's clock, or `now` with ``PostgresIdentityStores/Clock/caller``).
    public func value(forKey key: String, at now: Date) async throws(PostgresStoreError) -> Data? {
        let (table, read) = (backend.tables.state, ReadStateStatement(key: key, now: backend.now(now)))
        return try await backend.performPrepared("read state") { client in
            try await StateTableStatement.$table.withValue(table) {
                var value: Data?
                for try await bytes in try await client.execute(read) { value = bytes }
                return value
            }
        }
    }

    /// The value under `key`, removed in the same statement
    /// (`DELETE … RETURNING`: of concurrent takers, the one whose delete
    /// wins the row lock gets it, the others find no row).
    public func takeValue(forKey key: String, at now: Date) async throws(PostgresStoreError) -> Data? {
        let table = backend.tables.state
        let now = backend.now(now)
        return try await backend.perform("take state") { client in
            let rows = try await client.query("DELETE FROM \(unescaped: table) WHERE key = \(key) RETURNING value, expires_at > COALESCE(\(now), now())")
            var value: Data?
            for try await (bytes, live) in rows.decode((Data, Bool).self) where live { value = bytes }
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

    /// Swaps in `newValue` when the live value is `expected`, in one
    /// statement whose `WHERE` names the bytes read: an insert that yields
    /// to a live row, an update or a delete of the row holding `expected`.
    /// Under READ COMMITTED a concurrent writer's commit makes the `WHERE`
    /// false on the row it left, so of two swaps from one value one wins.
    public func compareAndSwapValue(forKey key: String, expected: Data?, newValue: Data?, expiresAt: Date,
                                    at now: Date) async throws(PostgresStoreError) -> Bool {
        let table = backend.tables.state
        let now = backend.now(now)
        return try await backend.performPrepared("swap state") { client in
            let rows: PostgresRowSequence
            switch (expected, newValue) {
            case (nil, let newValue?):
                return try await Self.swap(InsertStateUnlessLiveStatement(key: key, value: newValue, expiresAt: expiresAt, now: now),
                                           on: client, table: table)
            case (let expected?, let newValue?):
                return try await Self.swap(SwapStateStatement(newValue: newValue, expiresAt: expiresAt, key: key, expected: expected, now: now),
                                           on: client, table: table)
            case (let expected?, nil):
                rows = try await client.query("""
                    DELETE FROM \(unescaped: table) WHERE key = \(key) AND value = \(expected) AND expires_at > COALESCE(\(now), now())
                    RETURNING true
                    """)
            case (nil, nil):
                rows = try await client.query("""
                    SELECT true WHERE NOT EXISTS (SELECT 1 FROM \(unescaped: table) WHERE key = \(key) AND expires_at > COALESCE(\(now), now()))
                    """)
            }
            var swapped = false
            for try await _ in rows.decode(Bool.self) { swapped = true }
            return swapped
        }
    }
}

extension PostgresStateStore {
    /// Runs a prepared swap on the state table `table`: whether it swapped
    /// (returned its row).
    private static func swap<Statement: PostgresPreparedStatement>(_ statement: Statement, on client: PostgresClient,
                                                                   table: String) async throws -> Bool where Statement.Row == Bool {
        try await StateTableStatement.$table.withValue(table) {
            var swapped = false
            for try await _ in try await client.execute(statement) { swapped = true }
            return swapped
        }
    }

    /// The update in one statement when the key has no row, the common
    /// case of a TOTP sign-in (a user's records lapse minutes after a
    /// success, and the sweeper deletes them): `decide` is first asked what
    /// it would keep were there no entry, and that is inserted unless the
    /// key has a row, by one statement that also returns the row it found
    /// in the way (`ON CONFLICT DO NOTHING`, which takes no lock on it).
    /// Only then does the usual loop run, from that row's value without
    /// reading it again. So an absent key takes one round trip where the
    /// default update takes two (a read, then a swap), and a live or
    /// expired entry takes two, as there. The guess is only kept when the
    /// key had no row, so `decide`'s answer for none is the answer
    /// (`decide` is a pure function of what it is given).
    /// - Parameters:
    ///   - key: The entry.
    ///   - now: The time of the update (what has expired by then is none).
    ///   - maxAttempts: How many reads and swaps the loop after the insert makes.
    ///   - decide: What to do with the live value (nil when none).
    /// - Returns: The result of the decision that was kept.
    /// - Throws: `ExpiringStateContentionError` when every swap lost to
    ///   another writer, a ``PostgresStoreError``, or `decide`'s error.
    public func updateValue<Result: Sendable>(forKey key: String, at now: Date, maxAttempts: Int,
                                              _ decide: (Data?) throws -> ExpiringStateUpdate<Result>) async throws -> Result {
        // A decision that is not a store (or that throws) for none is
        // taken on the value read, as the default update takes it.
        guard case .store(let value, let expiresAt, let result)? = try? decide(nil) else {
            return try await readAndSwap(forKey: key, at: now, maxAttempts: maxAttempts, firstRead: .unread, decide)
        }
        switch try await insertUnlessPresent(value, forKey: key, expiresAt: expiresAt, at: now) {
        case .inserted: return result
        case .found(let live): return try await readAndSwap(forKey: key, at: now, maxAttempts: maxAttempts, firstRead: .read(live), decide)
        case .unseen: return try await readAndSwap(forKey: key, at: now, maxAttempts: maxAttempts, firstRead: .unread, decide)
        }
    }

    /// What ``insertUnlessPresent(_:forKey:expiresAt:at:)`` did.
    private enum Insertion {
        /// The key had no row: the value is in.
        case inserted
        /// The key's row, as the statement's snapshot saw it: its value if
        /// live, nil if expired.
        case found(Data?)
        /// A row was in the way that the snapshot did not see (written
        /// after the statement began).
        case unseen
    }

    /// Inserts `value` unless `key` has a row (live or expired), in one
    /// statement that also returns the row in the way.
    private func insertUnlessPresent(_ value: Data, forKey key: String, expiresAt: Date,
                                     at now: Date) async throws(PostgresStoreError) -> Insertion {
        let table = backend.tables.state
        let insert = InsertStateUnlessPresentStatement(key: key, value: value, expiresAt: expiresAt, now: backend.now(now))
        return try await backend.performPrepared("swap state") { client in
            try await StateTableStatement.$table.withValue(table) {
                var insertion = Insertion.unseen
                for try await row in try await client.execute(insert) {
                    if row.inserted { insertion = .inserted } else if let live = row.live { insertion = .found(live ? row.value : nil) }
                }
                return insertion
            }
        }
    }
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
