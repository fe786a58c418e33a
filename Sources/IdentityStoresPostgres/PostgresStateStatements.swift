#if PostgreSQL
import Foundation
import PostgresNIO

// The state table's hot statements (a read, a swap of the bytes read, a
// swap from none, an insert unless a row is there) as prepared statements,
// so that each connection parses and plans them once instead of on every
// call: an update of a TOTP key's entry is one or two of them.
//
// postgres-nio names a prepared statement by its type, with a `static` name
// and SQL, but the table's name carries the prefix chosen at run time. So
// both are read from `StateTableStatement.table`, a task-local that
// `PostgresStateStore` binds around each call (postgres-nio reads them in
// the calling task when it builds the request); each prefix gets its own
// statement names. Unbound, the SQL names no table and the server refuses
// it (a syntax error becomes `queryFailed`), so it never runs against
// another store's tables.

/// What the state table's prepared statements share: the table they are
/// for, bound by the caller.
enum StateTableStatement {
    /// The state table of the store making the call (prefix included).
    @TaskLocal static var table = ""

    /// The statement's name for the bound table, versioned by its SQL's shape.
    static func name(_ statement: String) -> String { "identity-state-\(statement)-v1:" + table }

    /// The bindings of an insert's row and its `now`, in the order both
    /// inserts take them ($1 key, $2 value, $3 expiry, $4 now).
    static func insertBindings(key: String, value: Data, expiresAt: Date, now: Date?) throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 4)
        bindings.append(key)
        try bindings.append(value)
        bindings.append(expiresAt)
        bindings.append(now)
        return bindings
    }
}

/// The live value under a key: `SELECT value … WHERE key = $1 AND live`.
struct ReadStateStatement: PostgresPreparedStatement {
    static var name: String { StateTableStatement.name("read") }
    static var sql: String {
        "SELECT value FROM \(StateTableStatement.table) WHERE key = $1 AND expires_at > COALESCE($2, now())"
    }

    typealias Row = Data

    let key: String
    /// Nil: the database's clock.
    let now: Date?

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(key)
        bindings.append(now)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Data { try row.decode(Data.self) }
}

/// A swap from the live bytes read to new ones: an `UPDATE` whose `WHERE`
/// names the bytes, returning a row when it swapped.
struct SwapStateStatement: PostgresPreparedStatement {
    static var name: String { StateTableStatement.name("swap") }
    static var sql: String {
        """
        UPDATE \(StateTableStatement.table) SET value = $1, expires_at = $2
        WHERE key = $3 AND value = $4 AND expires_at > COALESCE($5, now()) RETURNING true
        """
    }

    typealias Row = Bool

    let newValue: Data
    let expiresAt: Date
    let key: String
    let expected: Data
    /// Nil: the database's clock.
    let now: Date?

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 5)
        try bindings.append(newValue)
        bindings.append(expiresAt)
        bindings.append(key)
        try bindings.append(expected)
        bindings.append(now)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Bool { try row.decode(Bool.self) }
}

/// A swap from none: an insert that replaces an expired row and yields to a
/// live one, returning a row when it swapped.
struct InsertStateUnlessLiveStatement: PostgresPreparedStatement {
    static var name: String { StateTableStatement.name("insert-unless-live") }
    static var sql: String {
        """
        INSERT INTO \(StateTableStatement.table) AS state (key, value, expires_at) VALUES ($1, $2, $3)
        ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, expires_at = EXCLUDED.expires_at
        WHERE state.expires_at <= COALESCE($4, now()) RETURNING true
        """
    }

    typealias Row = Bool

    let key: String
    let value: Data
    let expiresAt: Date
    /// Nil: the database's clock.
    let now: Date?

    func makeBindings() throws -> PostgresBindings {
        try StateTableStatement.insertBindings(key: key, value: value, expiresAt: expiresAt, now: now)
    }

    func decodeRow(_ row: PostgresRow) throws -> Bool { try row.decode(Bool.self) }
}

/// An insert unless the key has a row (live or expired), which also
/// returns the row in the way as the statement's snapshot saw it:
/// `ON CONFLICT DO NOTHING` takes no lock on that row.
struct InsertStateUnlessPresentStatement: PostgresPreparedStatement {
    static var name: String { StateTableStatement.name("insert-unless-present") }
    static var sql: String {
        """
        WITH inserted AS (
            INSERT INTO \(StateTableStatement.table) (key, value, expires_at) VALUES ($1, $2, $3)
            ON CONFLICT (key) DO NOTHING RETURNING true)
        SELECT EXISTS (SELECT 1 FROM inserted), found.live, found.value
        FROM (SELECT 1) AS one
        LEFT JOIN (SELECT expires_at > COALESCE($4, now()) AS live, value FROM \(StateTableStatement.table) WHERE key = $1) AS found ON true
        """
    }

    /// Whether it inserted; else whether the row it saw was live, and its value.
    typealias Row = (inserted: Bool, live: Bool?, value: Data?)

    let key: String
    let value: Data
    let expiresAt: Date
    /// Nil: the database's clock.
    let now: Date?

    func makeBindings() throws -> PostgresBindings {
        try StateTableStatement.insertBindings(key: key, value: value, expiresAt: expiresAt, now: now)
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let (inserted, live, value) = try row.decode((Bool, Bool?, Data?).self)
        return (inserted, live, value)
    }
}
#endif
