import Foundation
import IdentityToolkit
import IdentityToolkitAsyncHTTPClient
import IdentityToolkitEmulator
import Logging
import ServiceLifecycle
import Testing

/// The emulator as an app's service: it serves while its group runs and
/// stops, without an error, when the group shuts down gracefully.
@Suite struct EmulatorServiceTests {
    @Test func theEmulatorStopsWhenItsGroupShutsDown() async throws {
        let emulator = try IdentityToolkitEmulator(
            configuration: EmulatorConfiguration(port: 0, projectID: Harness.project))
        let (ports, listening) = AsyncStream<Int>.makeStream()
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [emulator.service { _, port in listening.yield(port) }],
                logger: Logger(label: "EmulatorServiceTests")))
        let running = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        // Serving while the group runs.
        let harness = Harness(emulator: emulator, port: port, transport: AsyncHTTPClientTransport())
        _ = try await harness.accounts.signUp(SignUpRequest(email: "service@example.com", password: "correct horse"))
        await group.triggerGracefulShutdown()
        try await running.value
        // Stopped: its port takes no connection.
        #expect(throws: (any Error).self) { _ = try RawConnection(port: port) }
    }
}
