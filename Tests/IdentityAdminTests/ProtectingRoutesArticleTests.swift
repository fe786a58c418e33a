import AdminTestSupport
import Foundation
import IdentityToolkitTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IdentityAdmin
import IdentityToolkit
import Testing

/// IdentityAdmin's "Protecting routes" article: its Hummingbird snippet is
/// ProtectingRoutesSnippet.swift verbatim, and does what the article says.
/// (The Vapor snippet is checked the same way by IdentityAdminVaporTests.)
@Suite struct ProtectingRoutesArticleTests {
    @Test func theArticleShowsTheCompiledSnippet() throws {
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        #expect(try DocSnippet.shows(here.appendingPathComponent("ProtectingRoutesSnippet.swift"), in: "Sources/IdentityAdmin/IdentityAdmin.docc/ProtectingRoutes.md"))
    }

    @Test func theSnippetProtectsItsRoutes() async throws {
        let setup = try await EmulatorSetup.start(project: "demo-article-routes")
        defer { Task { await setup.running.stop() } }
        let tokens = try await MiddlewareTokens.make(setup)
        try await Application(router: apiRouter(admin: setup.admin)).test(.router) { client in
            #expect(String(buffer: try await client.execute(uri: "/health", method: .get).body) == "ok")
            #expect(try await client.execute(uri: "/api/me", method: .get).status == .unauthorized)
            let passwordOnly = try await client.execute(uri: "/api/me", method: .get, headers: [.authorization: "Bearer \(tokens.password)"])
            #expect(passwordOnly.status == .forbidden)
            let withTOTP = try await client.execute(uri: "/api/me", method: .get, headers: [.authorization: "Bearer \(tokens.totp)"])
            #expect(String(buffer: withTOTP.body) == "\(tokens.uid) signed in with totp")
        }
    }
}
