import Foundation
import IdentityAdmin
import IdentityToolkit
import IdentityToolkitAsyncHTTPClient
import MultiFactorAuth

/// The two sides of Identity Platform the app talks to: the client API
/// (``MultiFactorAuth``: sign-up, sign-in, enrollment, on behalf of the
/// person at the browser) and the admin API (``IdentityAdmin``: session
/// cookies, the user's factors, with the server's own credentials), for
/// the project's own users or those of one tenant.
public struct IdentityBackend: Sendable {
    /// The project the app signs users into.
    public let projectID: String
    /// The tenant the app signs users into; nil: the project's own users.
    public let tenantID: String?
    /// The emulator's address.
    public let emulatorHost: String
    /// The emulator's port.
    public let emulatorPort: Int
    /// The admin side for the app's users (the tenant's, when there is one),
    /// authorised as the emulator's owner.
    public let admin: BaseAuth
    /// The project's admin side (its configuration, its tenants).
    public let projectAdmin: IdentityAdmin
    /// The app whose options every browser's ``Auth`` shares.
    let app: FirebaseApp
    /// The emulator's own routes (the verification links it "sent").
    let emulatorHelpers: EmulatorHelpersClient

    /// - Parameters:
    ///   - emulatorHost: The address of a running emulator.
    ///   - emulatorPort: Its port.
    ///   - projectID: Its project.
    ///   - tenantID: The tenant whose users the app signs in; nil: the project's own.
    ///   - transport: How requests reach it; by default a client that
    ///     retries connecting until the request's deadline, riding out a
    ///     restart (``AsyncHTTPClientTransport/failingFast`` does not).
    /// - Throws: ``AppError/configuration(_:)`` when the app cannot be configured.
    public init(
        emulatorHost: String, emulatorPort: Int, projectID: String, tenantID: String? = nil,
        transport: AsyncHTTPClientTransport = AsyncHTTPClientTransport()
    ) throws {
        let emulatorHostAndPort = "\(emulatorHost):\(emulatorPort)"
        let options = FirebaseOptions(googleAppID: "1:000000000000:web:0000000000000000", gcmSenderID: "000000000000")
        // The emulator accepts any API key; production needs the project's.
        options.apiKey = "totp-login-example"
        options.projectID = projectID
        options.httpTransport = transport
        // A name of its own, so that tests may run several apps in one process.
        let name = "TOTPLogin-\(projectID)-\(tenantID ?? "")-\(emulatorHostAndPort)"
        FirebaseApp.configure(name: name, options: options)
        guard let app = FirebaseApp.app(name: name) else {
            throw AppError.configuration("FirebaseApp \(name) was not configured")
        }
        self.app = app
        self.projectID = projectID
        self.tenantID = tenantID
        self.emulatorHost = emulatorHost
        self.emulatorPort = emulatorPort
        self.emulatorHelpers = EmulatorHelpersClient(
            configuration: ClientConfiguration(transport: transport, emulatorHost: emulatorHostAndPort))
        let projectAdmin = IdentityAdmin.emulator(
            projectID: projectID, hostAndPort: emulatorHostAndPort, transport: transport)
        self.projectAdmin = projectAdmin
        self.admin = tenantID.map { projectAdmin.tenantManager().authForTenant($0) } ?? projectAdmin
        self.adminClient = AdminClient(
            accessToken: { "owner" },
            configuration: ClientConfiguration(transport: transport, emulatorHost: emulatorHostAndPort))
    }

    /// The admin API's generated client, for what ``IdentityAdmin`` does not
    /// wrap (the blocking functions' configuration).
    let adminClient: AdminClient

