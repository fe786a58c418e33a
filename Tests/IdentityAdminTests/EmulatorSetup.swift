import IdentityAdmin
import IdentityToolkit
import IdentityToolkitAsyncHTTPClient
import IdentityToolkitEmulator

/// A running emulator with TOTP on, and the clients the admin tests use on it.
struct EmulatorSetup {
    let running: RunningEmulator
    let configuration: ClientConfiguration
    let admin: IdentityAdmin
    let accounts: AccountsClient

    /// Starts an emulator for `project` with TOTP enabled (one adjacent interval).
    static func start(project: String) async throws -> EmulatorSetup {
        let running = try await IdentityToolkitEmulator(configuration: EmulatorConfiguration(port: 0, projectID: project)).start()
        let transport = AsyncHTTPClientTransport()
        let configuration = ClientConfiguration(transport: transport, emulatorHost: running.hostAndPort)
        let admin = IdentityAdmin.emulator(projectID: project, hostAndPort: running.hostAndPort, transport: transport)
        _ = try await admin.projectConfigManager().updateProjectConfig(UpdateProjectConfigRequest(multiFactorConfig: .totpEnabled(adjacentIntervals: 1)))
        return EmulatorSetup(running: running, configuration: configuration, admin: admin, accounts: AccountsClient(apiKey: "k", configuration: configuration))
    }
}
