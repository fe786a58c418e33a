import Foundation
import IdentityToolkit
import IdentityToolkitTestSupport
import Testing

/// `mfa emulator` and `mfa admin` as separate processes, as users run them.
@Suite struct AdminAndEmulatorCommandTests {
    /// Starts `mfa emulator --port 0` and returns the process and `HOST:PORT`
    /// (from its first line, awaited off the cooperative pool). A test stops
    /// it with ``ChildProcess/terminate(within:)``; one that throws first
    /// leaves it to the handle, which kills it.
    func startEmulator(_ extra: [String] = []) async throws -> (ChildProcess, String) {
        let process = try MFABinary.executable.start(["emulator", "--port", "0", "--project", "demo-mfa"] + extra)
        let line = try await process.firstLine()
        #expect(line.hasPrefix("listening on http://"))
        return (process, String(line.dropFirst("listening on http://".count)))
    }

    /// Processes the tests start crash fast: Swift's backtracer is off
    /// unless a test asks for it, so a crashed emulator ends at once instead
    /// of leaving a `swift-backtrace` process spinning for minutes.
    @Test func startedProcessesCrashWithoutTheBacktracer() {
        #expect(BuiltExecutable.environment(adding: [:])["SWIFT_BACKTRACE"] == "enable=no")
        #expect(
            BuiltExecutable.environment(adding: ["SWIFT_BACKTRACE": "enable=yes"])["SWIFT_BACKTRACE"] == "enable=yes")
        #expect(BuiltExecutable.environment(adding: ["A": "b"])["A"] == "b")
    }

    /// `--allow-remote` serves on a non-loopback address, with a warning
    /// that the emulator has no authentication.
    @Test func allowRemoteWarnsThatTheEmulatorHasNoAuthentication() async throws {
        let (emulator, address) = try await startEmulator(["--host", "0.0.0.0", "--allow-remote"])
        try await emulator.terminate()
        #expect(address.hasPrefix("0.0.0.0:"))
        let warning = String(decoding: emulator.standardError, as: UTF8.self)
        #expect(warning.contains("warning: serving on 0.0.0.0") && warning.contains("no authentication"), "\(warning)")
    }

    @Test func enableShowAndDisableAgainstARunningEmulator() async throws {
        let (emulator, address) = try await startEmulator()
        let enabled = try await MFABinary.run([
            "admin", "enable-totp", "--project", "demo-mfa", "--emulator", address, "--adjacent-intervals", "3",
        ])
        #expect(enabled.status == 0, "\(enabled.stderr)")
        #expect(enabled.stdout.contains(#""adjacentIntervals" : 3"#))
        let shown = try await MFABinary.run(["admin", "show-config", "--project", "demo-mfa", "--emulator", address])
        #expect(shown.stdout == enabled.stdout)
        let disabled = try await MFABinary.run([
            "admin", "disable-totp", "--project", "demo-mfa", "--emulator", address,
        ])
        #expect(disabled.stdout.contains(#""state" : "DISABLED""#))
        #expect(try await emulator.terminate() == 0)
    }

    @Test(
        arguments: [
            (
                ["admin", "enable-totp", "--project", "p", "--emulator", "127.0.0.1:9", "--adjacent-intervals", "11"],
                "--adjacent-intervals must be an integer from 0 to 10, not 11"
            ),
            (
                ["admin", "enable-totp", "--project", "p", "--credentials", "/nonexistent/key.json"],
                #""/nonexistent/key.json" cannot be read as a service account key file"#
            ),
            (["admin", "show-config", "--project", "p", "--emulator", "nope"], "--emulator must be HOST:PORT"),
            (
                ["admin", "show-config", "--project", "p", "--emulator", "127.0.0.1:9", "--credentials", "k.json"],
                "either --emulator or --credentials"
            ),
            (["emulator", "--port", "70000"], "--port must be 0 to 65535"),
            (["demo", "--emulator", "localhost"], "--emulator must be HOST:PORT"),
            // Every option that names an id or a path: empty is a usage error naming it.
            (
                ["admin", "users", "get", "--project", "p", "--emulator", "127.0.0.1:9", "--uid", ""],
                "--uid must not be empty"
            ),
            (
                ["admin", "users", "get", "--project", "p", "--emulator", "127.0.0.1:9", "--email", ""],
                "--email must not be empty"
            ),
            (
                ["admin", "users", "get", "--project", "p", "--emulator", "127.0.0.1:9", "--uid", "a\nb"],
                "--uid must not contain control characters"
            ),
            (
                ["admin", "users", "unenroll", "--project", "p", "--emulator", "127.0.0.1:9", "--uid", "", "--all"],
                "--uid must not be empty"
            ),
            (
                [
                    "admin", "users", "unenroll", "--project", "p", "--emulator", "127.0.0.1:9", "--uid", "u",
                    "--factor", "",
                ], "--factor must not be empty"
            ),
            (
                ["admin", "users", "revoke", "--project", "p", "--emulator", "127.0.0.1:9", "--uid", ""],
                "--uid must not be empty"
            ),
            (
                [
                    "admin", "users", "recovery-codes", "--project", "p", "--emulator", "127.0.0.1:9", "--uid", "",
                    "--postgres", "postgres://app@db/app",
                ],
                "--uid must not be empty"
            ),
            (
                [
                    "admin", "users", "recovery-codes", "--project", "p", "--emulator", "127.0.0.1:9", "--uid", "u",
                    "--postgres", "postgres://app:hunter2@db/app",
                ],
                "--postgres must not hold the password"
            ),
            (
                [
                    "admin", "users", "recovery-codes", "--project", "p", "--emulator", "127.0.0.1:9", "--uid", "u",
                    "--postgres", "mysql://app@db/app",
                ],
                "--postgres: the URL must be postgres://USER@HOST:PORT/DATABASE"
            ),
            (
                [
                    "admin", "users", "recovery-codes", "--project", "p", "--emulator", "127.0.0.1:9", "--uid", "u",
                    "--postgres", "postgres://app@db/app",
                    "--count", "0",
                ], "--count must be 1 to 100, not 0"
            ),
            (
                [
                    "admin", "users", "recovery-codes", "--project", "p", "--emulator", "127.0.0.1:9", "--uid", "u",
                    "--postgres", "postgres://app@db/app",
                    "--table-prefix", "Bad-",
                ], "--table-prefix must be 1 to 40 of a-z 0-9 _"
            ),
            (
                ["admin", "users", "recovery-codes", "--project", "p", "--emulator", "127.0.0.1:9", "--uid", "u"],
                "Missing expected argument '--postgres"
            ),
            (
                ["admin", "users", "list", "--project", "p", "--emulator", "127.0.0.1:9", "--tenant", ""],
                "--tenant must not be empty"
            ),
            (
                ["admin", "show-config", "--project", "", "--emulator", "127.0.0.1:9"],
                "--project must be letters, digits and hyphens"
            ),
            (["admin", "show-config", "--project", "p", "--credentials", ""], "--credentials must name a file"),
            (
                ["admin", "show-config", "--project", "p", "--credentials", "k.json", "--token-endpoint", ""],
                "--token-endpoint must not be empty"
            ),
            (["demo", "--project", ""], "--project must be letters, digits and hyphens"),
            (["demo", "--id-token-file", ""], "--id-token-file must name a file"),
            (["emulator", "--project", "a b"], "--project must be letters, digits and hyphens"),
            // Serving other machines is an explicit choice.
            (
                ["emulator", "--host", "0.0.0.0", "--port", "0"],
                "host 0.0.0.0 is not a loopback address; give --allow-remote"
            ),
            (["emulator", "--host", "192.168.1.20", "--port", "0"], "give --allow-remote"),
        ] as [([String], String)])
    func badInputSendsNothing(arguments: [String], message: String) async throws {
        let result = try await MFABinary.run(arguments)
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test func demoAgainstARunningEmulator() async throws {
        let (emulator, address) = try await startEmulator()
        let demo = try await MFABinary.run(["demo", "--emulator", address, "--no-qr"])
        #expect(demo.status == 0, "\(demo.stdout)")
        #expect(demo.stdout.contains("✔ resolve with a fresh TOTP code"))
        #expect(demo.stdout.hasSuffix("demo complete\n"))
        try await emulator.terminate()
    }

    /// A stopped emulator is reported at once, naming the step, not after the
    /// request deadline (the time limit would stop a 30-second wait). The
    /// port refuses connections for the whole test: a stopped emulator's
    /// freed port could be handed to another test's server in the meantime.
    @Test(.timeLimit(.minutes(1))) func demoAgainstAStoppedEmulatorFailsAtOnce() async throws {
        let stopped = try RefusingPort()
        let demo = try await MFABinary.run(["demo", "--emulator", stopped.hostAndPort, "--no-qr"])
        withExtendedLifetime(stopped) {}
        #expect(demo.status == 1)
        #expect(demo.stdout.contains("✘ enable TOTP for project demo-mfa"), "\(demo.stdout)")
        #expect(demo.stdout.contains("Connection refused"), "\(demo.stdout)")
    }

    /// The demo against a running emulator hands its TOTP sign-in's ID token
    /// to a server-side check through an owner-only file.
    @Test func demoWritesItsTOTPTokenForAServerSideCheck() async throws {
        let (emulator, address) = try await startEmulator()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("mfa-demo-token-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let demo = try await MFABinary.run([
            "demo", "--no-qr", "--emulator", address, "--id-token-file", file, "--keep-factor",
        ])
        #expect(demo.status == 0, "\(demo.stdout)\(demo.stderr)")
        #expect(!demo.stdout.contains("unenroll TOTP"))
        let permissions = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
        let token = try Data(contentsOf: URL(fileURLWithPath: file))
        let verified = try await MFABinary.run(
            [
                "admin", "verify-token", "--require-second-factor", "--check-revoked", "--project", "demo-mfa",
                "--emulator", address,
            ], input: token)
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stdout.contains(#""sign_in_second_factor" : "totp""#), "\(verified.stdout)")
        #expect(!demo.stdout.contains(String(decoding: token, as: UTF8.self)))
        try await emulator.terminate()
    }

    /// A support desk's story: verify a user's token (from standard input,
    /// never the command line), refuse it without a second factor, revoke the
    /// user's sessions, and see the token refused with --check-revoked.
    @Test func verifyTokenAndRevokeAgainstARunningEmulator() async throws {
        let (emulator, address) = try await startEmulator()
        let configuration = ClientConfiguration(transport: URLSessionTransport.shared, emulatorHost: address)
        // The sign-in happens ten seconds "ago", so a revocation now is after it.
        let nowMillis = Int64(Date().timeIntervalSince1970 * 1000)
        _ = try await EmulatorHelpersClient(configuration: configuration).changeClock(
            ClockChange(setMillis: nowMillis - 10_000))
        let created = try await AccountsClient(apiKey: "k", configuration: configuration)
            .signUp(SignUpRequest(email: "desk@example.com", password: "secret-pw", returnSecureToken: true))
        let token = try #require(created.idToken)
        let target = ["--project", "demo-mfa", "--emulator", address]

        let verified = try await MFABinary.run(["admin", "verify-token"] + target, input: Data(token.utf8))
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stdout.contains(#""user_id" : "\#(created.localId)""#), "\(verified.stdout)")
        let noFactor = try await MFABinary.run(
            ["admin", "verify-token", "--require-second-factor"] + target, input: Data(token.utf8))
        #expect(noFactor.status == 1)
        #expect(noFactor.stderr.contains("no second factor"), "\(noFactor.stderr)")
        let otherProject = try await MFABinary.run(
            ["admin", "verify-token", "--project", "another", "--emulator", address], input: Data(token.utf8))
        #expect(otherProject.status == 1)
        #expect(otherProject.stderr.contains(#"not the project "another""#), "\(otherProject.stderr)")
        for result in [noFactor, otherProject] { #expect(!result.stderr.contains(token)) }

        let shown = try await MFABinary.run(["admin", "users", "get", "--email", "desk@example.com"] + target)
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(
            shown.stdout.contains(#""uid" : "\#(created.localId)""#)
                && shown.stdout.contains(#""enrolledFactors" : ["#), "\(shown.stdout)")
        // `users list`: every user as a JSON array; --with-factors keeps those with a factor.
        _ = try await AccountsClient(apiKey: "k", configuration: configuration).signUp(
            SignUpRequest(email: "other@example.com", password: "secret-pw"))
        let listed = try await MFABinary.run(["admin", "users", "list", "--page-size", "1"] + target)
        #expect(listed.status == 0, "\(listed.stderr)")
        let users = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        #expect(Set(users.compactMap { $0["email"] as? String }) == ["desk@example.com", "other@example.com"])
        #expect(listed.stderr.contains("listed 2 users"), "\(listed.stderr)")
        let withFactors = try await MFABinary.run(["admin", "users", "list", "--with-factors"] + target)
        #expect(withFactors.status == 0, "\(withFactors.stderr)")
        #expect(
            (try JSONSerialization.jsonObject(with: Data(withFactors.stdout.utf8)) as? [Any])?.isEmpty == true,
            "\(withFactors.stdout)")
        #expect(try await MFABinary.run(["admin", "users", "list", "--page-size", "0"] + target).status == 2)
        let unknown = try await MFABinary.run(["admin", "users", "get", "--uid", "nobody"] + target)
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("no user with uid or email \"nobody\""))
        let noFactor2 = try await MFABinary.run(
            ["admin", "users", "unenroll", "--uid", created.localId, "--factor", "nope"] + target)
        #expect(noFactor2.status == 2)
        #expect(noFactor2.stderr.contains("the user has no factor 'nope'"))
        let cleared = try await MFABinary.run(
            ["admin", "users", "unenroll", "--uid", created.localId, "--all"] + target)
        #expect(cleared.status == 0, "\(cleared.stderr)")
        #expect(try await MFABinary.run(["admin", "users", "unenroll", "--uid", created.localId] + target).status == 2)
        let revoked = try await MFABinary.run(["admin", "users", "revoke", "--uid", created.localId] + target)
        #expect(revoked.status == 0, "\(revoked.stderr)")
        let refused = try await MFABinary.run(
            ["admin", "verify-token", "--check-revoked"] + target, input: Data(token.utf8))
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("revoked"), "\(refused.stderr)")
        // Without the check the token itself still verifies.
        #expect(try await MFABinary.run(["admin", "verify-token"] + target, input: Data(token.utf8)).status == 0)
        let empty = try await MFABinary.run(["admin", "verify-token"] + target, input: Data())
        #expect(empty.status == 2)
        #expect(empty.stderr.contains("no token given"))
        try await emulator.terminate()
    }
}
