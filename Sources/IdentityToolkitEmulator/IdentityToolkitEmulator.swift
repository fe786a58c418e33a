#if Emulator
import Foundation
import HTTPTypes
public import Hummingbird
import HummingbirdCore
import IdentityToolkit
import NIOCore
public import ServiceLifecycle

/// A local Identity Toolkit server with TOTP multi-factor authentication,
/// speaking the REST API as `Spec/` describes it, in Firebase's emulator URL
/// form (`/identitytoolkit.googleapis.com/...`, `/securetoken.googleapis.com/v1/token`).
///
/// Besides the API it serves the helpers of `Spec/emulator.yaml` below
/// `/emulator/v1/` (the codes it "sent", a store reset, its clock, its
/// signing keys, trusted service accounts; `EmulatorHelpersClient` calls
/// them) and the OAuth2 token endpoint of `Spec/oauth2.yaml` at
/// `/oauth2.googleapis.com/token`, whose access tokens the admin calls accept
/// besides `owner`.
///
/// Inside: generated routes (`Routes/`) run one rule type per area
/// (`Rules/`: accounts, second factors, out-of-band codes, sessions and
/// tokens, tenants and config) on the state, a Codable value behind a
/// storage seam (`State/`); `Server/` serves them safely on a laptop.
public final class IdentityToolkitEmulator: Sendable {
    /// What the emulator was made with.
    public let configuration: EmulatorConfiguration
    /// The emulator's clock; tests move it instead of sleeping.
    public let clock = EmulatorClock()
    let services: EmulatorServices
    /// The routes served, in registration order.
    let routes: [APIServerRoute]
    /// Hummingbird's router with the emulator's middleware and routes.
    let responder: RouterResponder<EmulatorRequestContext>

    /// An emulator with an empty store, or the export of
    /// ``EmulatorConfiguration/importDirectory``; ``service(onListening:)``
    /// serves it in the app's group (``serving(_:)`` for a while).
    /// - Throws: ``EmulatorConfigurationError`` for a setting out of range,
    ///   or a non-loopback host without ``EmulatorConfiguration/allowRemote``;
    ///   ``EmulatorImportError`` for an import folder that does not load
    ///   (naming the file and the field).
    public init(configuration: EmulatorConfiguration = EmulatorConfiguration()) throws {
        try configuration.validate()
        self.configuration = configuration
        let key = try EmulatorSigningKey.processWide.get()
        let oauth = try OAuthTokenEndpoint(serviceAccounts: configuration.serviceAccounts, clock: clock)
        var initial = EmulatorState()
        if let folder = configuration.importDirectory {
            let context = RuleContext(
                now: clock.now, defaultProject: configuration.projectID,
                secondFactors: configuration.secondFactorRules,
                improvedEmailPrivacyByDefault: configuration.improvedEmailPrivacy,
                allowLinkLocalTriggers: configuration.allowLinkLocalTriggers,
                googleCompatible: configuration.googleCompatible)
            try EmulatorExport.load(
                EmulatorExport.read(from: URL(fileURLWithPath: folder)), into: &initial,
                project: configuration.projectID, context)
        }
        let services = EmulatorServices(
            store: InMemoryEmulatorStateStore(initial), clock: clock,
            tokens: SessionTokens(
                key: key, clock: clock, project: configuration.projectID, unsigned: configuration.googleCompatible),
            links: ActionLinks(), defaultProject: configuration.projectID,
            secondFactorRules: configuration.secondFactorRules,
            improvedEmailPrivacyByDefault: configuration.improvedEmailPrivacy,
            allowLinkLocalTriggers: configuration.allowLinkLocalTriggers,
            googleCompatible: configuration.googleCompatible)
        self.services = services
        let router = EmulatorRouter(
            safety: LaptopSafety(configuration),
            pagePaths: [HelperRoutes.showConsolePath, HelperRoutes.openActionLinkPath],
            authorization: AdminAuthorization(oauth: oauth), maxBodyBytes: configuration.maxBodyBytes,
            bodyReadTimeout: configuration.bodyReadTimeout,
            logger: configuration.logger,
            singleProject: configuration.singleProjectMode ? configuration.projectID : nil,
            refusesNullMembers: configuration.googleCompatible, faults: services.faults)
        AccountsRoutes(
            services: services,
            customTokens: CustomTokenVerifier(trustedKey: { [oauth] in oauth.publicKey(of: $0) }, clock: clock)
        )
        .registerRoutes(on: router)
        SecureTokenRoutes(services: services).registerRoutes(on: router)
        AdminRoutes(services: services).registerRoutes(on: router)
        LegacyRelyingPartyRoutes(admin: AdminRoutes(services: services)).registerRoutes(on: router)
        oauth.registerRoutes(on: router)
        (PublicKeyRoutes(key: key) as any GooglePublicKeysService).registerRoutes(on: router)
        (PublicKeyRoutes(key: key) as any SessionCookieKeysService).registerRoutes(on: router)
        HelperRoutes(
            services: services, oauth: oauth,
            console: ConsoleSettings(
                exportDirectory: configuration.exportOnExitDirectory, exportRoot: configuration.exportRoot)
        )
        .registerRoutes(on: router)
        routes = router.routes
        responder = router.build()
        do {
            try services.faults.replace(with: configuration.faults)
        } catch let error as APIServerError {
            throw EmulatorConfigurationError("--fault: \(error.detail ?? error.message)")
        }
    }

