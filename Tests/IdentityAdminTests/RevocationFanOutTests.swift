import AdminTestSupport
import Foundation
import IdentityKeyValueStore
import IdentitySupport
import IdentityToolkit
import IdentityToolkitAsyncHTTPClient
import Metrics
import MetricsTestKit
import Testing

@testable import IdentityAdmin

/// A revocation on one instance reaches the others' caches at once, over
/// the storage's notification channel.
@Suite struct RevocationFanOutTests {
    /// A channel whose listeners' events the test sees (to wait for `listening`).
    struct ObservedChannel: NotificationChannel {
        let base = InMemoryNotificationChannel()
        let listening = Locked(0)

        func publish(_ payload: String) async throws { try await base.publish(payload) }

        func listen(_ handle: @escaping @Sendable (NotificationChannelEvent) async -> Void) async throws {
            try await base.listen { [listening] event in
                if event == .listening { listening.withLock { $0 += 1 } }
                await handle(event)
            }
        }
    }

    /// A channel the test plays events into: an outage, a notice, a gap.
    final class ScriptedChannel: NotificationChannel, Sendable {
        let events = AsyncStream.makeStream(of: NotificationChannelEvent.self)
        let published = Locked<[String]>([])

        func publish(_ payload: String) async throws { published.withLock { $0.append(payload) } }

        func listen(_ handle: @escaping @Sendable (NotificationChannelEvent) async -> Void) async throws {
            for await event in events.stream { await handle(event) }
        }
    }

    static func eventually(_ seconds: Double = 20, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while try await !condition() {
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    /// An instance that would trust a looked-up account for an hour.
    static func instance(_ setup: EmulatorSetup, project: String) -> IdentityAdmin {
        IdentityAdmin(
            projectID: project, credential: EmulatorOwnerCredential(),
            configuration: ClientConfiguration(
                transport: setup.transport, emulatorHost: setup.hostAndPort),
            tokenCache: TokenCacheOptions(revocationMaximumAge: .seconds(3600)))
    }

    @Test func aRevocationOnOneInstanceIsHeardByTheOthers() async throws {
        let project = "demo-fan-out"
        try await EmulatorSetup.with(project: project) { setup in
            setup.clock.set(Date().addingTimeInterval(-120))
            let created = try await setup.accounts.signUp(
                SignUpRequest(email: "fan-out@example.com", password: "correct horse", returnSecureToken: true))
            let idToken = try #require(created.idToken)

            let (first, second, unconnected) = (
                Self.instance(setup, project: project), Self.instance(setup, project: project),
                Self.instance(setup, project: project)
            )
            let channel = ObservedChannel()
            let running = [first, second].map { admin in
                Task { try await admin.revocationFanOut(over: channel).run() }
            }
            defer { for task in running { task.cancel() } }
            #expect(try await Self.eventually { channel.listening.current == 2 })

            // Every instance has the account's state cached, and the token verified.
            for admin in [first, second, unconnected] {
                _ = try await admin.verifyIDToken(idToken, checkRevoked: true)
                #expect(admin.idTokenVerifier.cache?.count == 1)
            }
            try await first.revokeRefreshTokens(uid: created.localId)

            // The other connected instance refuses at once; the token left its cache.
            #expect(
                try await Self.eventually {
                    do {
                        _ = try await second.verifyIDToken(idToken, checkRevoked: true)
                        return false
                    } catch { return (error as? TokenVerificationError) == .revoked }
                })
            // One without the fan-out still trusts its cached state (the bound the fan-out removes).
            _ = try await unconnected.verifyIDToken(idToken, checkRevoked: true)
            await #expect(throws: TokenVerificationError.revoked) {
                _ = try await first.verifyIDToken(idToken, checkRevoked: true)
            }
        }
    }

    /// An outage is said once, every cached state is forgotten when the
    /// channel is back, a gap in a sender's numbers counts as missed, and
    /// this instance's own notices and garbage are ignored.
    @Test func anOutageForgetsEveryStateAndGapsCountAsMissed() async throws {
        let metrics = TestMetrics()
        try await withMetricsFactory(metrics) {
            // States kept an hour: only the fan-out forgets them, however slowly a loaded machine runs it.
            let admin = IdentityAdmin(
                projectID: "demo-outage", credential: EmulatorOwnerCredential(),
                configuration: ClientConfiguration(emulatorHost: "127.0.0.1:1"),
                tokenCache: TokenCacheOptions(revocationMaximumAge: .seconds(3600)))
            let states = try #require(admin.accountStates)
            let state = AccountStateCache.AccountState(exists: true, disabled: false, validSince: nil)
            func remember(_ uid: String) {
                states.insert(state, for: .init(tenant: nil, uid: uid), ifUnchangedSince: states.epoch)
            }
            func known(_ uid: String) -> Bool { states.state(for: .init(tenant: nil, uid: uid)) != nil }

            let channel = ScriptedChannel()
            let fanOut = admin.revocationFanOut(over: channel)
            let task = Task { try await fanOut.run() }
            defer { task.cancel() }
            remember("a")
            remember("b")
            remember("c")
            remember("t")
            channel.events.continuation.yield(.listening)
            channel.events.continuation.yield(
                .notification(RevocationNotice(tenant: nil, uid: "a", sender: 7, number: 1).payload))
            channel.events.continuation.yield(
                .notification(RevocationNotice(tenant: "shop", uid: "t", sender: 7, number: 4).payload))
            channel.events.continuation.yield(.notification("r1 garbage"))
            #expect(try await Self.eventually { !known("a") })
            #expect(known("t"), "another tenant's uid is another account")
            #expect(known("b") && known("c"))
            #expect(
                try await Self.eventually {
                    metrics.counterTotal(
                        label: "firebase_revocation_notifications_total", dimensions: [("event", "missed")])
                        == 2
                })

            channel.events.continuation.yield(.interrupted(reason: "the database restarted"))
            channel.events.continuation.yield(.interrupted(reason: "still down"))
            channel.events.continuation.yield(.listening)
            #expect(try await Self.eventually { !known("b") && !known("c") && !known("t") })

            // This instance's own change is sent, numbered, and not applied twice.
            admin.forgetCachedAccountState(uid: "me")
            #expect(try await Self.eventually { channel.published.current.count == 1 })
            let payload = try #require(channel.published.current.first)
            let sent = try #require(RevocationNotice(payload: payload))
            #expect(sent.uid == "me" && sent.tenant == nil && sent.number == 1)
            #expect(
                metrics.counterTotal(
                    label: "firebase_revocation_notifications_total", dimensions: [("event", "received")])
                    == 2)
        }
    }

    /// Notices read totally: their own form round-trips, nothing else is one.
    @Test(arguments: [
        "", "r1", "r1 1 2 - ", "r1 x 2 - dQ", "r2 1 2 - dQ", "r1 1 2 !! dQ", "r1 1 2 - dQ extra", "r1 1 2 -  dQ",
    ])
    func anythingElseIsNoNotice(payload: String) {
        #expect(RevocationNotice(payload: payload) == nil)
    }

    @Test func aNoticeRoundTrips() {
        for notice in [
            RevocationNotice(tenant: nil, uid: "u 1", sender: 1, number: 2),
            RevocationNotice(tenant: "shop-2", uid: String(repeating: "é", count: 128), sender: .max, number: .max),
        ] {
            #expect(RevocationNotice(payload: notice.payload) == notice)
            #expect(notice.payload.utf8.count < 1_000)
        }
    }
}
