#if Emulator
import Foundation
import ServiceLifecycle

/// Where an emulator serving in ``IdentityToolkitEmulator/serving(_:)``
/// listens.
public struct RunningEmulator: Sendable {
    /// The emulator being served (its clock, its configuration).
    public let emulator: IdentityToolkitEmulator
    /// The address it listens on.
    public let host: String
    /// The port it listens on (the one picked, when configured with 0).
    public let port: Int

    /// `HOST:PORT`, the form `FIREBASE_AUTH_EMULATOR_HOST` takes.
    public var hostAndPort: String { "\(host):\(port)" }

    /// `http://HOST:PORT`
    public var baseURL: String { "http://\(IdentityToolkitEmulator.urlHost(host)):\(port)" }
}

extension IdentityToolkitEmulator {
    /// Serves on the configured address while `body` runs, then shuts down
    /// gracefully and returns `body`'s value: the emulator's ``service(onListening:)``
    /// in a `ServiceGroup` of its own, for a test or a tool that needs a
    /// real socket for a while (an app that runs a group adds the service
    /// to it instead; a test that needs no socket drives
    /// ``buildApplication(onListening:)`` with HummingbirdTesting).
    ///
    /// ```swift
    /// let emulator = try IdentityToolkitEmulator(configuration: EmulatorConfiguration(port: 0))
    /// try await emulator.serving { running in
    ///     let accounts = AccountsClient(
    ///         apiKey: "any", configuration: ClientConfiguration(emulatorHost: running.hostAndPort))
    ///     _ = try await accounts.signUp(SignUpRequest(returnSecureToken: true))
    /// }
    /// ```
    /// - Throws: The server's error when it cannot listen (such as a port
    ///   in use), else `body`'s.
    public func serving<Value: Sendable>(_ body: (RunningEmulator) async throws -> Value) async throws -> Value {
        let (addresses, listening) = AsyncStream<(String, Int)>.makeStream()
        var groupConfiguration = ServiceGroupConfiguration(
            services: [service { host, port in listening.yield((host, port)) }], logger: configuration.logger)
        groupConfiguration.maximumGracefulShutdownDuration = configuration.shutdownGracePeriod
        groupConfiguration.maximumCancellationDuration = configuration.shutdownGracePeriod
        let group = ServiceGroup(configuration: groupConfiguration)
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                defer { listening.finish() }
                try await group.run()
            }
            var iterator = addresses.makeAsyncIterator()
            guard let (host, port) = await iterator.next() else {
                // The group ended before it listened: its error says why.
                try await tasks.waitForAll()
                throw CancellationError()
            }
            let value: Value
            do {
                value = try await body(RunningEmulator(emulator: self, host: host, port: port))
            } catch {
                await group.triggerGracefulShutdown()
                try? await tasks.waitForAll()
                throw error
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return value
        }
    }
}
#endif
