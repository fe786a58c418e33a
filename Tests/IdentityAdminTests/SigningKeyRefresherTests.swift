import Foundation
import HTTPTypes
import IdentitySupport
import IdentityToolkit
import Logging
import ServiceLifecycle
import Testing

@testable import IdentityAdmin

/// The refresher that keeps the verifiers' keys warm: one fetch per set a
/// round, the next round a little before the set expires, the backoff
/// after a failure, and an orderly end on graceful shutdown.
@Suite struct SigningKeyRefresherTests {
    typealias Forged = ForgedIDTokenTests

    @Test func aRoundFetchesEachSetOnceAndTheNextIsDueBeforeItExpires() async throws {
        let idTokenRoute = Forged.KeyRoute(try Forged.jwks([("k1", Forged.key)]), cacheControl: "max-age=600")
        let cookieRoute = Forged.KeyRoute(try Forged.jwks([("k2", Forged.otherKey)]), cacheControl: "max-age=6000")
        let time = Locked(Forged.now)
        let idTokenKeys = SigningKeyCache(now: { time.current }, fetch: { try await idTokenRoute.fetch() })
        let cookieKeys = SigningKeyCache(now: { time.current }, fetch: { try await cookieRoute.fetch() })
        let refresher = SigningKeyRefresher(caches: [idTokenKeys, cookieKeys])

        // Both sets fetched; the next round is due a tenth of the shorter
        // lifetime (60 s of 600) before it expires.
        #expect(await refresher.refreshRound() == Forged.now.addingTimeInterval(540))
        #expect(idTokenRoute.fetches.current == 1 && cookieRoute.fetches.current == 1)
        #expect(idTokenKeys.freshKey(for: "k1") != nil && cookieKeys.freshKey(for: "k2") != nil)
        // Before the point, a round fetches nothing.
        time.withLock { $0 = Forged.now.addingTimeInterval(539) }
        _ = await refresher.refreshRound()
        #expect(idTokenRoute.fetches.current == 1)
        // At it, only the set that is due; the other (refresh point at
        // 6000 - 300 s, the margin's cap) waits.
        time.withLock { $0 = Forged.now.addingTimeInterval(540) }
        #expect(await refresher.refreshRound() == Forged.now.addingTimeInterval(540 + 540))
        #expect(idTokenRoute.fetches.current == 2 && cookieRoute.fetches.current == 1)
    }

    @Test func aFailedFetchIsRetriedAfterTheBackoffNotBefore() async throws {
        let route = Forged.KeyRoute(try Forged.jwks([("k1", Forged.key)]))
        struct Down: Error {}
        route.answer.withLock { $0 = .failure(Down()) }
        let time = Locked(Forged.now)
        let cache = SigningKeyCache(initialBackoff: 4, now: { time.current }, fetch: { try await route.fetch() })
        let refresher = SigningKeyRefresher(caches: [cache])
        #expect(await refresher.refreshRound() == Forged.now.addingTimeInterval(4))
        #expect(await refresher.refreshRound() == Forged.now.addingTimeInterval(4))
        #expect(route.fetches.current == 1)
    }

    @Test func gracefulShutdownEndsItWithoutAnError() async throws {
        let route = Forged.KeyRoute(try Forged.jwks([("k1", Forged.key)]), cacheControl: "max-age=3600")
        let cache = SigningKeyCache(fetch: { try await route.fetch() })
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [SigningKeyRefresher(caches: [cache])], logger: Logger(label: "SigningKeyRefresherTests")))
        let running = Task { try await group.run() }
        for _ in 0..<500 where route.fetches.current == 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(route.fetches.current == 1)
        await group.triggerGracefulShutdown()
        // Returns, and without an error (a service that threw would fail the group).
        try await running.value
        #expect(route.fetches.current == 1)
    }
}
