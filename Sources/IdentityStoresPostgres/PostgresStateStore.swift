#if PostgreSQL
public import Foundation
public import IdentityKeyValueStore
import PostgresNIO
import IdentitySupport

/// `ExpiringStateStore` on PostgreSQL: one row per key with its bytes
/// and expiry, in one table for every store the package builds on it (TOTP
/// attempt runs and accepted steps, recovery codes, clock offsets, state in
/// flight, sessions), each under its own key prefix. Made by
/// ``PostgresIdentityStores/stateStore``.
///
/// Every operation is one statement (an update of a key with no row too;
/// see ``updateValue(forKey:at:maxAttempts:_:)``), prepared per connection
/// for the hot ones, and judges expiry by the database's clock unless the
/// stores were made with ``PostgresIdentityStores/Clock/caller``.
public struct PostgresStateStore: ExpiringStateStore {
    let backend: PostgresStoreBackend

    /// The database's time (``PostgresIdentityStores/Clock/database``,
    /// the default), as this instance's clock plus an offset measured
    /// against `now()` at most a minute ago; `callerTime` with
    /// ``PostgresIdentityStores/Clock/caller``. So the lapses a store
    /// judges inside a record (a lock-out's end) are judged by one clock
    /// on every instance, as the rows' expiry is.
    public func storeTime(callerTime: Date) async throws(PostgresStoreError) -> Date {
        try await backend.storeTime(callerTime: callerTime)
    }

    /// Keeps `value` under `key` until `expiresAt` (one upsert).
    public func setValue(_ value: Data, forKey key: String, expiresAt: Date) async throws(PostgresStoreError) {
        let table = backend.tables.state
        try await backend.perform("keep state") { client in
            try await client.query(
                """
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
            let rows = try await client.query(
                "DELETE FROM \(unescaped: table) WHERE key = \(key) RETURNING value, expires_at > COALESCE(\(now), now())"
            )
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
    public func compareAndSwapValue(
        forKey key: String, expected: Data?, newValue: Data?, expiresAt: Date,
        at now: Date
    ) async throws(PostgresStoreError) -> Bool {
        let table = backend.tables.state
        let now = backend.now(now)
        return try await backend.performPrepared("swap state") { client in
            let rows: PostgresRowSequence
            switch (expected, newValue) {
            case (nil, let newValue?):
                return try await Self.swap(
                    InsertStateUnlessLiveStatement(key: key, value: newValue, expiresAt: expiresAt, now: now),
                    on: client, table: table)
            case (let expected?, let newValue?):
                return try await Self.swap(
                    SwapStateStatement(
                        newValue: newValue, expiresAt: expiresAt, key: key, expected: expected, now: now),
                    on: client, table: table)
            case (let expected?, nil):
                rows = try await client.query(
                    """
                    DELETE FROM \(unescaped: table) WHERE key = \(key) AND value = \(expected) AND expires_at > COALESCE(\(now), now())
                    RETURNING true
                    """)
            case (nil, nil):
                rows = try await client.query(
                    """
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
    private static func swap<Statement: PostgresPreparedStatement>(
        _ statement: Statement, on client: PostgresClient,
        table: String
    ) async throws -> Bool where Statement.Row == Bool {
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
    public func updateValue<Result: Sendable>(
        forKey key: String, at now: Date, maxAttempts: Int,
        _ decide: (Data?) throws -> ExpiringStateUpdate<Result>
    ) async throws -> Result {
        // A decision that is not a store (or that throws) for none is
        // taken on the value read, as the default update takes it.
        guard case .store(let value, let expiresAt, let result)? = try? decide(nil) else {
            return try await readAndSwap(forKey: key, at: now, maxAttempts: maxAttempts, firstRead: .unread, decide)
        }
        switch try await insertUnlessPresent(value, forKey: key, expiresAt: expiresAt, at: now) {
        case .inserted: return result
        case .found(let live):
            return try await readAndSwap(
                forKey: key, at: now, maxAttempts: maxAttempts, firstRead: .read(live), decide)
        case .unseen:
            return try await readAndSwap(forKey: key, at: now, maxAttempts: maxAttempts, firstRead: .unread, decide)
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
    private func insertUnlessPresent(
        _ value: Data, forKey key: String, expiresAt: Date,
        at now: Date
    ) async throws(PostgresStoreError) -> Insertion {
        let table = backend.tables.state
        let insert = InsertStateUnlessPresentStatement(
            key: key, value: value, expiresAt: expiresAt, now: backend.now(now))
        return try await backend.performPrepared("swap state") { client in
            try await StateTableStatement.$table.withValue(table) {
                var insertion = Insertion.unseen
                for try await row in try await client.execute(insert) {
                    if row.inserted {
                        insertion = .inserted
                    } else if let live = row.live {
                        insertion = .found(live ? row.value : nil)
                    }
                }
                return insertion
            }
        }
    }
}
#endif
