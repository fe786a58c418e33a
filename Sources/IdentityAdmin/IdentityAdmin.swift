import Foundation
import IdentitySupport
public import IdentityToolkit
import Logging

/// Admin access to a project: its users (``BaseAuth``: token and session
/// cookie verification, user management), its configuration
/// (``projectConfigManager()``) and its tenants (``tenantManager()``), as
/// firebase-admin-node's `Auth`.
public final class IdentityAdmin: BaseAuth, @unchecked Sendable {
    /// What a tenant-scoped instance needs to share: the transport
    /// configuration and the key caches.
    let configuration: ClientConfiguration

    /// - Parameters:
    ///   - projectID: The project to manage.
    ///   - credential: Supplies access tokens (`cloud-platform` scope).
    ///     Never asked in emulator mode (a `ClientConfiguration.emulatorHost`,
    ///     `FIREBASE_AUTH_EMULATOR_HOST` by default): there every call carries
    ///     `Authorization: Bearer owner`, as firebase-admin sends, so that no
    ///     real access token travels over plain HTTP to whatever host the
    ///     variable names. When the environment variable switched emulator
    ///     mode on, one warning line says so (a `.env` file that reached
    ///     production shows in the log).
    ///   - configuration: Transport, emulator host (`FIREBASE_AUTH_EMULATOR_HOST` by default), timeouts, logging.
    public init(
        projectID: String, credential: any AdminCredential, configuration: ClientConfiguration = ClientConfiguration()
    ) {
        self.configuration = configuration
        super.init(
            projectID: projectID, tenantID: nil,
            parts: Self.parts(
                projectID: projectID, credential: credential, configuration: configuration, tokenCache: .default))
    }

    /// An instance whose token checks remember as `tokenCache` says
    /// (``TokenCacheOptions/default`` in the other initializer).
    /// - Parameters:
    ///   - projectID: The project to manage.
    ///   - credential: Supplies access tokens (see ``init(projectID:credential:configuration:)``).
    ///   - configuration: Transport, emulator host, timeouts, logging.
    ///   - tokenCache: How many verified tokens are recognised without a new
    ///     signature check, and for how long; how long a `checkRevoked`
    ///     lookup answers later checks.
    public init(
        projectID: String, credential: any AdminCredential, configuration: ClientConfiguration,
        tokenCache: TokenCacheOptions
    ) {
        self.configuration = configuration
        super.init(
            projectID: projectID, tenantID: nil,
            parts: Self.parts(
                projectID: projectID, credential: credential, configuration: configuration, tokenCache: tokenCache))
    }

    /// As the initializer above, with the account states aging by `clock`
    /// (tests), whether the emulator host was named in code
    /// (``emulator(projectID:hostAndPort:transport:)``), and the account
    /// lookups' guard (tests).
    init(
        projectID: String, credential: any AdminCredential, configuration: ClientConfiguration,
        tokenCache: TokenCacheOptions,
        accountStateClock clock: @escaping @Sendable () -> Date = Date.init, emulatorNamedInCode: Bool = false,
        accountLookups: AccountLookups? = nil
    ) {
        self.configuration = configuration
        var parts = Self.parts(
            projectID: projectID, credential: credential, configuration: configuration, tokenCache: tokenCache,
            accountStateClock: clock, emulatorNamedInCode: emulatorNamedInCode)
        if let accountLookups { parts.accountLookups = accountLookups }
        super.init(projectID: projectID, tenantID: nil, parts: parts)
    }

