import AdminTestSupport
import Foundation
import IdentityAdmin
import IdentityAdminVapor
import IdentityToolkit
import Testing
import Vapor
import VaporTesting

@testable import IdentityToolkitEmulator

/// The Vapor route of a blocking function, on an event the emulator signs.
@Suite struct BlockingFunctionRouteTests {
    @Test func theVaporRouteServesTheHandler() async throws {
        try await EmulatorSetup.with(project: "demo-vapor-blocking") { setup in
            let uid = try await setup.accounts.signUp(
                SignUpRequest(email: "vapor-blocking@example.com", password: "correct horse", returnSecureToken: true)
            ).localId
            let url = "https://auth.example.com/blocking/before-sign-in"
            let jwt = try await setup.emulator.blockingEvent(
                uid: uid, tenant: nil, attempt: .init(type: .beforeSignIn, signInMethod: "password"),
                functionURL: url)
            let app = try await Application.make(.testing)
            app.post(
                "blocking", "before-sign-in",
                blockingFunction: BlockingFunctionHandler(
                    auth: setup.admin, functionURL: url,
                    beforeSignIn: { event in
                        .allow(updating: BlockingFunctionUpdate(customClaims: ["uid": .string(event.event.user.uid)]))
                    }))
            do {
                var headers = HTTPHeaders()
                headers.contentType = .json
                try await app.testing().test(
                    .POST, "blocking/before-sign-in", headers: headers,
                    body: ByteBuffer(string: #"{"data":{"jwt":"\#(jwt)"}}"#)
                ) {
                    #expect($0.status == .ok)
                    #expect(
                        $0.body.string
                            == #"{"userRecord":{"customClaims":{"uid":"\#(uid)"},"updateMask":"customClaims"}}"#)
                }
                // The same event again: refused.
                try await app.testing().test(
                    .POST, "blocking/before-sign-in", headers: headers,
                    body: ByteBuffer(string: #"{"data":{"jwt":"\#(jwt)"}}"#)
                ) {
                    #expect($0.status == .unauthorized)
                }
            } catch {
                try await app.asyncShutdown()
                throw error
            }
            try await app.asyncShutdown()
        }
    }
}