    /// The id of the tenant called `name` (its id or its display name),
    /// made with that display name when the project has none: the emulator
    /// makes up tenant ids, so the app is given a name.
    public static func tenant(named name: String, emulatorHost: String, emulatorPort: Int, projectID: String)
        async throws -> String
    {
        let admin = IdentityAdmin.emulator(
            projectID: projectID, hostAndPort: "\(emulatorHost):\(emulatorPort)", transport: AsyncHTTPClientTransport())
        let manager = admin.tenantManager()
        var pageToken: String?
        repeat {
            let page = try await manager.listTenants(pageToken: pageToken)
            if let found = page.tenants.first(where: { $0.tenantID == name || $0.displayName == name }) {
                return found.tenantID
            }
            pageToken = page.pageToken
        } while pageToken != nil
        return try await manager.createTenant(
            TenantRequest(displayName: name, emailSignInConfig: EmailSignInConfig(enabled: true))
        ).tenantID
    }

    /// The project a running emulator acts on for calls with an API key;
    /// nil from an emulator that does not say (Google's).
    public static func emulatorProject(host: String, port: Int) async throws -> String? {
        let helpers = EmulatorHelpersClient(
            configuration: ClientConfiguration(transport: AsyncHTTPClientTransport(), emulatorHost: "\(host):\(port)"))
        return try await helpers.getEmulatorStatus().authEmulator?.projectId
    }

    /// The project to use with a running emulator that serves `served`:
    /// `requested` must be that one (users signed up in one project cannot
    /// be found from another), and either may be absent.
    /// - Throws: ``AppError/configuration(_:)`` naming both when they differ.
    public static func agreedProject(requested: String?, served: String?, fallback: String) throws -> String {
        switch (requested, served) {
        case (let wanted?, let served?) where wanted != served:
            throw AppError.configuration(
                "--project \(wanted) differs from the emulator's project \(served): start the emulator with --project \(wanted), or drop --project"
            )
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
        auth.tenantID = tenantID
        return auth
    }

    /// Switches TOTP on for the project, as an administrator would once
    /// (`mfa admin` or the console in production). Five adjacent intervals
    /// accept a code up to 2.5 minutes early or late, as Firebase allows.
    public func enableTOTP() async throws {
        if let tenantID {
            _ = try await projectAdmin.tenantManager().updateTenant(
                tenantID,
                TenantRequest(
                    multiFactorConfig: .totpEnabled(adjacentIntervals: 5),
                    emailSignInConfig: EmailSignInConfig(enabled: true)))
        } else {
            _ = try await projectAdmin.projectConfigManager().updateProjectConfig(
                UpdateProjectConfigRequest(multiFactorConfig: .totpEnabled(adjacentIntervals: 5)))
        }
    }

    /// Points the project's `beforeSignIn` trigger at `functionURL` (the
    /// app's own route), as a team deploys a blocking function once.
    /// Identity Platform calls it for every realm of the project, tenants included.
    public func configureBeforeSignIn(functionURL: String) async throws {
        _ = try await adminClient.updateProjectConfig(
            project: projectID, updateMask: "blockingFunctions.triggers",
            body: ProjectConfig(
                blockingFunctions: BlockingFunctionsConfig(triggers: [
                    BlockingEventType.beforeSignIn.rawValue: BlockingFunctionTrigger(functionUri: functionURL)
                ])))
    }

    /// The verification link the emulator "sent" to `email`; production
    /// emails it instead, so the app shows it only because it runs locally.
    func verificationLink(for email: String) async throws -> String? {
        try await sentCode(.verifyEmail, to: email)?.oobLink
    }

    /// The password-reset code the emulator "sent" to `email`, which the
    /// app's own handler (`/login/reset/confirm`) applies; production emails
    /// a link to that handler instead (the project's email template).
    func passwordResetCode(for email: String) async throws -> String? {
        try await sentCode(.passwordReset, to: email)?.oobCode
    }

    private func sentCode(_ type: OobRequestType, to email: String) async throws -> OobCodeEntry? {
        let listing =
            if let tenantID {
                try await emulatorHelpers.listTenantOobCodes(project: projectID, tenant: tenantID)
            } else {
                try await emulatorHelpers.listOobCodes(project: projectID)
            }
        return listing.oobCodes.last(where: { $0.email == email && $0.requestType == type })
    }
}
