#if Vapor
public import IdentityAdmin
import IdentitySupport
public import Vapor

/// Runs a ``SigningKeyRefresher`` for the life of a Vapor `Application`,
/// so that no request waits for Google's public keys: the refresher starts
/// when the application has booted and stops when it shuts down. Vapor's
/// counterpart of the `Service` that a ServiceLifecycle app runs.
///
/// ```swift
/// app.lifecycle.use(SigningKeyRefresherLifecycle(admin.signingKeyRefresher))
/// ```
public final class SigningKeyRefresherLifecycle: LifecycleHandler {
    private let refresher: SigningKeyRefresher
    private let running = Locked<Task<Void, Never>?>(nil)

    /// A handler that runs `refresher` (`admin.signingKeyRefresher`).
    public init(_ refresher: SigningKeyRefresher) {
        self.refresher = refresher
    }

    /// Whether the refresher is running (booted and not shut down).
    public var isRunning: Bool { running.withLock { $0 != nil } }

    /// Starts the refresher (once, however often Vapor calls).
    public func didBoot(_ application: Application) throws {
        running.withLock { task in
            guard task == nil else { return }
            let refresher = self.refresher
            task = Task { try? await refresher.run() }
        }
    }

    /// Stops the refresher without waiting (Vapor's synchronous shutdown).
    public func shutdown(_ application: Application) {
        stop()?.cancel()
    }

    /// Stops the refresher and waits until it has returned.
    public func shutdownAsync(_ application: Application) async {
        guard let task = stop() else { return }
        task.cancel()
        await task.value
    }

    private func stop() -> Task<Void, Never>? {
        running.withLock { task in
            defer { task = nil }
            return task
        }
    }
}
#endif
