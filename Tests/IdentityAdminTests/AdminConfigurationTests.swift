import Configuration
import Foundation
import IdentityAdmin
import IdentityToolkit
import IdentityToolkitAsyncHTTPClient
import IdentityToolkitEmulator
import Testing

/// IdentityAdmin from swift-configuration: the project, the emulator host
/// and the request timeout from one scope; a missing project is an error.
@Suite struct AdminConfigurationTests {
    @Test func anAdminIsConfiguredFromItsScope() async throws {
        try await IdentityToolkitEmulator(
            configuration: EmulatorConfiguration(port: 0, projectID: "demo-config")
        ).serving { running in
            let config = ConfigReader(
                provider: InMemoryProvider(values: [
                    "firebase.projectId": "demo-config",
                    "firebase.emulatorHost": ConfigValue(.string(running.hostAndPort), isSecret: false),
                    "firebase.requestTimeout": ConfigValue(.double(5), isSecret: false),
                ]))
            let admin = try IdentityAdmin(config: config.scoped(to: "firebase"), transport: AsyncHTTPClientTransport())
            #expect(admin.projectID == "demo-config")
            // It reaches the emulator as its owner: a user it creates is there.
            let user = try await admin.createUser(CreateUserRequest(email: "configured@example.com"))
            #expect(try await admin.getUser(uid: user.uid).email == "configured@example.com")
        }
    }

    @Test func aMissingProjectOrABadTimeoutIsAnError() {
        #expect(throws: (any Error).self) {
            _ = try IdentityAdmin(config: ConfigReader(provider: InMemoryProvider(values: [:])))
        }
        #expect(throws: AdminValidationError.self) {
            _ = try IdentityAdmin(
                config: ConfigReader(
                    provider: InMemoryProvider(values: [
                        "projectId": "p", "emulatorHost": "127.0.0.1:1",
                        "requestTimeout": ConfigValue(.double(-1), isSecret: false),
                    ])))
        }
    }
}
