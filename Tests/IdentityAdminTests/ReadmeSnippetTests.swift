import AdminTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IdentityAdmin
import IdentityToolkitTestSupport
import Testing

/// The README's Swift code: every block is a compiled snippet file shown
/// verbatim (or says why it cannot be one), and the quick start's two
/// snippets do what the README says against an emulator.
@Suite struct ReadmeSnippetTests {
    /// The snippet files the README shows, from the repository's root.
    static let snippetFiles = [
        "Tests/IdentityAdminTests/QuickStartServerSnippet.swift",
        "Tests/QuickStartClient/main.swift",
        "Tests/IdentityToolkitTests/ReadmeClientsSnippet.swift",
        "Tests/MultiFactorAuthTests/ReadmeFirebaseShapedSnippet.swift",
        "Tests/IdentityAdminTests/ReadmeAdminSnippet.swift",
        "Tests/IdentityAdminTests/ReadmeVerifySnippet.swift",
        "Tests/IdentityAdminVaporTests/ReadmeVaporSnippet.swift",
    ]

    /// A block that cannot be a Swift file (a line of Package.swift, a list
    /// of catch clauses) says so on the line above it, with its reason.
    static let notCompiledMarker = "<!-- not compiled: "

    @Test func everySwiftBlockOfTheReadmeIsACompiledSnippet() throws {
        let snippets = try Self.snippetFiles.map { try DocSnippet.code(of: DocSnippet.root.appendingPathComponent($0)) }
        let blocks = try DocSnippet.swiftBlocksWithPrecedingLine(in: "README.md")
        for block in blocks where !block.preceding.hasPrefix(Self.notCompiledMarker) {
            let compiled = snippets.contains(block.code)
            #expect(compiled, "a Swift block of the README is in no snippet file (add it to one that compiles, or mark it '\(Self.notCompiledMarker)<reason> -->'):\n\(block.code)")
        }
        for (file, snippet) in zip(Self.snippetFiles, snippets) {
            let shown = blocks.contains { $0.code == snippet }
            #expect(shown, "the README does not show \(file) verbatim")
        }
        #expect(blocks.filter { $0.preceding.hasPrefix(Self.notCompiledMarker) }.count <= 2)
    }

    /// The server: no token is 401, a password-only sign-in 403, a TOTP sign-in gets its uid.
    @Test func theQuickStartServerProtectsItsRoute() async throws {
        let setup = try await EmulatorSetup.start(project: "demo-mfa")
        defer { Task { await setup.running.stop() } }
        let tokens = try await MiddlewareTokens.make(setup)
        try await quickStartApp(emulator: setup.running.hostAndPort).test(.router) { client in
            #expect(try await client.execute(uri: "/api/me", method: .get).status == .unauthorized)
            let passwordOnly = try await client.execute(uri: "/api/me", method: .get, headers: [.authorization: "Bearer \(tokens.password)"])
            #expect(passwordOnly.status == .unauthorized, "a step-up challenge (RFC 9470)")
            let withTOTP = try await client.execute(uri: "/api/me", method: .get, headers: [.authorization: "Bearer \(tokens.totp)"])
            #expect(withTOTP.status == .ok)
            #expect(String(buffer: withTOTP.body) == tokens.uid)
        }
    }

    /// The client, built as the README's `main.swift` and run as a user runs
    /// it: sign-up, TOTP enrolment and a sign-in with TOTP.
    @Test func theQuickStartClientSignsInWithTOTP() async throws {
        let setup = try await EmulatorSetup.start(project: "demo-mfa")
        defer { Task { await setup.running.stop() } }
        let result = try await BuiltExecutable("QuickStartClient").run([], environment: ["FIREBASE_AUTH_EMULATOR_HOST": setup.running.hostAndPort])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "signed in with totp\n", "\(result.stdout)")
        // Auth says once that the environment variable sent it to the emulator.
        let notices = result.stderr.split(separator: "\n").filter { $0.contains("FIREBASE_AUTH_EMULATOR_HOST is set: Auth sends its requests to the emulator at \(setup.running.hostAndPort)") }
        #expect(notices.count == 1, "\(result.stderr)")
        let user = try await setup.admin.getUser(email: "ada@example.com")
        #expect(user.multiFactor.enrolledFactors.map(\.displayName) == ["Authenticator"])
    }
}
