import Foundation
import HTTPTypes
import IdentityAdminVapor
import IdentitySupport
import IdentityToolkit
import Testing
import Vapor

@testable import IdentityAdmin

/// Vapor's way to run the signing-key refresher: from boot to shutdown.
@Suite struct SigningKeyRefresherLifecycleTests {
    @Test func theRefresherRunsFromBootToShutdown() async throws {
        let fetches = Locked(0)
        let cache = SigningKeyCache(fetch: {
            fetches.withLock { $0 += 1 }
            return (JSONWebKeySet(keys: []), [.cacheControl: "max-age=3600"])
        })
        let handler = SigningKeyRefresherLifecycle(SigningKeyRefresher(caches: [cache]))
        let app = try await Application.make(.testing)
        app.lifecycle.use(handler)
        #expect(!handler.isRunning && fetches.current == 0)
        try await app.asyncBoot()
        #expect(handler.isRunning)
        // The first round fetches at once (generous deadline: two shared cores).
        for _ in 0..<1000 where fetches.current == 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(fetches.current == 1)
        try await app.asyncShutdown()
        #expect(!handler.isRunning)
        // Stopped: no round follows.
        try await Task.sleep(for: .milliseconds(50))
        #expect(fetches.current == 1)
    }
}
