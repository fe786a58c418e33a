import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IdentityToolkit
import IdentityToolkitEmulator
import NIOCore
import ServiceLifecycle
import Testing

/// The emulator's application, public as the Hummingbird template's
/// `buildApplication()`: a test drives it with HummingbirdTesting, no
/// socket; an app runs it as a service of its own group.
@Suite struct EmulatorApplicationTests {
    @Test func aTestDrivesTheApplicationWithoutASocket() async throws {
        let emulator = try IdentityToolkitEmulator(configuration: EmulatorConfiguration(projectID: "demo-router"))
        try await emulator.buildApplication().test(.router) { client in
            let signUp = try await client.execute(
                uri: "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=any-key", method: .post,
                headers: [.contentType: "application/json"],
                body: ByteBuffer(
                    string: #"{"email":"router@example.com","password":"correct horse","returnSecureToken":true}"#))
            #expect(signUp.status == .ok)
            let answer = try JSONDecoder().decode(SignUpResponse.self, from: Data(buffer: signUp.body))
            #expect(answer.email == "router@example.com" && answer.idToken?.isEmpty == false)
            // The middleware runs as over a socket: a call without an API key is refused.
            let keyless = try await client.execute(
                uri: "/identitytoolkit.googleapis.com/v1/accounts:signUp", method: .post,
                headers: [.contentType: "application/json"], body: ByteBuffer(string: "{}"))
            #expect(keyless.status == .forbidden)
        }
        // The state is the emulator's own: the sign-up's session outlives the test client.
        #expect(await emulator.stateCounts["refreshTokens"] == 1)
    }

    @Test func theEmulatorIsAServiceOfTheAppsGroup() async throws {
        let emulator = try IdentityToolkitEmulator(
            configuration: EmulatorConfiguration(port: 0, projectID: "demo-service"))
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [emulator.service { _, port in continuation.yield(port) }],
                logger: emulator.configuration.logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            let configuration = ClientConfiguration(emulatorHost: "127.0.0.1:\(port)")
            let answer = try await AccountsClient(apiKey: "any-key", configuration: configuration)
                .signUp(SignUpRequest(returnSecureToken: true))
            #expect(!answer.localId.isEmpty)
            // The group's graceful shutdown ends the service; run() returns.
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }
}
