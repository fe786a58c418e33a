import AdminTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IdentityAdmin
import IdentityToolkit
import IdentityToolkitTestSupport
import Testing

/// IdentityAdmin's "Protecting routes" article: its Hummingbird snippet is
/// ProtectingRoutesSnippet.swift verbatim, and does what the article says.
/// (The Vapor snippet is checked the same way by IdentityAdminVaporTests.)
@Suite struct ProtectingRoutesArticleTests {
    @Test func theArticleShowsTheCompiledSnippet() throws {
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        #expect(
            try DocSnippet.shows(
                here.appendingPathComponent("ProtectingRoutesSnippet.swift"),
                in: "Sources/IdentityAdmin/IdentityAdmin.docc/ProtectingRoutes.md"))
    }

    @Test func theSnippetProtectsItsRoutes() async throws {
        try await EmulatorSetup.with(project: "demo-article-routes") { setup in
            let tokens = try await MiddlewareTokens.make(setup)
            try await Application(router: apiRouter(admin: setup.admin)).test(.router) { client in
                #expect(String(buffer: try await client.execute(uri: "/health", method: .get).body) == "ok")
                #expect(try await client.execute(uri: "/api/me", method: .get).status == .unauthorized)
                let passwordOnly = try await client.execute(
                    uri: "/api/me", method: .get, headers: [.authorization: "Bearer \(tokens.password)"])
                #expect(passwordOnly.status == .unauthorized)
                #expect(
                    passwordOnly.headers[.wwwAuthenticate].flatMap(StepUpChallenge.init(wwwAuthenticate:))?
                        .requiresSecondFactor == true)
                let withTOTP = try await client.execute(
                    uri: "/api/me", method: .get, headers: [.authorization: "Bearer \(tokens.totp)"])
                #expect(String(buffer: withTOTP.body) == "\(tokens.uid) signed in with totp")
            }
        }
    }

    /// The "Policies" snippet is PoliciesSnippet.swift verbatim, and its
    /// routes answer as the article says on the emulator's tokens.
    @Test func thePoliciesSnippetAnswersAsTheArticleSays() async throws {
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        #expect(
            try DocSnippet.shows(
                here.appendingPathComponent("PoliciesSnippet.swift"),
                in: "Sources/IdentityAdmin/IdentityAdmin.docc/ProtectingRoutes.md"))
        try await EmulatorSetup.with(project: "demo-article-policies") { setup in
            let tokens = try await SignInPolicyCases.make(setup).tokens
            let deadline = Date().addingTimeInterval(-86_400)
            try await Application(router: policyRouter(admin: setup.admin, enrollBy: deadline)).test(.router) {
                client in
                func call(_ method: HTTPRequest.Method, _ path: String, _ token: String) async throws -> TestResponse {
                    try await client.execute(uri: path, method: method, headers: [.authorization: "Bearer \(token)"])
                }
                let newcomer = try await call(.get, "/api/account", tokens.newcomer)
                #expect(newcomer.status == .ok)
                #expect(String(buffer: newcomer.body).hasPrefix("welcome; enrol a second factor by "))
                #expect(try await call(.get, "/api/account", tokens.veteran).status == .forbidden)
                #expect(String(buffer: try await call(.get, "/api/account", tokens.freshTOTP).body) == "welcome")
                #expect(
                    String(buffer: try await call(.post, "/api/payouts", tokens.freshTOTP).body)
                        == "paid to \(tokens.enrolledUID)")
                let stale = try await call(.post, "/api/payouts", tokens.staleTOTP)
                #expect(stale.status == .unauthorized)
                #expect(
                    stale.headers[.wwwAuthenticate].flatMap(StepUpChallenge.init(wwwAuthenticate:))?
                        .maximumAuthenticationAge == .seconds(300))
                #expect(try await call(.post, "/api/payouts", tokens.enrolledPassword).status == .unauthorized)
            }
        }
    }
}
