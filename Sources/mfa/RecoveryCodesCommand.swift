#if Tools
import Configuration
import ArgumentParser
import Foundation
import IdentityAdmin
import IdentityStoresPostgres
import Logging
import IdentityOTP
import PostgresNIO

extension AdminCommand.Users {
    /// `mfa admin users recovery-codes`: support's way to give a user who
    /// lost their authenticator (and their codes) a new set, in the store
    /// the app redeems them from.
    struct RecoveryCodes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "recovery-codes",
            abstract:
                "Issue a user a new set of recovery codes (the old set stops working); prints the codes once.",
            discussion: """
                The codes are kept as the app keeps them, in PostgreSQL (IdentityStoresPostgres), \
                so that the app's AccountRecovery redeems them; only their PBKDF2 verifiers are stored. \
                Give the password in PGPASSWORD, never in the URL. The codes go to standard output, \
                one per line, and are not shown again.
                """)

        @OptionGroup var target: AdminTarget

        @Option(help: "The user's uid.")
        var uid: String

        @Option(
            help:
                "The app's PostgreSQL database, as a libpq URL without a password (the password comes from PGPASSWORD)."
        )
        var postgres: String

        @Option(help: "The app's table prefix (IdentityStoresPostgres' tablePrefix).")
        var tablePrefix = "identity_"

        @Option(help: "Codes in the set, 1 to 100.")
        var count = 10

        func validate() throws {
            try InputCheck.identifier(uid, "--uid")
            try InputCheck.identifier(tablePrefix, "--table-prefix")
            guard (1...100).contains(count) else { throw ValidationError("--count must be 1 to 100, not \(count)") }
            guard !PostgresConnectionSettings.urlContainsPassword(postgres) else {
                throw ValidationError(
                    "--postgres must not hold the password (another local user can read a command line): give it in PGPASSWORD"
                )
            }
            do {
                _ = try settings()
            } catch {
                throw ValidationError(
                    "--postgres: " + "\(error)".replacingOccurrences(of: "PostgreSQL store: ", with: ""))
            }
            guard PostgresIdentityStores.isValidTablePrefix(tablePrefix) else {
                throw ValidationError("--table-prefix must be 1 to 40 of a-z 0-9 _, not starting with a digit")
            }
        }

        func settings() throws -> PostgresConnectionSettings {
            let config = ToolConfiguration.reader(options: [
                "postgres.url": ConfigValue(.string(postgres), isSecret: false)
            ])
            var settings = try PostgresConnectionSettings(config: config.scoped(to: "postgres"))
            settings.maximumConnections = 2
            return settings
        }

        func run() async throws {
            let auth = try target.auth()
            // The user first: a mistyped uid must not get codes.
            let user = try await auth.getUser(uid: uid)
            let settings = try settings()
            let quiet = Logger(label: "mfa", factory: { _ in SwiftLogNoOpLogHandler() })
            try await PostgresIdentityStores.checkConnection(settings, logger: quiet)
            let client = PostgresClient(configuration: settings.clientConfiguration, backgroundLogger: quiet)
            let codes = try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await client.run() }
                defer { group.cancelAll() }
                let stores = try PostgresIdentityStores(client: client, tablePrefix: tablePrefix, logger: quiet)
                let recovery = AccountRecovery(
                    admin: auth,
                    redeemer: RecoveryCodeRedeemer(
                        store: stores.recoveryCodeStore, attemptStore: stores.verificationStore),
                    logger: quiet)
                return try await recovery.issueCodes(for: user.uid, count: count)
            }
            FileHandle.standardError.write(
                Data(
                    "issued \(codes.codes.count) recovery codes for \(user.uid) (the earlier set no longer works); give them to the user, they are not shown again:\n"
                        .utf8))
            print(codes.codes.joined(separator: "\n"))
        }
    }
}
#endif
