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
/// whose routes are `BlockingFunctionHandler`s: every first factor it
/// emulates (password, email link, phone, IdP, a second factor's
/// finalisation), none for anonymous, custom-token or admin creations (as
/// production), tenants, refusals as the client sees them, what a refusal
/// undoes, a trigger that cannot be reached, and the emulator's page.
@Suite struct EmulatorCallsBlockingFunctionsTests {
    /// A live app serving `before-create` and `before-sign-in` with the
    /// test's decisions, recording every event that reaches them.
    final class LiveFunctions: @unchecked Sendable {
        typealias Decide = @Sendable (AuthBlockingEvent) async -> BlockingFunctionDecision
        let setup: EmulatorSetup
        let project: String
        private let lock = NSLock()
        private var handlers: [String: BlockingFunctionHandler] = [:]
        private var received: [AuthBlockingEvent] = []
        private(set) var base = ""

        init(setup: EmulatorSetup, project: String) {
            self.setup = setup
            self.project = project
        }

        /// The events received so far, oldest first.
        var events: [AuthBlockingEvent] { lock.withLock { received } }

        /// Forgets the events received.
        func clearEvents() { lock.withLock { received = [] } }

        func handler(_ path: String) -> BlockingFunctionHandler? { lock.withLock { handlers[path] } }

        /// Serves `beforeCreate` and `beforeSignIn` with these decisions and
        /// configures the emulator's project to call them.
        func configure(
            beforeCreate: @escaping Decide = { _ in .allow }, beforeSignIn: @escaping Decide = { _ in .allow },
            forwarding credentials: BlockingFunctionCredentials? = nil
        ) async throws {
            let record: @Sendable (AuthBlockingEvent) -> Void = { [self] event in
                lock.withLock { received.append(event) }
            }
            lock.withLock {
                handlers["before-create"] = BlockingFunctionHandler(
                    auth: setup.admin, functionURL: base + "/before-create",
                    beforeCreate: { created in
                        record(created.event)
                        return await beforeCreate(created.event)
                    })
                handlers["before-sign-in"] = BlockingFunctionHandler(
                    auth: setup.admin, functionURL: base + "/before-sign-in",
                    beforeSignIn: { signIn in
                        record(signIn.event)
                        return await beforeSignIn(signIn.event)
                    })
            }
            try await setTriggers(
                ["beforeCreate": base + "/before-create", "beforeSignIn": base + "/before-sign-in"],
                forwarding: credentials)
        }

        /// Sets the project's triggers as they are.
        func setTriggers(_ triggers: [String: String], forwarding credentials: BlockingFunctionCredentials? = nil)
            async throws
        {
            let admin = AdminClient(accessToken: { "owner" }, configuration: setup.configuration)
            _ = try await admin.updateProjectConfig(
                project: project, updateMask: "blockingFunctions",
                body: ProjectConfig(
                    blockingFunctions: BlockingFunctionsConfig(
                        triggers: triggers.mapValues { BlockingFunctionTrigger(functionUri: $0) },
                        forwardInboundCredentials: credentials)))
        }

