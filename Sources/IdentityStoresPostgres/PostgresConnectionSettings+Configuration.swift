#if PostgreSQL
#if Configuration
public import Configuration

extension PostgresConnectionSettings {
    /// Settings from swift-configuration (`config.scoped(to: "postgres")`,
    /// say; an environment provider then reads `POSTGRES_URL` and
    /// `POSTGRES_PASSWORD`).
    ///
    /// ## Configuration keys
    /// - `url` (string, required): as ``init(url:password:)`` takes it, and
    ///   without a password (a URL is printed in logs and error messages).
    /// - `password` (string, secret, optional): the password.
    /// - `maximumConnections` (int, optional, default 20): the pool's size.
    ///
    /// - Parameter config: The reader, scoped to the database's keys.
    /// - Throws: ``PostgresStoreError`` `invalidConfiguration` when `url` is
    ///   missing, holds a password or is not a PostgreSQL URL.
    public init(config: ConfigReader) throws(PostgresStoreError) {
        guard let url = config.string(forKey: "url"), !url.isEmpty else {
            throw .invalidConfiguration("the configuration names no PostgreSQL url")
        }
        guard !Self.urlContainsPassword(url) else {
            throw .invalidConfiguration("the configured url holds a password: give it as the secret `password`")
        }
        try self.init(url: url, password: config.string(forKey: "password", isSecret: true))
        let connections = config.int(forKey: "maximumConnections", default: maximumConnections)
        guard connections >= 1 else {
            throw .invalidConfiguration("maximumConnections must be at least 1, not \(connections)")
        }
        maximumConnections = connections
    }
}
#endif
#endif
