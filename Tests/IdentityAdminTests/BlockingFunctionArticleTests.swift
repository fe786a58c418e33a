import AdminTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IdentityAdmin
import IdentityToolkit
import IdentityToolkitTestSupport
import Testing

@testable import IdentityToolkitEmulator

/// IdentityAdmin's "Blocking functions" article: its snippet is
/// BlockingFunctionSnippet.swift verbatim, and answers as the article says
/// on events the emulator signs.
@Suite struct BlockingFunctionArticleTests {
    @Test func theArticleShowsTheCompiledSnippet() throws {
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        #expect(
            try DocSnippet.shows(
                here.appendingPathComponent("BlockingFunctionSnippet.swift"),
                in: "Sources/IdentityAdmin/IdentityAdmin.docc/BlockingFunctions.md"))
    }

    @Test func staffWithoutTOTPAreRefusedAndEveryoneGetsARole() async throws {
        try await EmulatorSetup.with(project: "demo-blocking-article") { setup in
            let staff = try await setup.admin.tenantManager().createTenant(
                TenantRequest(displayName: "Staff", multiFactorConfig: .totpEnabled(adjacentIntervals: 1)))
            let member = try await setup.admin.createUser(
                CreateUserRequest(email: "member@example.com", password: "correct horse"))
            let clerk = try await setup.admin.tenantManager().authForTenant(staff.tenantID).createUser(
                CreateUserRequest(email: "clerk@example.com", password: "correct horse"))
            let url = "https://auth.example.com/blocking/before-sign-in"
            @Sendable func event(_ uid: String, tenant: String?) async throws -> ByteBuffer {
                let jwt = try await setup.emulator.blockingEvent(
                    uid: uid, tenant: tenant, attempt: .init(type: .beforeSignIn, signInMethod: "password"),
                    functionURL: url)
                return ByteBuffer(string: #"{"data":{"jwt":"\#(jwt)"}}"#)
            }
            let router = blockingFunctionRouter(
                admin: setup.admin, staffTenant: staff.tenantID, roles: [member.uid: "editor"])
            try await Application(router: router).test(.router) { client in
                let memberAnswer = try await client.execute(
                    uri: "/blocking/before-sign-in", method: .post, headers: [.contentType: "application/json"],
                    body: try await event(member.uid, tenant: nil))
                #expect(memberAnswer.status == .ok)
                #expect(
                    String(buffer: memberAnswer.body)
                        == #"{"userRecord":{"customClaims":{"role":"editor"},"updateMask":"customClaims"}}"#)
                let clerkAnswer = try await client.execute(
                    uri: "/blocking/before-sign-in", method: .post, headers: [.contentType: "application/json"],
                    body: try await event(clerk.uid, tenant: staff.tenantID))
                #expect(clerkAnswer.status == .forbidden)
                #expect(String(buffer: clerkAnswer.body).contains("Staff accounts need an authenticator app."))
            }
        }
    }
}
