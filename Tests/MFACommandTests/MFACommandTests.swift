import Foundation
import IdentityOTP
import IdentityToolkitTestSupport
import Testing

/// Runs the built `mfa` binary.
/// The `mfa` executable `swift test` built.
enum MFABinary {
    typealias Result = BuiltExecutable.Result
    static let executable = BuiltExecutable("mfa")

    /// Runs `mfa` with `arguments`; `input` is written to its standard input.
    static func run(_ arguments: [String], input: Data? = nil, environment: [String: String] = [:]) async throws
        -> Result
    {
        try await executable.run(arguments, input: input, environment: environment)
    }
}

/// `--help` at every level prints the usage on stdout and exits 0.
@Suite struct MFAHelpTests {
    @Test(arguments: [
        [], ["demo"], ["emulator"], ["totp", "code"], ["admin"], ["admin", "users"], ["admin", "users", "list"],
        ["admin", "users", "recovery-codes"], ["admin", "verify-token"],
    ])
    func helpPrintsUsage(_ command: [String]) async throws {
        let result = try await MFABinary.run(command + ["--help"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("USAGE: mfa"), "\(result.stdout)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
    }
}

@Suite struct MFATOTPCommandTests {
    static let rfcSecret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"

    @Test func codePrintsTheRFCValue() async throws {
        let result = try await MFABinary.run([
            "totp", "code", "--secret", Self.rfcSecret, "--digits", "8", "--time", "20000000000",
        ])
        #expect(result.status == 0)
        #expect(result.stdout == "65353130\n")
        let sha256 = try await MFABinary.run([
            "totp", "code", "--secret", Base32.encode(Array("12345678901234567890123456789012".utf8)),
            "--algorithm", "SHA256", "--digits", "8", "--time", "59",
        ])
        #expect(sha256.stdout == "46119246\n")
        let lenient = try await MFABinary.run([
            "totp", "code", "--secret", "gezd gnbv-gy3t qojq gezd gnbv gy3t qojq", "--digits", "8", "--time", "59",
        ])
        #expect(lenient.stdout == "94287082\n")
    }

    /// The secret off the command line: standard input (the default) or a file.
    @Test func theSecretComesFromStandardInputOrAFile() async throws {
        let piped = try await MFABinary.run(
            ["totp", "code", "--digits", "8", "--time", "59"], input: Data((Self.rfcSecret + "\n").utf8))
        #expect(piped.status == 0)
        #expect(piped.stdout == "94287082\n")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("mfa-secret-\(UUID().uuidString)")
        try Data(Self.rfcSecret.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let fromFile = try await MFABinary.run([
            "totp", "verify", "--secret-file", file.path, "--digits", "8", "--time", "59", "--code", "94287082",
        ])
        #expect(fromFile.status == 0)
        let none = try await MFABinary.run(["totp", "code"], input: Data())
        #expect(none.status == 2)
        #expect(none.stderr.contains("no secret"))
        let both = try await MFABinary.run(["totp", "code", "--secret", Self.rfcSecret, "--secret-file", file.path])
        #expect(both.status == 2)
        let missing = try await MFABinary.run(["totp", "code", "--secret-file", "/nonexistent/secret"])
        #expect(missing.status == 2)
        #expect(!missing.stderr.contains(Self.rfcSecret))
    }

    /// A secret or token input past 64 KiB is refused, saying where it came
    /// from: never cut short in silence, never read without end.
    @Test func oversizedSecretsAndTokensAreRefused() async throws {
        let huge = Data(repeating: UInt8(ascii: "A"), count: 64 * 1024 + 1)
        let piped = try await MFABinary.run(["totp", "code"], input: huge)
        #expect(piped.status == 2)
        #expect(piped.stderr.contains("standard input holds more than 64 KiB; a TOTP secret is far shorter"))
        let endless = try await MFABinary.run(["totp", "code", "--secret-file", "/dev/zero"])
        #expect(endless.status == 2)
        #expect(endless.stderr.contains("--secret-file /dev/zero holds more than 64 KiB"), "\(endless.stderr)")
        let token = try await MFABinary.run(
            ["admin", "verify-token", "--project", "p", "--emulator", "127.0.0.1:9"], input: huge)
        #expect(token.status == 2)
        #expect(token.stderr.contains("an ID token is far shorter"), "\(token.stderr)")
        let exact = try await MFABinary.run(
            ["totp", "code"], input: Data(repeating: UInt8(ascii: " "), count: 64 * 1024))
        #expect(exact.stderr.contains("no secret"), "64 KiB is within the limit: \(exact.stderr)")
    }

    @Test func verifyExitsZeroOrOne() async throws {
        let valid = try await MFABinary.run([
            "totp", "verify", "--secret", Self.rfcSecret, "--digits", "8", "--time", "89", "--code", "94287082",
        ])
        #expect(valid.status == 0)
        #expect(valid.stdout == "valid (step -1)\n")
        let outside = try await MFABinary.run([
            "totp", "verify", "--secret", Self.rfcSecret, "--digits", "8", "--time", "89", "--code", "94287082",
            "--window", "0",
        ])
        #expect(outside.status == 1)
        #expect(outside.stdout == "invalid\n")
    }

    @Test func secretAndURI() async throws {
        let secret = try await MFABinary.run(["totp", "secret", "--bytes", "32"])
        #expect(secret.status == 0)
        #expect(try Base32.decode(secret.stdout.trimmingCharacters(in: .newlines)).count == 32)
        let uri = try await MFABinary.run([
            "totp", "uri", "--secret", "JBSWY3DPEHPK3PXP", "--allow-short-secret", "--account", "ada@example.com",
            "--issuer", "ACME Co", "--digits", "8",
        ])
        #expect(
            uri.stdout
                == "otpauth://totp/ACME%20Co:ada%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=ACME%20Co&digits=8\n")
    }

    @Test func qrFormats() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mfa-qr-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let uri = "otpauth://totp/ACME:ada?secret=JBSWY3DPEHPK3PXP&issuer=ACME"
        let png = folder.appendingPathComponent("q.png").path
        #expect(
            try await MFABinary.run(["totp", "qr", "--uri", uri, "--format", "png", "--output", png, "--ecc", "H"])
                .status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: png)).prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
        let svg = try await MFABinary.run(["totp", "qr", "--uri", uri, "--format", "svg"])
        #expect(svg.stdout.hasPrefix("<?xml"))
        #expect(svg.stdout.contains("<path"))
        let text = try await MFABinary.run(["totp", "qr", "--uri", uri, "--format", "text"])
        // Not a terminal: no colour codes; the expected module rows are there.
        #expect(!text.stdout.contains("\u{1B}["))
        let expected = try QRCode(text: uri).terminalText(ansiColors: false)
        #expect(text.stdout == expected)
    }

    @Test(
        arguments: [
            (["totp", "code", "--secret", "GEZ0"], "the secret is not valid base32"),
            (["totp", "code", "--secret", "JBSWY3DP", "--digits", "9"], "--digits must be 6, 7 or 8, not 9"),
            (["totp", "code", "--secret", "JBSWY3DP", "--period", "0"], "--period must be at least 1 second, not 0"),
            (["totp", "code", "--secret", "JBSWY3DP", "--algorithm", "MD5"], "'--algorithm <algorithm>'"),
            (
                ["totp", "code", "--secret", "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", "--time=-5"],
                "--time must not be negative"
            ),
            (["totp", "secret", "--bytes", "8"], "--bytes must be at least 16, not 8"),
            (
                ["totp", "verify", "--secret", "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", "--code", "1", "--window", "11"],
                "--window must be 0 to 10, not 11"
            ),
            (
                ["totp", "uri", "--secret", "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", "--account", "", "--issuer", "i"],
                "--account must not be empty"
            ),
            (
                ["totp", "qr", "--uri", String(repeating: "x", count: 3000), "--format", "svg"],
                "does not fit a QR code"
            ),
            (["totp", "qr", "--uri", "x", "--ecc", "Z"], "'--ecc <ecc>'"),
            (
                ["totp", "qr", "--uri", "x", "--format", "svg", "--output", "/nonexistent/dir/q.svg"],
                "--output: cannot write"
            ),
            (["totp", "nope"], "Unexpected argument 'nope'"),
            (["totp", "qr", "--uri", "", "--format", "svg"], "--uri must not be empty"),
            (["totp", "qr", "--uri", "x", "--format", "svg", "--output", ""], "--output must name a file"),
            // An 80-bit secret, as many old examples have, is below RFC 4226's 128 bits.
            (["totp", "code", "--secret", "JBSWY3DPEHPK3PXP"], "the secret has 10 bytes; at least 16 are required"),
            (["emulator", "--recent-sign-in", "0"], "--recent-sign-in must be 1 to 86400 seconds, not 0"),
            (
                ["emulator", "--challenge-lifetime", "99999"],
                "--challenge-lifetime must be 1 to 86400 seconds, not 99999"
            ),
            (["emulator", "--max-code-attempts", "0"], "--max-code-attempts must be 1 to 1000, not 0"),
        ] as [([String], String)])
    func badInputIsOneLineOnStderrAndExitTwo(arguments: [String], message: String) async throws {
        let result = try await MFABinary.run(arguments)
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("mfa: "))
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test func secretsNeverAppearInErrors() async throws {
        let result = try await MFABinary.run(["totp", "code", "--secret", "SECRETKEY8"])
        #expect(result.status == 2)
        #expect(!result.stderr.contains("SECRETKEY"))
    }
}

