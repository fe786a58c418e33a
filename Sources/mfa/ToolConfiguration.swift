#if Tools
import Configuration
import Foundation

/// What the tool reads besides its options, through one swift-configuration
/// reader: the options it maps to keys first, then the environment (a key
/// in upper snake case: `google.application.credentials` is
/// `GOOGLE_APPLICATION_CREDENTIALS`), then libpq's `PGPASSWORD` as the
/// secret `postgres.password`.
///
/// | key | from |
/// |---|---|
/// | `postgres.url` | `--postgres` |
/// | `postgres.password` (secret) | `POSTGRES_PASSWORD`, else `PGPASSWORD` |
/// | `google.application.credentials` | `GOOGLE_APPLICATION_CREDENTIALS` (a key file's path) |
enum ToolConfiguration {
    /// The reader over `options` (keys such as `postgres.url`) and the environment.
    static func reader(
        options: [AbsoluteConfigKey: ConfigValue] = [:],
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> ConfigReader {
        var providers: [any ConfigProvider] = [
            InMemoryProvider(name: "options", values: options),
            EnvironmentVariablesProvider(environmentVariables: environment),
        ]
        if let password = environment["PGPASSWORD"] {
            providers.append(
                InMemoryProvider(
                    name: "PGPASSWORD",
                    values: ["postgres.password": ConfigValue(.string(password), isSecret: true)]))
        }
        return ConfigReader(providers: providers)
    }

    /// The service account key file the environment names, if any.
    static var applicationCredentialsFile: String? {
        reader().string(forKey: "google.application.credentials").flatMap { $0.isEmpty ? nil : $0 }
    }
}
#endif
