#if PostgreSQL
/// Why a PostgreSQL store call failed. Verification that needs a store
/// **fails closed** on any of these: `TOTPVerifier` throws, and the
/// caller refuses the code.
///
/// Messages name the table, the SQLSTATE and the reason; never a bound
/// value (a user id, a key, a session). A struct over a private enum, as
/// ``Code`` lets a later release add a case.
public struct PostgresStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of error without its details.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        fileprivate enum Base: String, Sendable, Hashable {
            case unavailable, authenticationFailed, timedOut, notMigrated, queryFailed, corruptRow,
                invalidConfiguration, cancelled
        }

        fileprivate let base: Base

        /// The server cannot be reached, refused the connection, or the
        /// connection dropped during the call.
        public static let unavailable = Code(base: .unavailable)
        /// The server refused the user name or the password.
        public static let authenticationFailed = Code(base: .authenticationFailed)
        /// The call did not finish within the stores' query timeout.
        public static let timedOut = Code(base: .timedOut)
        /// A table is missing: run ``PostgresIdentityStores/migrate()`` first.
        public static let notMigrated = Code(base: .notMigrated)
        /// The server refused the statement (its SQLSTATE is in the description).
        public static let queryFailed = Code(base: .queryFailed)
        /// A row did not hold what the store wrote (a column of another type).
        public static let corruptRow = Code(base: .corruptRow)
        /// A connection URL, table prefix or option the stores cannot use.
        public static let invalidConfiguration = Code(base: .invalidConfiguration)
        /// The calling task was cancelled.
        public static let cancelled = Code(base: .cancelled)

        /// The error's name, such as `unavailable`.
        public var description: String { base.rawValue }
    }

    /// The kind of error.
    public let code: Code
    /// The server's SQLSTATE, when the server answered with an error.
    public let sqlState: String?
    private let detail: String

    private init(_ base: Code.Base, sqlState: String? = nil, detail: String) {
        self.code = Code(base: base)
        self.sqlState = sqlState
        self.detail = detail
    }

    static func unavailable(_ detail: String) -> Self { Self(.unavailable, detail: detail) }
    static func authenticationFailed(sqlState: String?) -> Self {
        Self(.authenticationFailed, sqlState: sqlState, detail: "the server refused the user name or password")
    }
    static func timedOut(_ operation: String, after timeout: Duration) -> Self {
        Self(.timedOut, detail: "\(operation) did not finish within \(timeout)")
    }
    static func statementTimedOut(_ operation: String) -> Self {
        Self(
            .timedOut, sqlState: "57014",
            detail: "\(operation): the server stopped the statement at its statement_timeout")
    }
    static func notMigrated(_ operation: String) -> Self {
        Self(
            .notMigrated, sqlState: "42P01",
            detail: "\(operation): a table is missing; run PostgresIdentityStores.migrate() first")
    }
    /// The server's message is left out: some quote the values of the statement.
    static func queryFailed(_ operation: String, sqlState: String?) -> Self {
        Self(.queryFailed, sqlState: sqlState, detail: "\(operation) failed: SQLSTATE \(sqlState ?? "unknown")")
    }
    static func corruptRow(_ operation: String) -> Self {
        Self(.corruptRow, detail: "\(operation): a row does not hold what the store writes")
    }
    static func invalidConfiguration(_ detail: String) -> Self { Self(.invalidConfiguration, detail: detail) }
    static let cancelled = Self(.cancelled, detail: "the call was cancelled")

    /// What went wrong; never a bound value.
    public var description: String { "PostgreSQL store: \(detail)" }
}
#endif
