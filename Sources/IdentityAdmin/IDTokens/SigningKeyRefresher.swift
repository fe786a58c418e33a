import Foundation

#if ServiceLifecycle
public import ServiceLifecycle
#endif

/// Keeps an ``IdentityAdmin``'s public keys (ID tokens' and session
/// cookies') fresh ahead of need, so that no request waits for a key
/// fetch: it fetches both sets when it starts, then again a little before
/// each expires (a tenth of the set's lifetime, at most five minutes),
/// backing off as the verifiers do after failures.
///
/// Without it the verifiers still fetch on demand; with it a server takes
/// traffic with warm keys. Run it beside the server until shutdown: with
/// the `ServiceLifecycle` trait it is a `Service`, which a `ServiceGroup`
/// (or Hummingbird's `Application(services:)`) runs and stops on graceful
/// shutdown; elsewhere, run ``run()`` in a task and cancel it.
///
/// ```swift
/// let group = ServiceGroup(configuration: .init(
///     services: [admin.signingKeyRefresher, app], gracefulShutdownSignals: [.sigterm], logger: logger))
/// try await group.run()
/// ```
public struct SigningKeyRefresher: Sendable {
    let caches: [SigningKeyCache]
    /// The shortest sleep between two rounds, so that a key route that
    /// answers `max-age=0` cannot make the loop spin.
    let minimumInterval: TimeInterval

    init(caches: [SigningKeyCache], minimumInterval: TimeInterval = 1) {
        self.caches = caches
        self.minimumInterval = minimumInterval
    }

    /// Refreshes until the task is cancelled or (with the
    /// `ServiceLifecycle` trait) graceful shutdown begins; then returns
    /// without an error. Failed fetches are logged by the verifiers' cache
    /// and retried after its backoff; they never end the loop.
    public func run() async throws {
        #if ServiceLifecycle
        await cancelWhenGracefulShutdown { await refreshUntilCancelled() }
        #else
        await refreshUntilCancelled()
        #endif
    }

    /// One round: each set refreshed if due; returns when the next round is due.
    func refreshRound() async -> Date {
        var next = Date.distantFuture
        for cache in caches { next = min(next, await cache.refreshIfDue()) }
        return next
    }

    private func refreshUntilCancelled() async {
        while !Task.isCancelled {
            let next = await refreshRound()
            let wait = max(next.timeIntervalSinceNow, minimumInterval)
            do { try await Task.sleep(for: .milliseconds(Int64(wait * 1000))) } catch { return }
        }
    }
}

#if ServiceLifecycle
extension SigningKeyRefresher: Service {}
#endif

extension BaseAuth {
    /// A ``SigningKeyRefresher`` for this instance's verifiers (a tenant's
    /// instance shares the project's caches, so one refresher serves all).
    public var signingKeyRefresher: SigningKeyRefresher {
        SigningKeyRefresher(caches: [idTokenVerifier.keys, sessionCookieVerifier.keys])
    }
}
