import Configuration
import Foundation
import IdentityServerState
import IdentityStoresPostgres
import SystemPackage
import TOTPLoginApp

/// Every setting of the example, read through one swift-configuration
/// reader: the command line's options first, then the environment
/// (`TOTPLOGIN_` and the key in upper snake case), then an optional JSON
/// file (`--config-file`), then the defaults. The keys, in the scope
/// `totplogin`:
///
/// | key | option | environment | default |
/// |---|---|---|---|
/// | `http.host` | `--host` | `TOTPLOGIN_HTTP_HOST` | `127.0.0.1` |
/// | `http.port` | `--port` | `TOTPLOGIN_HTTP_PORT` | `8080` |
/// | `metrics.port` | `--metrics-port` | `TOTPLOGIN_METRICS_PORT` | none (no /metrics) |
/// | `firebase.emulatorHost` | `--emulator` | `TOTPLOGIN_FIREBASE_EMULATOR_HOST` | none (the embedded emulator) |
/// | `firebase.projectId` | `--project` | `TOTPLOGIN_FIREBASE_PROJECT_ID` | the running emulator's, or `demo-totp-login` |
/// | `postgres.url` | `--postgres` | `TOTPLOGIN_POSTGRES_URL` | none (state in cookies and memory) |
/// | `postgres.password` (secret) | none | `TOTPLOGIN_POSTGRES_PASSWORD`, else libpq's `PGPASSWORD` | none |
/// | `sealing.keys` (secret) | `--sealing-keys-file` (the file's text) | `TOTPLOGIN_SEALING_KEYS` | none (a random key) |
/// | `publicURL` | `--public-url` | `TOTPLOGIN_PUBLIC_URL` | none |
/// | `trustForwardedFor` | `--trust-forwarded-for` | `TOTPLOGIN_TRUST_FORWARDED_FOR` | `false` |
/// | `mfa.enrollBy` | `--enroll-by` | `TOTPLOGIN_MFA_ENROLL_BY` | none (a second factor stays optional) |
/// | `firebase.tenant` | `--tenant` | `TOTPLOGIN_FIREBASE_TENANT` | none (the project's own users) |
/// | `blocking.enabled` | `--no-blocking-function` | `TOTPLOGIN_BLOCKING_ENABLED` | `true` |
/// | `blocking.requireTOTPAfter` | `--require-totp-after` | `TOTPLOGIN_BLOCKING_REQUIRE_TOTP_AFTER` | `86400` (seconds; with a tenant) |
/// | `blocking.roles` | `--roles` | `TOTPLOGIN_BLOCKING_ROLES` | none |
///
/// Secrets are read as secrets: swift-configuration's access logs never show them.
struct TOTPLoginSettings {
    var host: String
    var port: Int
    var metricsPort: Int?
    var emulator: (host: String, port: Int)?
    var project: String?
    var postgres: PostgresConnectionSettings?
    var sealingKeys: SealingKeyRing?
    var publicURL: URL?
    var trustForwardedFor: Bool
    /// Every account needs a second factor from then on (ISO 8601, such as `2027-03-01T00:00:00Z`).
    var enrollBy: Date?
    /// The tenant (its id or display name) whose users the app signs in.
    var tenant: String?
    /// Whether the app configures its `beforeSignIn` blocking function at start.
    var blockingFunction: Bool
    /// In the app's tenant, a sign-in without TOTP is refused once the account is this old.
    var requireTOTPAfter: Duration
    /// Address → role, for the `role` claim.
    var roles: [String: String]

    /// The scope of the example's keys (and the environment's prefix).
    static let scope = "totplogin"