    /// How many of each kind of state the emulator holds (enrollment
    /// sessions, pending credentials, SMS codes, refresh tokens, email codes):
    /// for soak tests and monitoring that a long-running emulator stays flat.
    public var stateCounts: [String: Int] {
        get async { (try? await services.store.withState { SessionRules.counts($0) }) ?? [:] }
    }

    /// Writes everything the emulator's project holds to `directory` in
    /// firebase-tools' export format, replacing the folder whole.
    /// - Returns: the files written, relative to the folder.
    @discardableResult
    public func export(to directory: String) async throws -> [String] {
        try await services.export(to: URL(fileURLWithPath: directory))
    }

    /// Writes the export of ``EmulatorConfiguration/exportOnExitDirectory``,
    /// if one is set; a failure is logged, not thrown (the server has stopped).
    func exportOnExit() async {
        guard let directory = configuration.exportOnExitDirectory else { return }
        do {
            try await export(to: directory)
            configuration.logger.notice("exported the emulator's data to \(directory)")
        } catch {
            configuration.logger.error("could not export the emulator's data to \(directory): \(error)")
        }
    }

    /// The emulator as a service of the app's `ServiceGroup`, which owns
    /// the signals and the shutdown's time limits (swift-service-lifecycle's
    /// way for libraries): it serves until the group shuts down gracefully,
    /// then writes ``EmulatorConfiguration/exportOnExitDirectory``'s export.
    /// `onListening` receives the bound host and port (the real one when
    /// `port` is 0).
    ///
    /// ```swift
    /// let emulator = try IdentityToolkitEmulator(configuration: EmulatorConfiguration(port: 9099))
    /// let group = ServiceGroup(configuration: ServiceGroupConfiguration(
    ///     services: [emulator.service { host, port in print("listening on \(host):\(port)") }],
    ///     gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
    /// try await group.run()
    /// ```
    public func service(onListening: @escaping @Sendable (String, Int) async -> Void = { _, _ in }) -> some Service {
        EmulatorService(emulator: self, application: buildApplication(onListening: onListening))
    }

    /// The emulator as a Hummingbird application, as the Hummingbird
    /// template's `buildApplication()` makes one: run it as a service, or
    /// test it in process with HummingbirdTesting (`.test(.router)`: no
    /// socket, each request straight to its responder). Its routes,
    /// middleware and state are this emulator's; an export on exit is
    /// ``service(onListening:)``'s job, not the application's.
    public func buildApplication(onListening: @escaping @Sendable (String, Int) async -> Void = { _, _ in })
        -> some ApplicationProtocol
    {
        var logger = configuration.logger
        if logger.logLevel < .warning { logger.logLevel = .warning }
        let host = configuration.host
        let links = services.links
        return Application(
            responder: responder,
            server: .http1(
                configuration: HTTP1Channel.Configuration(idleTimeout: TimeAmount(configuration.idleTimeout))),
            configuration: ApplicationConfiguration(
                address: .hostname(host, port: configuration.port), serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                links.baseURL = "http://\(Self.urlHost(host)):\(port)"
                await onListening(host, port)
            },
            logger: logger
        )
    }

    /// A host as a URL writes it: an IPv6 address in brackets.
    static func urlHost(_ host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }
}

/// The emulator's application as a `Service`: serves until graceful
/// shutdown, then exports on exit.
private struct EmulatorService<App: ApplicationProtocol>: Service {
    let emulator: IdentityToolkitEmulator
    let application: App

    func run() async throws {
        do {
            try await application.run()
        } catch {
            await emulator.exportOnExit()
            throw error
        }
        await emulator.exportOnExit()
    }
}

extension IdentityToolkitEmulator: Service {
    /// Serves as ``service(onListening:)``'s service does, in the app's
    /// `ServiceGroup`, until it shuts down gracefully.
    public func run() async throws {
        try await service().run()
    }
}
#endif
