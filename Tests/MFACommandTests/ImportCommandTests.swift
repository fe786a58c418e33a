import Foundation
import IdentityToolkit
import IdentityToolkitTestSupport
import Testing

/// `mfa admin users import` and `mfa emulator --import/--export-on-exit`,
/// as separate processes.
@Suite struct ImportCommandTests {
    let emulators = AdminAndEmulatorCommandTests()

    static func temporaryFile(_ name: String, _ contents: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("mfa-\(UUID().uuidString)-\(name)")
        try Data(contents.utf8).write(to: url)
        return url
    }

    /// A `firebase auth:export` file with a SCRYPT hash (firebase/scrypt's
    /// published example) and a user the server refuses; the key from a
    /// file, progress on standard error, the result on standard output.
    @Test func importsAnAuthExportFile() async throws {
        let (emulator, address) = try await emulators.startEmulator()
        let file = try Self.temporaryFile(
            "users.json",
            """
            {"users": [
              {"localId": "grace", "email": "grace@example.com", "emailVerified": true, "displayName": "Grace",
               "passwordHash": "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==",
               "salt": "42xEC+ixf3L2lw==", "createdAt": "1600000000000"},
              {"localId": "bad", "email": "a@b"}
            ]}
            """)
        let key = try Self.temporaryFile(
            "key", "jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==\n")
        defer {
            try? FileManager.default.removeItem(at: file)
            try? FileManager.default.removeItem(at: key)
        }
        let imported = try await MFABinary.run([
            "admin", "users", "import", file.path, "--project", "demo-mfa", "--emulator", address,
            "--hash-algo", "SCRYPT", "--hash-key-file", key.path, "--salt-separator", "Bw==",
            "--rounds", "8", "--mem-cost", "14",
        ])
        #expect(imported.status == 1, "\(imported.stderr)")
        #expect(imported.stderr.contains("imported 2 of 2 users (1 refused)"))
        #expect(imported.stderr.contains("1 of 2 users were refused"))
        #expect(
            imported.stdout.contains(#""successCount" : 1"#)
                && imported.stdout.contains(#""message" : "email is invalid""#))
        let user = try await MFABinary.run([
            "admin", "users", "get", "--project", "demo-mfa", "--emulator", address, "--uid", "grace",
        ])
        #expect(user.stdout.contains("grace@example.com"))
        try await emulator.terminate()
    }

    @Test(
        arguments: [
            (["--hash-algo", "ARGON2"], "--hash-algo must be one of"),
            ([], "the file has password hashes: give --hash-algo"),
            (["--hash-algo", "HMAC_SHA256"], "--hash-algo HMAC_SHA256 needs --hash-key-file"),
            (["--hash-algo", "SHA256"], "--hash-algo SHA256 needs --rounds"),
        ] as [([String], String)])
    func badImportInputSendsNothing(extra: [String], message: String) async throws {
        let file = try Self.temporaryFile(
            "users.json", #"{"users":[{"localId":"u","passwordHash":"aGFzaA==","salt":"c2FsdA=="}]}"#)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await MFABinary.run(
            ["admin", "users", "import", file.path, "--project", "p", "--emulator", "127.0.0.1:9"] + extra)
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func aFileThatDoesNotDecodeNamesTheField() async throws {
        let file = try Self.temporaryFile("users.json", #"{"users":[{"email":"x@example.com"}]}"#)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await MFABinary.run([
            "admin", "users", "import", file.path, "--project", "p", "--emulator", "127.0.0.1:9",
        ])
        #expect(result.status == 2 && result.stderr.contains("users[0].localId is missing"), "\(result.stderr)")
    }

    /// Data survives a restart: exported on SIGTERM, imported at start; a
    /// corrupt folder stops the emulator with exit 2, naming file and field.
    @Test func dataSurvivesARestart() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mfa-export-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (first, address) = try await emulators.startEmulator(["--export-on-exit", folder.path])
        let created = try await MFABinary.run([
            "admin", "users", "import",
            try Self.temporaryFile("u.json", #"{"users":[{"localId":"kept","email":"kept@example.com"}]}"#).path,
            "--project", "demo-mfa", "--emulator", address,
        ])
        #expect(created.status == 0, "\(created.stderr)")
        #expect(try await first.terminate() == 0)
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("auth_export/accounts.json").path))

        let (second, again) = try await emulators.startEmulator(["--import", folder.path])
        let user = try await MFABinary.run([
            "admin", "users", "get", "--project", "demo-mfa", "--emulator", again, "--uid", "kept",
        ])
        #expect(user.stdout.contains("kept@example.com"), "\(user.stderr)")

        try Data(#"{"users":[{"localId":"a","createdAt":"yesterday"}]}"#.utf8).write(
            to: folder.appendingPathComponent("auth_export/accounts.json"))
        let refused = try await MFABinary.run(["emulator", "--port", "0", "--import", folder.path])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("auth_export/accounts.json: users[0].createdAt"), "\(refused.stderr)")
        #expect(refused.stdout.isEmpty)
        try await second.terminate()
    }
}