/// `mfa demo` and `mfa admin` against a broken server: one line naming the
/// step, a non-zero exit, within the request deadline.
@Suite struct MFAHostileServerTests {
    @Test(arguments: [
        HostileHTTPServer.Behaviour.trickle(interval: .milliseconds(100)),
        .respond(status: 503, headers: [("content-type", "text/html")], body: Array("<html>down</html>".utf8)),
        .json(200, #"{"nowMillis": -5000, "mfa": {}}"#),
    ])
    func demoNamesTheFailingStep(behaviour: HostileHTTPServer.Behaviour) async throws {
        let server = try await HostileHTTPServer(behaviour)
        let started = ContinuousClock.now
        let result = try await MFABinary.run(["demo", "--emulator", server.hostAndPort, "--timeout", "2", "--no-qr"])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let failures = result.stdout.split(separator: "\n").filter { $0.hasPrefix("✘ ") }
        #expect(failures.count == 1, "\(result.stdout)")
        #expect(ContinuousClock.now - started < .seconds(20))
        try await server.shutdown()
    }

    @Test func adminReportsServerErrorsWithExitOne() async throws {
        let server = try await HostileHTTPServer(
            .respond(status: 503, headers: [("content-type", "text/html")], body: Array("<html>down</html>".utf8)))
        let result = try await MFABinary.run([
            "admin", "show-config", "--project", "p", "--emulator", server.hostAndPort,
        ])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stderr.contains("503"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        try await server.shutdown()
    }
}