    /// What both initializers hand to ``BaseAuth`` (two designated
    /// initializers, so that the first one stays what it was in 1.0).
    private static func parts(
        projectID: String, credential: any AdminCredential, configuration: ClientConfiguration,
        tokenCache: TokenCacheOptions,
        accountStateClock: @escaping @Sendable () -> Date = Date.init, emulatorNamedInCode: Bool = false
    ) -> Parts {
        let accessToken: @Sendable () async throws -> String
        let customTokens: CustomTokenMinter
        if let account = credential as? ServiceAccountCredential {
            customTokens = .serviceAccount(email: account.key.clientEmail, signer: account.signer)
        } else if let applicationDefault = credential as? ApplicationDefaultCredential {
            customTokens = .applicationDefault(applicationDefault)
        } else {
            customTokens = .none
        }
        if let line = emulatorModeLine(
            configured: configuration.emulatorHost, environment: ClientConfiguration.environmentEmulatorHost(),
            namedInCode: emulatorNamedInCode)
        {
            configuration.logger.log(level: line.level, "\(line.message)")
        }
        if configuration.emulatorHost != nil {
            let owner = EmulatorAdminToken.owner.rawValue
            accessToken = { owner }
        } else {
            accessToken = { try await credential.accessToken() }
        }
        // The key routes' emulator forms when the configuration names an emulator.
        return Parts(
            client: AdminClient(accessToken: accessToken, configuration: configuration),
            customTokens: configuration.emulatorHost == nil ? customTokens : .unsigned,
            idTokenVerifier: IDTokenVerifier(
                projectID: projectID, keys: GooglePublicKeysClient(configuration: configuration)
            ).withCache(tokenCache),
            sessionCookieVerifier: IDTokenVerifier(
                projectID: projectID, sessionCookieKeys: SessionCookieKeysClient(configuration: configuration)
            )
            .withCache(tokenCache),
            accountStates: AccountStateCache(tokenCache, now: accountStateClock),
            accountLookups: AccountLookups(logger: configuration.logger))
    }

    /// An instance for the emulator at `host:port`, authorised as its owner.
    public static func emulator(
        projectID: String, hostAndPort: String, transport: any HTTPTransport = URLSessionTransport.shared
    ) -> IdentityAdmin {
        IdentityAdmin(
            projectID: projectID, credential: EmulatorOwnerCredential(),
            configuration: ClientConfiguration(transport: transport, emulatorHost: hostAndPort), tokenCache: .default,
            emulatorNamedInCode: true)
    }

    /// The one line that says where admin calls go when an emulator is in
    /// play, and which setting won: a warning when the environment variable
    /// decided it (a `.env` file that reached production shows in the log) or
    /// when it names another host than the one given in code; a debug line
    /// when code chose the emulator; nil when neither names one.
    static func emulatorModeLine(configured: String?, environment: String?, namedInCode: Bool) -> (
        level: Logger.Level, message: String
    )? {
        let variable = ClientConfiguration.emulatorEnvironmentVariable
        let safe = { (host: String) in LogSafeText.escaping(host, limit: 64) }
        let consequence =
            "over plain HTTP as 'Bearer owner' (the credential is not used), and tokens are verified with that host's keys"
        switch (configured, environment) {
        case (nil, nil):
            return nil
        case (nil, let environment?):
            return (
                .warning,
                "\(variable) names \(safe(environment)), but this configuration's emulatorHost is nil, which wins: admin calls go to Google"
            )
        case (let configured?, nil):
            return (.debug, "admin calls go to the emulator at \(safe(configured)) named in code, \(consequence)")
        case (let configured?, let environment?) where configured != environment:
            return (
                .warning,
                "\(variable) names \(safe(environment)), but the emulator host named in code, \(safe(configured)), wins: admin calls go there \(consequence)"
            )
        case (let configured?, _) where namedInCode:
            return (
                .debug,
                "admin calls go to the emulator at \(safe(configured)) named in code (\(variable) names the same host), \(consequence)"
            )
        case (let configured?, _):
            return (
                .warning,
                "\(variable) is set: admin calls go to the emulator at \(safe(configured)) \(consequence); unset it in production"
            )
        }
    }

    /// The project's configuration.
    public func projectConfigManager() -> ProjectConfigManager { ProjectConfigManager(admin: self) }

    /// The project's tenants, and the user API of each (``TenantManager/authForTenant(_:)``).
    public func tenantManager() -> TenantManager { TenantManager(admin: self) }
}

/// The user API of one tenant (firebase-admin-node's `TenantAwareAuth`):
/// every ``BaseAuth`` call, scoped to ``BaseAuth/tenantID``. Tokens and
/// cookies of other tenants, or of the project's own users, are refused
/// with ``TokenVerificationError/tenantMismatch(expected:found:)``.
public final class TenantAwareAuth: BaseAuth, @unchecked Sendable {
    init(admin: IdentityAdmin, tenantID: String) {
        super.init(
            projectID: admin.projectID, tenantID: tenantID,
            parts: Parts(
                client: admin.client, customTokens: admin.customTokens,
                idTokenVerifier: admin.idTokenVerifier.forTenant(tenantID),
                sessionCookieVerifier: admin.sessionCookieVerifier.forTenant(tenantID),
                accountStates: admin.accountStates,
                accountLookups: admin.accountLookups, accountChanges: admin.accountChanges))
    }
}