    /// The settings from `config` (scoped to ``scope``); a bad value is a
    /// ``StartupError`` naming the key, never a secret's value.
    init(config: ConfigReader) throws {
        host = config.string(forKey: "http.host", default: "127.0.0.1")
        port = try Self.port(config, "http.port", default: 8080)
        metricsPort = try config.int(forKey: "metrics.port").map { try Self.checkPort($0, "metrics.port") }
        if let text = config.string(forKey: "firebase.emulatorHost") {
            guard let address = Self.address(text) else {
                throw StartupError(
                    description:
                        "firebase.emulatorHost (--emulator) must be HOST:PORT, such as 127.0.0.1:9099, not '\(text)'")
            }
            emulator = address
        }
        project = config.string(forKey: "firebase.projectId")
        if config.string(forKey: "postgres.url") != nil {
            do { postgres = try PostgresConnectionSettings(config: config.scoped(to: "postgres")) } catch {
                throw StartupError(description: "postgres (--postgres): \(error)")
            }
        }
        do { sealingKeys = try SealingKeyRing(config: config.scoped(to: "sealing")) } catch {
            throw StartupError(description: "sealing.keys (TOTPLOGIN_SEALING_KEYS, --sealing-keys-file): \(error)")
        }
        if let text = config.string(forKey: "publicURL") {
            guard let url = URL(string: text), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                throw StartupError(
                    description:
                        "publicURL (--public-url) must be an http or https URL, such as https://login.example.com")
            }
            publicURL = url
        }
        trustForwardedFor = config.bool(forKey: "trustForwardedFor", default: false)
        if let text = config.string(forKey: "mfa.enrollBy") {
            guard let date = try? Date(text, strategy: .iso8601) else {
                throw StartupError(
                    description:
                        "mfa.enrollBy (--enroll-by) must be an ISO 8601 time such as 2027-03-01T00:00:00Z, not '\(text)'"
                )
            }
            enrollBy = date
        }
        tenant = config.string(forKey: "firebase.tenant")
        blockingFunction = config.bool(forKey: "blocking.enabled", default: true)
        let seconds = config.int(forKey: "blocking.requireTOTPAfter", default: 24 * 60 * 60)
        guard (0...(366 * 24 * 60 * 60)).contains(seconds) else {
            throw StartupError(
                description:
                    "blocking.requireTOTPAfter (--require-totp-after) must be 0 to 31622400 seconds, not \(seconds)")
        }
        requireTOTPAfter = .seconds(seconds)
        do { roles = try InMemoryRoleDirectory.parse(config.string(forKey: "blocking.roles", default: "")) } catch {
            throw StartupError(description: "blocking.roles (--roles): \(error)")
        }
    }

    /// The reader over the command line's `options` (absolute keys, such as
    /// `totplogin.http.port`), the environment, and `file` when given, in
    /// that order of precedence; libpq's `PGPASSWORD` last, for the password.
    static func reader(options: [AbsoluteConfigKey: ConfigValue], file: String?) async throws -> ConfigReader {
        var providers: [any ConfigProvider] = [
            InMemoryProvider(name: "options", values: options), EnvironmentVariablesProvider(),
        ]
        if let file {
            do { providers.append(try await FileProvider<JSONSnapshot>(filePath: FilePath(file))) } catch {
                throw StartupError(description: "--config-file \(file): \(error)")
            }
        }
        if let password = ProcessInfo.processInfo.environment["PGPASSWORD"] {
            providers.append(
                InMemoryProvider(
                    name: "PGPASSWORD",
                    values: [
                        AbsoluteConfigKey(stringLiteral: "\(scope).postgres.password"): ConfigValue(
                            .string(password), isSecret: true)
                    ]))
        }
        return ConfigReader(providers: providers)
    }

    /// `HOST:PORT` split, or nil when it is not that.
    static func address(_ text: String) -> (host: String, port: Int)? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, !parts[0].isEmpty, let port = Int(parts[1]), (1...65535).contains(port) else {
            return nil
        }
        return (String(parts[0]), port)
    }

    private static func port(_ config: ConfigReader, _ key: String, default value: Int) throws -> Int {
        try checkPort(config.int(forKey: ConfigKey(key), default: value), key)
    }

    private static func checkPort(_ port: Int, _ key: String) throws -> Int {
        guard (0...65535).contains(port) else {
            throw StartupError(description: "\(key) must be 0 to 65535, not \(port)")
        }
        return port
    }
}
