#if PostgreSQL
import Foundation
public import PostgresNIO
import NIOSSL

/// Where the stores' PostgreSQL server is and how to reach it, read from a
/// libpq-style URL (`postgres://USER@HOST:PORT/DATABASE?sslmode=require`),
/// with the password apart so that it never has to be on a command line.
public struct PostgresConnectionSettings: Sendable, CustomStringConvertible {
    /// How the connection is encrypted, as libpq's `sslmode`.
    public enum TLSMode: String, Sendable, CaseIterable {
        /// No TLS.
        case disable
        /// TLS when the server offers it, without verifying its certificate (libpq's default).
        case prefer
        /// TLS always, without verifying the certificate.
        case require
        /// TLS always, the certificate verified against the system's roots and the host name.
        case verifyFull = "verify-full"
    }

    /// The server's host name or address (nil with ``unixSocketPath``).
    public var host: String?
    /// The server's port.
    public var port: Int
    /// A Unix-domain socket to connect through instead of TCP.
    public var unixSocketPath: String?
    /// The role to connect as.
    public var username: String
    /// The role's password (a secret: never shown in ``description``).
    public var password: String?
    /// The database; the user name's when nil.
    public var database: String?
    /// How the connection is encrypted.
    public var tls: TLSMode
    /// How long a new connection may take.
    public var connectTimeout: Duration = .seconds(5)
    /// The server stops a statement that runs longer (its `statement_timeout`):
    /// a store call never waits on a lock for ever.
    public var statementTimeout: Duration = .seconds(5)
    /// The most connections the pool opens.
    public var maximumConnections: Int = 20

    /// Settings from `url`.
    /// - Parameters:
    ///   - url: `postgres://` or `postgresql://`, user, host, port (5432 by
    ///     default), database, and the query options `sslmode` (``TLSMode``)
    ///     and `host` (a socket directory, as libpq's).
    ///   - password: The password; one in the URL is used when this is nil.
    /// - Throws: ``PostgresStoreError`` `invalidConfiguration`, naming the part that is wrong (never the password).
    public init(url: String, password: String? = nil) throws(PostgresStoreError) {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "postgres" || scheme == "postgresql"
        else {
            throw .invalidConfiguration("the URL must be postgres://USER@HOST:PORT/DATABASE")
        }
        guard let user = components.percentEncodedUser.flatMap({ $0.removingPercentEncoding }), !user.isEmpty else {
            throw .invalidConfiguration("the URL names no user (postgres://USER@HOST/DATABASE)")
        }
        let query = Dictionary(
            components.queryItems?.map { ($0.name, $0.value ?? "") } ?? [], uniquingKeysWith: { $1 })
        let known: Set<String> = ["sslmode", "host"]
        if let unknown = query.keys.sorted().first(where: { !known.contains($0) }) {
            throw .invalidConfiguration(
                "the URL option '\(unknown.prefix(40))' is not supported (sslmode and host are)")
        }
        let mode = query["sslmode"] ?? TLSMode.prefer.rawValue
        guard let tls = TLSMode(rawValue: mode) else {
            throw .invalidConfiguration(
                "sslmode must be \(TLSMode.allCases.map(\.rawValue).joined(separator: ", ")), not '\(mode.prefix(40))'"
            )
        }
        if let socketDirectory = query["host"], socketDirectory.hasPrefix("/") {
            self.unixSocketPath = socketDirectory + "/.s.PGSQL.\(components.port ?? 5432)"
            self.host = nil
        } else {
            guard let host = components.host, !host.isEmpty else {
                throw .invalidConfiguration("the URL names no host")
            }
            self.host = host
            self.unixSocketPath = nil
        }
        guard (1...65535).contains(components.port ?? 5432) else {
            throw .invalidConfiguration("the port must be 1 to 65535")
        }
        let database = String(components.path.drop(while: { $0 == "/" })).removingPercentEncoding ?? ""
        self.port = components.port ?? 5432
        self.username = user
        self.password = password ?? components.percentEncodedPassword?.removingPercentEncoding
        self.database = database.isEmpty ? nil : database
        self.tls = tls
    }

    /// Whether the URL itself carried a password (tools refuse such URLs on
    /// a command line: another local user can read a process's arguments).
    public static func urlContainsPassword(_ url: String) -> Bool {
        URLComponents(string: url)?.percentEncodedPassword.map { !$0.isEmpty } ?? false
    }

    /// The configuration of a `PostgresClient` (a pool) for these settings.
    public var clientConfiguration: PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        if let unixSocketPath {
            configuration = .init(
                unixSocketPath: unixSocketPath, username: username, password: password, database: database)
        } else {
            configuration = .init(
                host: host ?? "localhost", port: port, username: username, password: password, database: database,
                tls: clientTLS)
        }
        configuration.options.connectTimeout = connectTimeout
        configuration.options.maximumConnections = max(1, maximumConnections)
        configuration.options.additionalStartupParameters = startupParameters
        return configuration
    }

    /// The configuration of one `PostgresConnection` for these settings.
    /// - Throws: ``PostgresStoreError`` `invalidConfiguration` when no TLS context can be made.
    func connectionConfiguration() throws(PostgresStoreError) -> PostgresConnection.Configuration {
        var configuration: PostgresConnection.Configuration
        if let unixSocketPath {
            configuration = .init(
                unixSocketPath: unixSocketPath, username: username, password: password, database: database)
        } else {
            configuration = .init(
                host: host ?? "localhost", port: port, username: username, password: password, database: database,
                tls: try connectionTLS())
        }
        configuration.options.connectTimeout = .milliseconds(Self.milliseconds(connectTimeout))
        configuration.options.additionalStartupParameters = startupParameters
        return configuration
    }

    /// The server settings every connection starts with.
    private var startupParameters: [(String, String)] {
        [
            ("statement_timeout", "\(max(1, Self.milliseconds(statementTimeout)))"),
            ("application_name", "identity-stores"),
        ]
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    private var tlsConfiguration: TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if tls != .verifyFull { configuration.certificateVerification = .none }
        return configuration
    }

    private var clientTLS: PostgresClient.Configuration.TLS {
        switch tls {
        case .disable: .disable
        case .prefer: .prefer(tlsConfiguration)
        case .require, .verifyFull: .require(tlsConfiguration)
        }
    }

    private func connectionTLS() throws(PostgresStoreError) -> PostgresConnection.Configuration.TLS {
        do {
            switch tls {
            case .disable: return .disable
            case .prefer: return .prefer(try NIOSSLContext(configuration: tlsConfiguration))
            case .require, .verifyFull: return .require(try NIOSSLContext(configuration: tlsConfiguration))
            }
        } catch {
            throw .invalidConfiguration("no TLS context for sslmode \(tls.rawValue): \(type(of: error))")
        }
    }

    /// Where and as whom; never the password.
    public var description: String {
        let place = unixSocketPath ?? "\(host ?? "localhost"):\(port)"
        return
            "PostgreSQL \(username)@\(place)/\(database ?? username) (sslmode \(tls.rawValue), password \(password == nil ? "none" : "<redacted>"))"
    }
}
#endif
