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
        "Tests/IdentityAdminVaporTests/ReadmeVaporSnippet.swift",
        "Tests/QuickStartClient/main.swift",
        "Tests/IdentityAdminTests/ReadmeBreakerSnippet.swift",
    ]

    /// The snippets DocC articles show (each moved there from the README):
    /// the article, then the compiled file it shows verbatim.
    static let articleSnippets = [
        (
            "Sources/IdentityToolkit/IdentityToolkit.docc/UsingTheGeneratedClients.md",
            "Tests/IdentityToolkitTests/ReadmeClientsSnippet.swift"
        ),
        (
            "Sources/MultiFactorAuth/MultiFactorAuth.docc/TheFirebaseShapedAPI.md",
            "Tests/MultiFactorAuthTests/ReadmeFirebaseShapedSnippet.swift"
        ),
        (
            "Sources/IdentityAdmin/IdentityAdmin.docc/AdminAndVerification.md",
            "Tests/IdentityAdminTests/ReadmeAdminSnippet.swift"
        ),
        (
            "Sources/IdentityAdmin/IdentityAdmin.docc/AdminAndVerification.md",
            "Tests/IdentityAdminTests/ReadmeVerifySnippet.swift"
        ),
    ]

    /// A block that cannot be a Swift file (a line of Package.swift, a list
    /// of catch clauses) says so on the line above it, with its reason.
    static let notCompiledMarker = "<!-- not compiled: "

    @Test func everySwiftBlockOfTheReadmeIsACompiledSnippet() throws {
        let snippets = try Self.snippetFiles.map { try DocSnippet.code(of: DocSnippet.root.appendingPathComponent($0)) }
        let blocks = try DocSnippet.swiftBlocksWithPrecedingLine(in: "README.md")
        for block in blocks where !block.preceding.hasPrefix(Self.notCompiledMarker) {
            let compiled = snippets.contains(block.code)
            #expect(
                compiled,
                "a Swift block of the README is in no snippet file (add it to one that compiles, or mark it '\(Self.notCompiledMarker)<reason> -->'):\n\(block.code)"
            )
        }
        for (file, snippet) in zip(Self.snippetFiles, snippets) {
            let shown = blocks.contains { $0.code == snippet }
            #expect(shown, "the README does not show \(file) verbatim")
        }
        #expect(blocks.filter { $0.preceding.hasPrefix(Self.notCompiledMarker) }.count <= 2)
    }

    @Test(arguments: articleSnippets) func eachArticleShowsItsCompiledSnippet(article: String, snippetFile: String)
        throws
    {
        let snippet = try DocSnippet.code(of: DocSnippet.root.appendingPathComponent(snippetFile))
        #expect(
            try DocSnippet.swiftBlocks(in: article).contains(snippet),
            "\(article) does not show \(snippetFile) verbatim")
    }

    /// The README stays a front door: at most 300 lines.
    @Test func theReadmeIsShort() throws {
        let lines = try String(contentsOf: DocSnippet.root.appendingPathComponent("README.md"), encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count <= 300, "README.md has \(lines.count) lines")
    }

    /// The Hummingbird server: no token is 401, a password-only sign-in 401
    /// with a step-up challenge, a TOTP sign-in gets its uid and its factors.
    @Test func theQuickStartServerProtectsItsRoutes() async throws {
        try await EmulatorSetup.with(project: "demo-mfa", overSocket: true) { setup in
            let tokens = try await MiddlewareTokens.make(setup)
            try await quickStartApp(emulator: setup.hostAndPort).test(.router) { client in
                #expect(try await client.execute(uri: "/api/me", method: .get).status == .unauthorized)
                let passwordOnly = try await client.execute(
                    uri: "/api/me", method: .get, headers: [.authorization: "Bearer \(tokens.password)"])
                #expect(passwordOnly.status == .unauthorized, "a step-up challenge (RFC 9470)")
                #expect(
                    passwordOnly.headers[.wwwAuthenticate]?.contains(#"error="insufficient_user_authentication""#)
                        == true)
                // The README shows this answer's header and body as they are.
                let readme = try String(
                    contentsOf: DocSnippet.root.appendingPathComponent("README.md"), encoding: .utf8)
                let shownHeader = "WWW-Authenticate: \(passwordOnly.headers[.wwwAuthenticate] ?? "")"
                #expect(readme.contains(shownHeader + "\n"), "the README should show: \(shownHeader)")
                let shownBody = String(buffer: passwordOnly.body)
                #expect(readme.contains("\n" + shownBody + "\n"), "the README should show: \(shownBody)")
                let withTOTP = try await client.execute(
                    uri: "/api/me", method: .get, headers: [.authorization: "Bearer \(tokens.totp)"])
                #expect(withTOTP.status == .ok)
                #expect(String(buffer: withTOTP.body) == tokens.uid)
                let factors = try await client.execute(
                    uri: "/api/factors", method: .get, headers: [.authorization: "Bearer \(tokens.totp)"])
                #expect(factors.status == .ok)
                let listed = try JSONDecoder().decode([[String: String]].self, from: Data(buffer: factors.body))
                #expect(
                    listed.map { $0["kind"] } == ["totp"] && listed.first?["name"] == "Phone app"
                        && listed.first?["id"]?.isEmpty == false)
            }
        }
    }

    /// The client, built as the README's `main.swift` and run as a user runs
    /// it: sign-up, TOTP enrolment and a sign-in with TOTP.
    @Test func theQuickStartClientSignsInWithTOTP() async throws {
        try await EmulatorSetup.with(project: "demo-mfa", overSocket: true) { setup in
            let result = try await BuiltExecutable("QuickStartClient").run(
                [], environment: ["FIREBASE_AUTH_EMULATOR_HOST": setup.hostAndPort])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == "signed in with totp\n", "\(result.stdout)")
            // Auth says once that the environment variable sent it to the emulator.
            let notices = result.stderr.split(separator: "\n").filter {
                $0.contains(
                    "FIREBASE_AUTH_EMULATOR_HOST is set: Auth sends its requests to the emulator at \(setup.hostAndPort)"
                )
            }
            #expect(notices.count == 1, "\(result.stderr)")
            let user = try await setup.admin.getUser(email: "ada@example.com")
            #expect(user.multiFactor.enrolledFactors.map(\.displayName) == ["Authenticator"])
        }
    }
}
