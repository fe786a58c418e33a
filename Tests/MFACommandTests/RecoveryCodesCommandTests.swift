import Foundation
import IdentityAdmin
import IdentityOTP
import IdentityStoresPostgres
import IdentityToolkit
import IdentityToolkitTestSupport
import Logging
import PostgresNIO
import Testing

/// `mfa admin users recovery-codes`, as support runs it.
@Suite struct RecoveryCodesCommandTests {
    /// A running `mfa emulator` and a user in it; the process is stopped by the caller.
    static func emulatorWithUser() async throws -> (emulator: ChildProcess, address: String, uid: String) {
        let (emulator, address) = try await AdminAndEmulatorCommandTests().startEmulator()
        let configuration = ClientConfiguration(transport: URLSessionTransport.shared, emulatorHost: address)
        let created = try await AccountsClient(apiKey: "k", configuration: configuration)
            .signUp(SignUpRequest(email: "lost-phone@example.com", password: "secret-pw", returnSecureToken: true))
        return (emulator, address, created.localId)
    }

    static func command(uid: String, address: String, postgres: String, extra: [String] = []) -> [String] {
        [
            "admin", "users", "recovery-codes", "--project", "demo-mfa", "--emulator", address, "--uid", uid,
            "--postgres", postgres,
        ] + extra
    }

    /// The password given in the URL is refused without being echoed.
    @Test func aPasswordInTheURLIsRefusedAndNotRepeated() async throws {
        let result = try await MFABinary.run(
            Self.command(uid: "u", address: "127.0.0.1:9", postgres: "postgres://app:hunter2@db/app"))
        #expect(result.status == 2)
        #expect(!result.stderr.contains("hunter2"), "\(result.stderr)")
    }

    /// A uid the project does not know gets nothing (the database is not
    /// even reached); an unreachable database is exit 1 and one line.
    @Test func anUnknownUserOrAnUnreachableDatabaseFailsCleanly() async throws {
        let (emulator, address, uid) = try await Self.emulatorWithUser()
        let unknown = try await MFABinary.run(
            Self.command(uid: "nobody", address: address, postgres: "postgres://app@127.0.0.1:9/app?sslmode=disable"))
        #expect(unknown.status == 1)
        #expect(unknown.stdout.isEmpty)
        #expect(
            unknown.stderr.contains("nobody") && unknown.stderr.split(separator: "\n").count == 1, "\(unknown.stderr)")
        let unreachable = try await MFABinary.run(
            Self.command(uid: uid, address: address, postgres: "postgres://app@127.0.0.1:9/app?sslmode=disable"),
            environment: ["PGPASSWORD": "not-the-password"])
        #expect(unreachable.status == 1)
        #expect(unreachable.stdout.isEmpty)
        #expect(
            unreachable.stderr.contains("PostgreSQL store: connect: the connection failed"), "\(unreachable.stderr)")
        #expect(!unreachable.stderr.contains("not-the-password"))
        try await emulator.terminate()
    }
}

/// The whole path on PostgreSQL (`.ci/run`): the codes printed once are
/// the ones the app's store redeems, a new set replaces the old, and a
/// database the app never migrated is named as such.
@Suite(
    .enabled(
        if: ProcessInfo.processInfo.environment["IDENTITY_TEST_POSTGRES_URL"] != nil,
        "IDENTITY_TEST_POSTGRES_URL names no PostgreSQL server"))
struct RecoveryCodesCommandPostgresTests {
    @Test func issuedCodesAreTheOnesTheAppRedeems() async throws {
        let environment = ProcessInfo.processInfo.environment
        let url = try #require(environment["IDENTITY_TEST_POSTGRES_URL"])
        let password = try #require(environment["PGPASSWORD"])
        let prefix = "cli\(UUID().uuidString.prefix(8).lowercased())_"
        let (emulator, address, uid) = try await RecoveryCodesCommandTests.emulatorWithUser()
        let command = RecoveryCodesCommandTests.command(
            uid: uid, address: address, postgres: url, extra: ["--table-prefix", prefix, "--count", "4"])

        let unmigrated = try await MFABinary.run(command, environment: ["PGPASSWORD": password])
        #expect(unmigrated.status == 1)
        #expect(unmigrated.stderr.contains("migrate()"), "\(unmigrated.stderr)")

        let client = PostgresClient(
            configuration: try PostgresConnectionSettings(url: url, password: password).clientConfiguration,
            backgroundLogger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            let stores = try PostgresIdentityStores(client: client, tablePrefix: prefix)
            try await stores.migrate()
            let redeemer = RecoveryCodeRedeemer(store: stores.recoveryCodeStore, attemptStore: stores.verificationStore)
            // The project's own users: the key the app's AccountRecovery reads.
            let key = AccountRecovery(
                admin: IdentityAdmin.emulator(projectID: "demo-key", hostAndPort: "127.0.0.1:1"), redeemer: redeemer
            ).storeKey(uid)

            let first = try await MFABinary.run(command, environment: ["PGPASSWORD": password])
            #expect(first.status == 0, "\(first.stderr)")
            let codes = first.stdout.split(separator: "\n").map(String.init)
            #expect(codes.count == 4)
            #expect(
                codes.allSatisfy {
                    $0.wholeMatch(of: /[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}/) != nil
                }, "\(codes)")
            #expect(first.stderr.contains("issued 4 recovery codes for \(uid)"), "\(first.stderr)")
            #expect(codes.allSatisfy { !first.stderr.contains($0) })
            #expect(try await redeemer.redeem(codes[0], for: key) == .redeemed(remaining: 3))

            // Support issues again: the old set stops working, the new one works.
            let second = try await MFABinary.run(command, environment: ["PGPASSWORD": password])
            #expect(second.status == 0, "\(second.stderr)")
            let replaced = second.stdout.split(separator: "\n").map(String.init)
            #expect(Set(replaced).isDisjoint(with: codes))
            #expect(try await redeemer.redeem(codes[1], for: key) == .invalid)
            #expect(try await redeemer.redeem(replaced[3], for: key) == .redeemed(remaining: 3))
        }
        try await emulator.terminate()
    }
}
