import AdminTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IdentityAdmin
import IdentityAdminHummingbird
import IdentityToolkit
import IdentityToolkitAsyncHTTPClient
import Testing

/// The emulator calling the configured triggers of a live Hummingbird app
/// whose routes are `BlockingFunctionHandler`s: sign-up (beforeCreate, then
/// beforeSignIn), a password sign-in, a refusal as the client sees it, and
/// a trigger that cannot be reached.
@Suite struct EmulatorCallsBlockingFunctionsTests {
    /// The handlers, made once the app's port (their URLs) is known.
    final class Handlers: @unchecked Sendable {
        private let lock = NSLock()
        private var handlers: [String: BlockingFunctionHandler] = [:]

        func set(_ path: String, _ handler: BlockingFunctionHandler) { lock.withLock { handlers[path] = handler } }
        func handler(_ path: String) -> BlockingFunctionHandler? { lock.withLock { handlers[path] } }
    }

    static func claims(_ idToken: String) throws -> [String: Any] {
        let payload = try #require(idToken.split(separator: ".").dropFirst().first)
        var base64 = payload.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        let data = try #require(Data(base64Encoded: base64))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func signUpsAndSignInsGoThroughTheFunctions() async throws {
        let setup = try await EmulatorSetup.start(project: "demo-blocking-calls")
        defer { Task { await setup.running.stop() } }
        let handlers = Handlers()
        let router = Router()
        for path in ["before-create", "before-sign-in"] {
            router.post(RouterPath(path)) { request, _ -> Response in
                guard let handler = handlers.handler(path) else { return Response(status: .serviceUnavailable) }
                let body = try await request.body.collect(upTo: 64 * 1024)
                let answer = await handler.respond(to: Data(buffer: body), contentType: request.headers[.contentType])
                return Response(status: .init(code: answer.status), headers: [.contentType: "application/json"],
                                body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
            }
        }
        let admin = AdminClient(accessToken: { "owner" }, configuration: setup.configuration)
        try await Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0))).test(.live) { client in
            let base = "http://127.0.0.1:\(client.port!)"
            handlers.set("before-create", BlockingFunctionHandler(auth: setup.admin, functionURL: base + "/before-create", beforeCreate: { created in
                created.event.user.email?.hasPrefix("blocked") == true ? .deny(message: "Sign-ups from this address are closed.") : .allow
            }))
            handlers.set("before-sign-in", BlockingFunctionHandler(auth: setup.admin, functionURL: base + "/before-sign-in", beforeSignIn: { signIn in
                .allow(updating: BlockingFunctionUpdate(displayName: "Checked", customClaims: ["role": .string("member")],
                                                        sessionClaims: ["via": .string(signIn.event.signInMethod ?? "-")]))
            }))
            _ = try await admin.updateProjectConfig(project: "demo-blocking-calls", updateMask: "blockingFunctions.triggers", body: ProjectConfig(
                blockingFunctions: BlockingFunctionsConfig(triggers: [
                    "beforeCreate": BlockingFunctionTrigger(functionUri: base + "/before-create"),
                    "beforeSignIn": BlockingFunctionTrigger(functionUri: base + "/before-sign-in"),
                ])))

            // Allowed: the token carries the custom and the session claims; the account keeps the custom ones.
            let created = try await setup.accounts.signUp(SignUpRequest(email: "ok@example.com", password: "correct horse", returnSecureToken: true))
            let token = try Self.claims(try #require(created.idToken))
            #expect(token["role"] as? String == "member")
            #expect(token["via"] as? String == "password")
            let stored = try await setup.admin.getUser(uid: created.localId)
            #expect(stored.displayName == "Checked")
            #expect(stored.customClaims?["role"] == .string("member"))
            #expect(stored.customClaims?["via"] == nil, "session claims are not kept")

            // A password sign-in: beforeSignIn again.
            let signedIn = try await setup.accounts.signInWithPassword(SignInWithPasswordRequest(email: "ok@example.com", password: "correct horse"))
            #expect(try Self.claims(try #require(signedIn.idToken))["via"] as? String == "password")

            // Refused: the client sees the function's message; no account is left.
            do {
                _ = try await setup.accounts.signUp(SignUpRequest(email: "blocked@example.com", password: "correct horse", returnSecureToken: true))
                Issue.record("a refused sign-up succeeded")
            } catch let error as IdentityToolkitError {
                #expect(error.serverError?.shortCode == "BLOCKING_FUNCTION_ERROR_RESPONSE")
                #expect(error.serverError?.detail?.contains("Sign-ups from this address are closed.") == true, "\(error)")
            }
            await #expect(throws: (any Error).self) { _ = try await setup.admin.getUser(email: "blocked@example.com") }

            // A trigger nobody answers fails the sign-in.
            _ = try await admin.updateProjectConfig(project: "demo-blocking-calls", updateMask: "blockingFunctions.triggers", body: ProjectConfig(
                blockingFunctions: BlockingFunctionsConfig(triggers: ["beforeSignIn": BlockingFunctionTrigger(functionUri: "http://127.0.0.1:9/nobody")])))
            do {
                _ = try await setup.accounts.signInWithPassword(SignInWithPasswordRequest(email: "ok@example.com", password: "correct horse"))
                Issue.record("a sign-in with an unreachable function succeeded")
            } catch let error as IdentityToolkitError {
                #expect(error.serverError?.shortCode == "BLOCKING_FUNCTION_ERROR_RESPONSE")
            }
        }
    }
}
