import Foundation
import IdentityAdmin
import IdentityToolkit
import IdentityToolkitAsyncHTTPClient
import MultiFactorAuth

/// The two sides of Identity Platform the app talks to: the client API
/// (``MultiFactorAuth``: sign-up, sign-in, enrollment, on behalf of the
/// person at the browser) and the admin API (``IdentityAdmin``: session
/// cookies, the user's factors, with the server's own credentials).
public struct IdentityBackend: Sendable {
    /// The project the app signs users into.
    public let projectID: String
    /// The emulator's address.
    public let emulatorHost: String
    /// The emulator's port.
    public let emulatorPort: Int
    /// The admin side, authorised as the emulator's owner.
    public let admin: IdentityAdmin
    /// The app whose options every browser's ``Auth`` shares.
    let app: FirebaseApp
    /// The emulator's own routes (the verification links it "sent").
    let emulatorHelpers: EmulatorHelpersClient

    /// - Parameters:
    ///   - emulatorHost: The address of a running emulator.
    ///   - emulatorPort: Its port.
    ///   - projectID: Its project.
    ///   - transport: How requests reach it; by default a client that
    ///     retries connecting until the request's deadline, riding out a
    ///     restart (``AsyncHTTPClientTransport/failingFast`` does not).
    /// - Throws: ``AppError/configuration(_:)`` when the app cannot be configured.
    public init(emulatorHost: String, emulatorPort: Int, projectID: String, transport: AsyncHTTPClientTransport = AsyncHTTPClientTransport()) throws {
        let emulatorHostAndPort = "\(emulatorHost):\(emulatorPort)"
        let options = FirebaseOptions(googleAppID: "1:000000000000:web:0000000000000000", gcmSenderID: "000000000000")
        // The emulator accepts any API key; production needs the project's.
        options.apiKey = "totp-login-example"
        options.projectID = projectID
        options.httpTransport = transport
        // A name of its own, so that tests may run several apps in one process.
        let name = "TOTPLogin-\(projectID)-\(emulatorHostAndPort)"
        FirebaseApp.configure(name: name, options: options)
        guard let app = FirebaseApp.app(name: name) else { throw AppError.configuration("FirebaseApp \(name) was not configured") }
        self.app = app
        self.projectID = projectID
        self.emulatorHost = emulatorHost
        self.emulatorPort = emulatorPort
        self.emulatorHelpers = EmulatorHelpersClient(configuration: ClientConfiguration(transport: transport, emulatorHost: emulatorHostAndPort))
        self.admin = IdentityAdmin.emulator(projectID: projectID, hostAndPort: emulatorHostAndPort, transport: transport)
    }

    /// The project a running emulator acts on for calls with an API key;
    /// nil from an emulator that does not say (Google's).
    public static func emulatorProject(host: String, port: Int) async throws -> String? {
        let helpers = EmulatorHelpersClient(configuration: ClientConfiguration(transport: AsyncHTTPClientTransport(), emulatorHost: "\(host):\(port)"))
        return try await helpers.getEmulatorStatus().authEmulator?.projectId
    }

    /// The project to use with a running emulator that serves `served`:
    /// `requested` must be that one (users signed up in one project cannot
    /// be found from another), and either may be absent.
    /// - Throws: ``AppError/configuration(_:)`` naming both when they differ.
    public static func agreedProject(requested: String?, served: String?, fallback: String) throws -> String {
        switch (requested, served) {
        case (let wanted?, let served?) where wanted != served:
            throw AppError.configuration("--project \(wanted) differs from the emulator's project \(served): start the emulator with --project \(wanted), or drop --project")
        case (let wanted?, _): return wanted
        case (nil, let served?): return served
        case (nil, nil): return fallback
        }
    }

    /// A client of its own for one browser: ``Auth`` keeps one current user,
    /// and each person signing in is a different one.
    func newAuth() -> Auth {
        let auth = Auth(app: app)
        auth.useEmulator(withHost: emulatorHost, port: emulatorPort)
        return auth
    }

    /// Switches TOTP on for the project, as an administrator would once
    /// (`mfa admin` or the console in production). Five adjacent intervals
    /// accept a code up to 2.5 minutes early or late, as Firebase allows.
    public func enableTOTP() async throws {
        _ = try await admin.projectConfigManager().updateProjectConfig(UpdateProjectConfigRequest(multiFactorConfig: .totpEnabled(adjacentIntervals: 5)))
    }

    /// The verification link the emulator "sent" to `email`; production
    /// emails it instead, so the app shows it only because it runs locally.
    func verificationLink(for email: String) async throws -> String? {
        let listing = try await emulatorHelpers.listOobCodes(project: projectID)
        return listing.oobCodes.last(where: { $0.email == email && $0.requestType == .verifyEmail })?.oobLink
    }
}
