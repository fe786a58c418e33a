import AdminTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IdentityAdmin
import IdentityAdminHummingbird
import IdentityOTP
import IdentityToolkit
import Testing

@testable import IdentityToolkitEmulator

/// Blocking-function handlers on events the emulator signs, as production
/// signs them with the ID tokens' keys: every answer's status and body.
@Suite struct BlockingFunctionHandlerTests {
    static let url = "https://auth.example.com/blocking/before-sign-in"

    /// A signed-up user and events about them.
    struct Fixture {
        let setup: EmulatorSetup
        let uid: String

        /// Runs `body` with a fixture on a fresh emulator for `project`.
        static func with(_ project: String, _ body: @Sendable (Fixture) async throws -> Void) async throws {
            try await EmulatorSetup.with(project: project) { setup in
                let uid = try await setup.accounts.signUp(
                    SignUpRequest(email: "blocking@example.com", password: "correct horse", returnSecureToken: true)
                ).localId
                try await body(Fixture(setup: setup, uid: uid))
            }
        }

        func event(
            _ type: BlockingEventType = .beforeSignIn, url: String = BlockingFunctionHandlerTests.url,
            tenant: String? = nil,
            secondFactor: String? = nil
        ) async throws -> String {
            try await setup.emulator.blockingEvent(
                uid: uid, tenant: tenant,
                attempt: .init(
                    type: type, signInMethod: "password", secondFactor: secondFactor, ipAddress: "192.0.2.1",
                    userAgent: "tests"),
                functionURL: url)
        }

        static func body(_ jwt: String) -> Data { Data(#"{"data":{"jwt":"\#(jwt)"}}"#.utf8) }
    }

    static func json(_ answer: BlockingFunctionAnswer) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any] ?? [:]
    }

    static func errorStatus(_ answer: BlockingFunctionAnswer) -> String? {
        (json(answer)["error"] as? [String: Any])?["status"] as? String
    }

