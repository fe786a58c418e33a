#if Emulator
import Foundation
public import ServiceLifecycle

/// An emulator serving in the background of this process.
public final class RunningEmulator: Sendable {
    /// The emulator being served (its clock, its configuration).
    public let emulator: IdentityToolkitEmulator
    /// The address it listens on.
    public let host: String
    /// The port it listens on (the one picked, when configured with 0).
    public let port: Int
    private let task: Task<Void, any Error>

    init(emulator: IdentityToolkitEmulator, host: String, port: Int, task: Task<Void, any Error>) {
        self.emulator = emulator
        self.host = host
        self.port = port
        self.task = task
    }

    /// `HOST:PORT`, the form `FIREBASE_AUTH_EMULATOR_HOST` takes.
    public var hostAndPort: String { "\(host):\(port)" }

    /// `http://HOST:PORT`
    public var baseURL: String { "http://\(hostAndPort)" }

    /// Stops serving and waits until the server has shut down.
    public func stop() async {
        task.cancel()
        _ = await task.result
    }
}

extension IdentityToolkitEmulator {
    /// Starts serving in a background task and returns once it listens.
    /// - Throws: The server's error when it cannot listen (such as a port in use).
    public func start() async throws -> RunningEmulator {
        let (addresses, continuation) = AsyncStream<(String, Int)>.makeStream()
        let task = Task {
            defer { continuation.finish() }
            try await self.run { host, port in
                continuation.yield((host, port))
                continuation.finish()
            }
        }
        for await (host, port) in addresses {
            return RunningEmulator(emulator: self, host: host, port: port, task: task)
        }
        try await task.value
        throw CancellationError()
    }
}

/// A started emulator as a service of the app's `ServiceGroup` (or
/// Hummingbird's `Application(services:)`): listed first, it is stopped
/// last, after the server whose requests still call it has drained.
extension RunningEmulator: Service {
    /// Waits for graceful shutdown (or cancellation), then stops the
    /// emulator and returns once it has shut down.
    public func run() async throws {
        try? await gracefulShutdown()
        await stop()
    }
}
#endif
