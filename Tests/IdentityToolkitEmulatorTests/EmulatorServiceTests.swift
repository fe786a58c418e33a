import Foundation
import IdentityToolkit
import IdentityToolkitEmulator
import Logging
import ServiceLifecycle
import Testing

/// A started emulator as an app's service: it serves while its group runs
/// and stops, without an error, when the group shuts down gracefully.
@Suite struct EmulatorServiceTests {
    @Test func aStartedEmulatorStopsWhenItsGroupShutsDown() async throws {
        let harness = try await Harness.start()
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [harness.running], logger: Logger(label: "EmulatorServiceTests")))
        let running = Task { try await group.run() }
        // Serving while the group runs.
        _ = try await harness.accounts.signUp(SignUpRequest(email: "service@example.com", password: "correct horse"))
        await group.triggerGracefulShutdown()
        try await running.value
        // Stopped: its port takes no connection.
        #expect(throws: (any Error).self) { _ = try RawConnection(port: harness.running.port) }
    }
}