    @Test func allowsUpdatesAndDenies() async throws {
        try await Fixture.with("demo-blocking-decisions") { fixture in
            let seen = Recorded<String>()
            let handler = BlockingFunctionHandler(
                auth: fixture.setup.admin, functionURL: Self.url,
                beforeSignIn: { event in
                    await seen.add(
                        "\(event.event.user.email ?? "-") \(event.event.ipAddress ?? "-") \(event.secondFactor ?? "none")"
                    )
                    switch event.event.user.email {
                    case "blocking@example.com" where event.secondFactor == nil: return .allow
                    case "blocking@example.com":
                        return .allow(
                            updating: BlockingFunctionUpdate(
                                displayName: "Ada", customClaims: ["role": .string("admin")],
                                sessionClaims: ["mfa": .bool(true)]))
                    default: return .deny(message: "not this one")
                    }
                })
            let allowed = await handler.respond(
                to: Fixture.body(try await fixture.event()), contentType: "application/json")
            #expect(allowed.status == 200)
            #expect(String(decoding: allowed.body, as: UTF8.self) == "{}")

            let updated = await handler.respond(
                to: Fixture.body(try await fixture.event(secondFactor: "totp")),
                contentType: "application/json; charset=utf-8")
            #expect(updated.status == 200)
            let record = try #require(Self.json(updated)["userRecord"] as? [String: Any])
            #expect(record["updateMask"] as? String == "displayName,customClaims,sessionClaims")
            #expect((record["customClaims"] as? [String: String]) == ["role": "admin"])
            #expect((record["sessionClaims"] as? [String: Bool]) == ["mfa": true])
            #expect(await seen.all == ["blocking@example.com 192.0.2.1 none", "blocking@example.com 192.0.2.1 totp"])

            // A beforeCreate event where only beforeSignIn is served, and claims that break the rules.
            let noHandler = await handler.respond(
                to: Fixture.body(try await fixture.event(.beforeCreate)), contentType: "application/json")
            #expect(noHandler.status == 400)
            let reserved = BlockingFunctionHandler(
                auth: fixture.setup.admin, functionURL: Self.url,
                beforeSignIn: { _ in
                    .allow(updating: BlockingFunctionUpdate(customClaims: ["firebase": .string("mine")]))
                })
            let refused = await reserved.respond(
                to: Fixture.body(try await fixture.event()), contentType: "application/json")
            #expect(refused.status == 400)
            #expect(Self.errorStatus(refused) == "INVALID_ARGUMENT")

            let denying = BlockingFunctionHandler(
                auth: fixture.setup.admin, functionURL: Self.url,
                beforeSignIn: { _ in
                    .deny(message: "Add an authenticator app first.")
                })
            let denied = await denying.respond(
                to: Fixture.body(try await fixture.event()), contentType: "application/json")
            #expect(denied.status == 403)
            #expect(Self.errorStatus(denied) == "PERMISSION_DENIED")
            #expect(
                (Self.json(denied)["error"] as? [String: Any])?["message"] as? String
                    == "Add an authenticator app first.")
        }
    }

    @Test func refusesForgedExpiredMisdirectedAndReplayedEvents() async throws {
        try await Fixture.with("demo-blocking-refusals") { fixture in
            let handler = BlockingFunctionHandler(
                auth: fixture.setup.admin, functionURL: Self.url, beforeSignIn: { _ in .allow })
            func code(_ jwt: String, now: Date = Date()) async -> (Int, String?) {
                do {
                    _ = try await handler.verifiedEvent(jwt, now: now)
                    return (200, nil)
                } catch {
                    return (401, error.tokenError?.code.description ?? (error.isReplay ? "replayed" : "\(error)"))
                }
            }
            let event = try await fixture.event()
            var forged = Array(event)
            let middle = forged.count - 20
            forged[middle] = forged[middle] == "A" ? "B" : "A"
            #expect(await code(String(forged)) == (401, "badSignature"))
            #expect(await code(try await fixture.event(url: "https://evil.example.com/hook")) == (401, "wrongAudience"))
            #expect(await code(try await fixture.event(), now: Date().addingTimeInterval(120)) == (401, "expired"))
            #expect(await code("not.a.jwt") == (401, "malformed"))
            // Another project's handler: its issuer is not the events'.
            let other = IdentityAdmin.emulator(
                projectID: "demo-elsewhere", hostAndPort: fixture.setup.hostAndPort, transport: fixture.setup.transport)
            let elsewhere = BlockingFunctionHandler(auth: other, functionURL: Self.url, beforeSignIn: { _ in .allow })
            await #expect(throws: BlockingEventRefusal.self) {
                _ = try await elsewhere.verifiedEvent(try await fixture.event())
            }
            // A tenant's handler refuses the project's users' events.
            let tenant = BlockingFunctionHandler(
                auth: fixture.setup.admin.tenantManager().authForTenant("tenant-a"), functionURL: Self.url,
                beforeSignIn: { _ in .allow })
            let mismatch = await tenant.respond(
                to: Fixture.body(try await fixture.event()), contentType: "application/json")
            #expect(mismatch.status == 401)
            // Once handled, an event is refused everywhere the replay store is shared.
            let once = try await fixture.event()
            #expect(await handler.respond(to: Fixture.body(once), contentType: "application/json").status == 200)
            let replayed = await handler.respond(to: Fixture.body(once), contentType: "application/json")
            #expect(replayed.status == 401)
            #expect(String(decoding: replayed.body, as: UTF8.self).contains("already handled"))
            #expect(!String(decoding: replayed.body, as: UTF8.self).contains(once))
            // Not JSON, or JSON without the event.
            #expect(await handler.respond(to: Fixture.body(once), contentType: "text/plain").status == 400)
            #expect(await handler.respond(to: Data("{}".utf8), contentType: "application/json").status == 400)
        }
    }

    /// A closure over the budget is cancelled; the answer comes in time.
    @Test func aSlowClosureIsCancelledAtTheBudget() async throws {
        try await Fixture.with("demo-blocking-budget") { fixture in
            let cancelled = Recorded<Bool>()
            let handler = BlockingFunctionHandler(
                auth: fixture.setup.admin, functionURL: Self.url, budget: .milliseconds(200),
                beforeSignIn: { _ in
                    do { try await Task.sleep(for: .seconds(30)) } catch { await cancelled.add(true) }
                    return .allow
                })
            let started = ContinuousClock.now
            let answer = await handler.respond(
                to: Fixture.body(try await fixture.event()), contentType: "application/json")
            #expect(ContinuousClock.now - started < .seconds(10))
            #expect(answer.status == 504)
            #expect(Self.errorStatus(answer) == "DEADLINE_EXCEEDED")
            // The closure saw its cancellation (generous: two shared cores).
            for _ in 0..<100 where await cancelled.all.isEmpty { try await Task.sleep(for: .milliseconds(50)) }
            #expect(await cancelled.all == [true])
        }
    }

    /// The Hummingbird route answers what the handler answers.
    @Test func theHummingbirdRouteServesTheHandler() async throws {
        try await Fixture.with("demo-blocking-route") { fixture in
            let router = Router()
            router.post(
                "blocking/before-sign-in",
                blockingFunction: BlockingFunctionHandler(
                    auth: fixture.setup.admin, functionURL: Self.url,
                    beforeSignIn: { _ in .deny(status: .permissionDenied, message: "no") }))
            let jwt = try await fixture.event()
            try await Application(router: router).test(.router) { client in
                let response = try await client.execute(
                    uri: "/blocking/before-sign-in", method: .post, headers: [.contentType: "application/json"],
                    body: ByteBuffer(bytes: Fixture.body(jwt)))
                #expect(response.status == .forbidden)
                #expect(response.headers[.contentType] == "application/json")
                #expect(String(buffer: response.body).contains("PERMISSION_DENIED"))
                let tooBig = try await client.execute(
                    uri: "/blocking/before-sign-in", method: .post, headers: [.contentType: "application/json"],
                    body: ByteBuffer(bytes: Data(count: 100_000)))
                #expect(tooBig.status == .contentTooLarge)
            }
        }
    }

    /// Descriptions name the event, never a credential.
    @Test func descriptionsRedactCredentials() async throws {
        try await Fixture.with("demo-blocking-redaction") { fixture in
            let handler = BlockingFunctionHandler(
                auth: fixture.setup.admin, functionURL: Self.url, beforeSignIn: { _ in .allow })
            let event = try await handler.verifiedEvent(try await fixture.event())
            #expect("\(event)".contains(fixture.uid))
            #expect(event.credential == nil)
            #expect(event.user.email == "blocking@example.com")
            #expect(event.tenantID == nil)
        }
    }
}

/// What closures saw, in order.
actor Recorded<Value: Sendable> {
    private(set) var all: [Value] = []

    func add(_ value: Value) { all.append(value) }
}