        /// Runs `body` with an emulator for `project` and the app live.
        static func run(project: String, _ body: @escaping @Sendable (LiveFunctions) async throws -> Void) async throws
        {
            try await EmulatorSetup.with(project: project) { setup in
                let functions = LiveFunctions(setup: setup, project: project)
                let router = Router()
                // A function that answers after Identity Platform's 7 seconds.
                router.post("late") { _, _ -> Response in
                    try await Task.sleep(for: .seconds(14))
                    return Response(
                        status: .ok, headers: [.contentType: "application/json"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: "{}")))
                }
                for path in ["before-create", "before-sign-in"] {
                    router.post(RouterPath(path)) { request, _ -> Response in
                        guard let handler = functions.handler(path) else {
                            return Response(status: .serviceUnavailable)
                        }
                        return try await handler.response(to: request)
                    }
                }
                try await Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
                    .test(
                        .live
                    ) { client in
                        functions.lock.withLock { functions.base = "http://127.0.0.1:\(client.port!)" }
                        try await body(functions)
                    }
            }
        }
    }

    static func claims(_ idToken: String?) throws -> [String: Any] {
        let payload = try #require(idToken?.split(separator: ".").dropFirst().first)
        var base64 = payload.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        let data = try #require(Data(base64Encoded: base64))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// Expects `attempt` to fail as a refused blocking function does, with `message`.
    static func expectRefusal(
        _ message: String, _ attempt: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        do {
            try await attempt()
            Issue.record("a refused attempt succeeded", sourceLocation: sourceLocation)
        } catch let error as IdentityToolkitError {
            #expect(error.serverError?.shortCode == "BLOCKING_FUNCTION_ERROR_RESPONSE", sourceLocation: sourceLocation)
            #expect(error.serverError?.detail?.contains(message) == true, "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
        }
    }

    /// A Google sign-in's `postBody`, with the claims the emulator reads from `id_token`.
    static func idp(_ claims: String, idToken: String? = nil) -> SignInWithIdpRequest {
        var form = URLComponents()
        form.queryItems = [
            URLQueryItem(name: "providerId", value: "google.com"), URLQueryItem(name: "id_token", value: claims),
        ]
        return SignInWithIdpRequest(
            requestUri: "http://localhost", postBody: form.percentEncodedQuery, returnSecureToken: true,
            idToken: idToken)
    }

    @Test func passwordSignUpsAndSignInsGoThroughTheFunctions() async throws {
        try await LiveFunctions.run(project: "demo-blocking-password") { functions in
            let setup = functions.setup
            try await functions.configure(
                beforeCreate: { event in
                    event.user.email?.hasPrefix("blocked") == true
                        ? .deny(message: "Sign-ups from this address are closed.") : .allow
                },
                beforeSignIn: { event in
                    .allow(
                        updating: BlockingFunctionUpdate(
                            displayName: "Checked", customClaims: ["role": .string("member")],
                            sessionClaims: ["via": .string(event.signInMethod ?? "-")]))
                })

            // Allowed: the token carries the custom and the session claims; the account keeps the custom ones.
            let created = try await setup.accounts.signUp(
                SignUpRequest(email: "ok@example.com", password: "correct horse", returnSecureToken: true))
            let token = try Self.claims(created.idToken)
            #expect(token["role"] as? String == "member")
            #expect(token["via"] as? String == "password")
            let stored = try await setup.admin.getUser(uid: created.localId)
            #expect(stored.displayName == "Checked")
            #expect(stored.customClaims?["role"] == .string("member"))
            #expect(stored.customClaims?["via"] == nil, "session claims are not kept")
            #expect(functions.events.map(\.type) == [.beforeCreate, .beforeSignIn])

            // A password sign-in: beforeSignIn again.
            functions.clearEvents()
            let signedIn = try await setup.accounts.signInWithPassword(
                SignInWithPasswordRequest(email: "ok@example.com", password: "correct horse"))
            #expect(try Self.claims(signedIn.idToken)["via"] as? String == "password")
            #expect(functions.events.map(\.type) == [.beforeSignIn])

            // Refused: the client sees the function's message; no account is left.
            await Self.expectRefusal("Sign-ups from this address are closed.") {
                _ = try await setup.accounts.signUp(
                    SignUpRequest(email: "blocked@example.com", password: "correct horse", returnSecureToken: true))
            }
            await #expect(throws: (any Error).self) { _ = try await setup.admin.getUser(email: "blocked@example.com") }

            // A trigger nobody answers fails the sign-in.
            try await functions.setTriggers(["beforeSignIn": "http://127.0.0.1:9/nobody"])
            await Self.expectRefusal("Failed to make request") {
                _ = try await setup.accounts.signInWithPassword(
                    SignInWithPasswordRequest(email: "ok@example.com", password: "correct horse"))
            }

            // One that answers late fails it after 7 seconds, as production.
            try await functions.setTriggers(["beforeSignIn": functions.base + "/late"])
            let started = ContinuousClock.now
            await Self.expectRefusal("Deadline exceeded") {
                _ = try await setup.accounts.signInWithPassword(
                    SignInWithPasswordRequest(email: "ok@example.com", password: "correct horse"))
            }
            let waited = ContinuousClock.now - started
            #expect(waited >= .seconds(6.5) && waited < .seconds(12), "the emulator waited \(waited)")
        }
    }

    @Test func emailLinksPhonesAndIdentityProvidersCallTheFunctions() async throws {
        try await LiveFunctions.run(project: "demo-blocking-first-factors") { functions in
            let setup = functions.setup
            let helpers = EmulatorHelpersClient(configuration: setup.configuration)
            try await functions.configure(
                beforeSignIn: { event in
                    .allow(
                        updating: BlockingFunctionUpdate(sessionClaims: ["method": .string(event.signInMethod ?? "-")]))
                }, forwarding: BlockingFunctionCredentials(idToken: true))

            // An email link: a new account (beforeCreate, beforeSignIn), then the same account again (beforeSignIn).
            for expected in [[BlockingEventType.beforeCreate, .beforeSignIn], [.beforeSignIn]] {
                functions.clearEvents()
                _ = try await setup.accounts.sendOobCode(
                    GetOobCodeRequest(requestType: .emailSignin, email: "link@example.com"))
                let code = try #require(
                    try await helpers.listOobCodes(project: functions.project).oobCodes.last {
                        $0.requestType == .emailSignin
                    }?.oobCode)
                let linked = try await setup.accounts.signInWithEmailLink(
                    SignInWithEmailLinkRequest(email: "link@example.com", oobCode: code))
                #expect(try Self.claims(linked.idToken)["method"] as? String == "emailLink")
                #expect(functions.events.map(\.type) == expected)
                #expect(
                    functions.events.allSatisfy {
                        $0.signInMethod == "emailLink" && $0.user.email == "link@example.com"
                    })
            }

            // A phone number: a new account.
            functions.clearEvents()
            let sent = try await setup.accounts.sendVerificationCode(
                SendVerificationCodeRequest(phoneNumber: "+15555550123"))
            let sessionInfo = try #require(sent.sessionInfo)
            let smsCode = try #require(
                try await helpers.listVerificationCodes(project: functions.project).verificationCodes.last {
                    $0.sessionInfo == sessionInfo
                }?.code)
            let phone = try await setup.accounts.signInWithPhoneNumber(
                SignInWithPhoneNumberRequest(sessionInfo: sessionInfo, code: smsCode))
            #expect(try Self.claims(phone.idToken)["method"] as? String == "phone")
            #expect(functions.events.map(\.type) == [.beforeCreate, .beforeSignIn])
            #expect(functions.events.last?.user.phoneNumber == "+15555550123")

            // An IdP: the IdP's profile, and its ID token (the project forwards it), reach the function.
            functions.clearEvents()
            let google = try await setup.accounts.signInWithIdp(
                Self.idp(#"{"sub":"g-7","email":"g7@example.com","email_verified":true}"#))
            #expect(try Self.claims(google.idToken)["method"] as? String == "google.com")
            let events = functions.events
            #expect(events.map(\.type) == [.beforeCreate, .beforeSignIn])
            #expect(events.allSatisfy { $0.signInMethod == "google.com" })
            #expect(events.last?.claims.rawUserInfo?.contains("g7@example.com") == true)
            #expect(events.last?.credential?.idToken?.contains("g-7") == true)
            #expect(events.last?.credential?.accessToken == nil, "only the ID token is forwarded")
            #expect(
                events.last?.user.providerData?.map(\.providerID) == ["google.com"],
                "an IdP's account has no password provider")
            #expect(
                events.last.map { "\($0)" }?.contains("g-7") == false, "an event's description never shows a credential"
            )

            // Anonymous, custom-token and admin creations call nothing, as in production.
            functions.clearEvents()
            _ = try await setup.accounts.signUp(SignUpRequest(returnSecureToken: true))
            let customToken = try setup.admin.createCustomToken(uid: "custom-1")
            _ = try await setup.accounts.signInWithCustomToken(SignInWithCustomTokenRequest(token: customToken))
            _ = try await setup.admin.createUser(
                CreateUserRequest(email: "admin-made@example.com", password: "correct horse"))
            #expect(functions.events.isEmpty)
        }
    }

    @Test func aRefusalUndoesWhatTheAttemptChanged() async throws {
        try await LiveFunctions.run(project: "demo-blocking-undo") { functions in
            let setup = functions.setup
            let helpers = EmulatorHelpersClient(configuration: setup.configuration)
            let existing = try await setup.accounts.signUp(
                SignUpRequest(email: "kept@example.com", password: "correct horse", returnSecureToken: true))
            try await functions.configure(beforeSignIn: { _ in .deny(message: "Not today.") })

            // An email link would verify the address: refused, it stays unverified.
            _ = try await setup.accounts.sendOobCode(
                GetOobCodeRequest(requestType: .emailSignin, email: "kept@example.com"))
            let code = try #require(
                try await helpers.listOobCodes(project: functions.project).oobCodes.last {
                    $0.requestType == .emailSignin
                }?.oobCode)
            await Self.expectRefusal("Not today.") {
                _ = try await setup.accounts.signInWithEmailLink(
                    SignInWithEmailLinkRequest(email: "kept@example.com", oobCode: code))
            }
            let user = try await setup.admin.getUser(uid: existing.localId)
            #expect(user.emailVerified == false)

            // Linking Google (beforeSignIn, as production): refused, no provider is linked.
            await Self.expectRefusal("Not today.") {
                _ = try await setup.accounts.signInWithIdp(Self.idp(#"{"sub":"g-9"}"#, idToken: existing.idToken))
            }
            let providers =
                try await setup.accounts.lookup(GetAccountInfoRequest(idToken: existing.idToken)).users?.first?
                .providerUserInfo ?? []
            #expect(!providers.isEmpty && !providers.contains { $0.providerId == "google.com" })
            #expect(
                functions.events.count == 2
                    && functions.events.allSatisfy { $0.type == .beforeSignIn && $0.user.uid == existing.localId })

            // A function that disables the new account: it stays, disabled, and the client is told.
            let disabling = BlockingFunctionDecision.allow(updating: BlockingFunctionUpdate(disabled: true))
            try await functions.configure(beforeCreate: { _ in disabling })
            do {
                _ = try await setup.accounts.signUp(
                    SignUpRequest(email: "disabled@example.com", password: "correct horse", returnSecureToken: true))
                Issue.record("a sign-up its function disabled succeeded")
            } catch let error as IdentityToolkitError {
                #expect(error.serverError?.shortCode == "USER_DISABLED")
            }
            #expect(try await setup.admin.getUser(email: "disabled@example.com").disabled == true)
        }
    }

    @Test func secondFactorsTenantsAndTheEmulatorsPage() async throws {
        try await LiveFunctions.run(project: "demo-blocking-mfa") { functions in
            let setup = functions.setup
            try await functions.configure(beforeSignIn: { event in
                // Refuse a tenant's user who has not enrolled TOTP.
                guard
                    event.tenantID == nil
                        || event.user.multiFactor?.enrolledFactors?.contains(where: { $0.factorID == "totp" }) == true
                else {
                    return .deny(message: "This organisation requires an authenticator app.")
                }
                return .allow(
                    updating: BlockingFunctionUpdate(sessionClaims: [
                        "second": .string(event.claims.signInSecondFactor ?? "none")
                    ]))
            })

            // A second factor's finalisation: beforeSignIn then, naming the factor; not at the password step.
            let created = try await setup.accounts.signUp(
                SignUpRequest(email: "mfa@example.com", password: "correct horse", returnSecureToken: true))
            _ = try await setup.admin.updateUser(created.localId, UpdateUserRequest(emailVerified: true))
            let totp = try await setup.enrollTOTP(idToken: try #require(created.idToken), displayName: "Phone")
            functions.clearEvents()
            let finished = try await setup.signInWithTOTP(
                email: "mfa@example.com", password: "correct horse", totp: totp)
            #expect(try Self.claims(finished.idToken)["second"] as? String == "totp")
            #expect(functions.events.map(\.type) == [.beforeSignIn])
            #expect(functions.events.first?.claims.signInSecondFactor == "totp")

            // A tenant's user: the event names the tenant; without TOTP the sign-up is refused and no account is left.
            let tenant = try await setup.admin.tenantManager().createTenant(
                TenantRequest(displayName: "Acme", emailSignInConfig: EmailSignInConfig(enabled: true)))
            let tenantID = tenant.tenantID
            functions.clearEvents()
            await Self.expectRefusal("requires an authenticator app") {
                _ = try await setup.accounts.signUp(
                    SignUpRequest(
                        email: "t@example.com", password: "correct horse", returnSecureToken: true, tenantId: tenantID))
            }
            #expect(functions.events.map(\.tenantID) == [tenantID, tenantID])
            #expect(functions.events.map(\.user.tenantID) == [tenantID, tenantID])

            // The page lists the triggers and the last calls, newest first, refusals with their message.
            var request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: nil)
            request.url = URL(string: "http://\(setup.hostAndPort)/emulator/ui")
            let (_, data) = try await setup.configuration.transport.send(
                request, body: nil, options: TransportOptions(timeout: .seconds(30), maxResponseBytes: 4 << 20))
            let page = String(decoding: data, as: UTF8.self)
            #expect(page.contains("id=\"blocking-triggers\"") && page.contains(functions.base + "/before-sign-in"))
            let calls = try #require(page.range(of: "id=\"blocking-calls\"").map { String(page[$0.upperBound...]) })
            #expect(calls.contains("<strong>refused</strong>: This organisation requires an authenticator app."))
            #expect(calls.contains("allowed, setting sessionClaims"))
            #expect(
                calls.range(of: "refused")!.lowerBound < calls.range(of: "allowed, setting")!.lowerBound, "newest first"
            )
        }
    }
}
