import ArgumentParser
import Configuration
import Foundation
import Hummingbird
import IdentityOTP
import IdentityServerState
import IdentityStoresPostgres
import IdentityToolkitEmulator
import Logging
import Metrics
import PostgresNIO
import Prometheus
import ServiceLifecycle
import TOTPLoginApp

/// `swift run TOTPLogin`: the example app and, unless `--emulator` names a
/// running one, an Identity Platform emulator in the same process.
@main
struct TOTPLoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "TOTPLogin",
        abstract: "A web app that signs users in with a password and a TOTP authenticator app.",
        discussion: """
            Prints 'listening on http://HOST:PORT' when ready. Switches TOTP on for the project.

            Several instances behind a balancer share the browsers' state and the attempt counts: give each \
            the same --postgres database, or (without a database) the same sealing keys in TOTPLOGIN_SEALING_KEYS \
            or --sealing-keys-file ("id:base64-key,…", the newest first; 'mfa' prints none: use 32 random bytes).
            """
    )

    // Every option is optional and without a default: a value given here
    // wins over the environment and the file, and the defaults live in one
    // place (TOTPLoginSettings, which lists every key).
    @Option(help: "The address to serve on (http.host; default 127.0.0.1).")
    var host: String?

    @Option(help: "The port to serve on; 0 picks a free one (http.port; default 8080).")
    var port: Int?

    @Option(
        help: ArgumentHelp(
            "Use a running emulator at HOST:PORT instead of starting one (firebase.emulatorHost).",
            valueName: "host:port"))
    var emulator: String?

    @Option(
        help:
            "The Identity Platform project (firebase.projectId; default: the running emulator's, or demo-totp-login for the embedded one)."
    )
    var project: String?

    @Option(
        help: ArgumentHelp(
            "Share state and attempt counts through PostgreSQL (postgres.url: a libpq URL without a password; the password from TOTPLOGIN_POSTGRES_PASSWORD or PGPASSWORD).",
            valueName: "url"))
    var postgres: String?

    @Option(
        help: ArgumentHelp(
            "A file holding the sealing key ring (sealing.keys; else TOTPLOGIN_SEALING_KEYS).", valueName: "path"))
    var sealingKeysFile: String?

    @Option(
        help: ArgumentHelp(
            "Where browsers reach the app; an https URL marks the cookies Secure (publicURL).", valueName: "url"))
    var publicURL: String?

    @Flag(
        help:
            "Take the client's address from the last X-Forwarded-For entry, only behind a proxy that sets it (trustForwardedFor)."
    )
    var trustForwardedFor = false

    @Option(
        help: ArgumentHelp(
            "Serve Prometheus text at /metrics on 127.0.0.1:PORT, apart from the app's port; 0 picks a free one (metrics.port).",
            valueName: "port"))
    var metricsPort: Int?

    @Option(
        help: ArgumentHelp(
            "A JSON file of settings, under \"totplogin\" (the options and the environment win over it).",
            valueName: "path"))
    var configFile: String?

    @Option(
        help: ArgumentHelp(
            "Every account needs a second factor from then on; before, the account page reminds (mfa.enrollBy).",
            valueName: "iso8601-time"))
    var enrollBy: String?

    @Option(
        help: ArgumentHelp(
            "Sign in the users of this tenant (its id or display name; made when missing) instead of the project's own (firebase.tenant).",
            valueName: "name"))
    var tenant: String?

    @Flag(
        help:
            "Do not point the project's beforeSignIn trigger at this app's blocking function at start (blocking.enabled)."
    )
    var noBlockingFunction = false

    @Option(
        help: ArgumentHelp(
            "In the tenant, refuse a sign-in without TOTP once the account is this old (blocking.requireTOTPAfter; default a day).",
            valueName: "seconds"))
    var requireTOTPAfter: Int?

    @Option(
        help: ArgumentHelp(
            "Roles for the role claim, such as alice@example.com=admin,bob@example.com=support (blocking.roles).",
            valueName: "list"))
    var roles: String?

    func run() async throws {
        var logger = Logger(label: "TOTPLogin")
        logger.logLevel = .info
        let settings = try TOTPLoginSettings(
            config: try await TOTPLoginSettings.reader(options: try optionValues(), file: configFile)
                .scoped(to: ConfigKey(TOTPLoginSettings.scope)))
        // First, so that every metric and span the SDK makes (they are made
        // with the admin instance) reaches the backend: OTLP when the OTEL_*
        // variables ask for it, Prometheus at --metrics-port.
        let otlp = Observability.isRequested()
        let observability = otlp ? try Observability.bootstrap(metrics: settings.metricsPort == nil) : nil
        let metricsRegistry = PrometheusCollectorRegistry()
        if settings.metricsPort != nil { Observability.bootstrapPrometheus(metricsRegistry) }
        let keyRing = settings.sealingKeys
        // The store would hold refresh tokens and pending TOTP keys: never in clear.
        if settings.postgres != nil && keyRing == nil { throw Self.noSealingKeys }
        var postgresClient: PostgresClient?
        var stores: PostgresIdentityStores?
        if let database = settings.postgres {
            // Refuse to start without the database, rather than fail every sign-in.
            do { try await PostgresIdentityStores.checkConnection(database, logger: logger) } catch {
                throw StartupError(description: "cannot reach PostgreSQL at \(database): \(error)")
            }
            let client = PostgresClient(configuration: database.clientConfiguration, backgroundLogger: logger)
            postgresClient = client
            stores = try PostgresIdentityStores(client: client, logger: logger)
        }

        if let address = settings.emulator {
            let projectID = try await agreedProject(
                emulatorHost: address.host, port: address.port, requested: settings.project)
            try await serve(emulatorAddress: address, projectID: projectID)
        } else {
            // The embedded emulator serves in a group of its own around the
            // app's: it stops last, after the requests in flight (which still
            // call it) are answered.
            let projectID = settings.project ?? Self.defaultProject
            try await IdentityToolkitEmulator(configuration: EmulatorConfiguration(port: 0, projectID: projectID))
                .serving { running in
                    try await serve(emulatorAddress: (running.host, running.port), projectID: projectID)
                }
        }
        FileHandle.standardOutput.write(Data("stopped: requests in flight answered, the pool closed\n".utf8))

        /// The app against the emulator at `emulatorAddress`, until SIGTERM or SIGINT.
        func serve(emulatorAddress: (host: String, port: Int), projectID: String) async throws {
            let emulatorURL = "http://\(emulatorAddress.host):\(emulatorAddress.port)"
            FileHandle.standardOutput.write(Data("emulator at \(emulatorURL) (project \(projectID))\n".utf8))
            var tenantID: String?
            if let tenant = settings.tenant {
                let found: String
                do {
                    found = try await IdentityBackend.tenant(
                        named: tenant, emulatorHost: emulatorAddress.host, emulatorPort: emulatorAddress.port,
                        projectID: projectID)
                } catch {
                    throw StartupError(
                        description: "cannot find or make the tenant \(tenant) at the emulator \(emulatorURL): \(error)"
                    )
                }
                FileHandle.standardOutput.write(Data("tenant \(found)\n".utf8))
                tenantID = found
            }
            let backend = try IdentityBackend(
                emulatorHost: emulatorAddress.host, emulatorPort: emulatorAddress.port, projectID: projectID,
                tenantID: tenantID)

            // The security stores on one storage: PostgreSQL's, shared by the
            // fleet, or this process's memory.
            let storage: any IdentityStorage = stores ?? InMemoryIdentityStorage()
            let (attempts, recoveryCodes, securityEvents, replayStore) = (
                storage.verificationStore, storage.recoveryCodeStore, storage.securityEventLog,
                storage.verificationStore
            )
            let state: BrowserStateConfiguration
            var outbox: any NotificationOutbox = InMemoryNotificationOutbox()
            var roles: any RoleDirectory = InMemoryRoleDirectory(settings.roles)
            if let stores, let postgresClient {
                guard let keyRing else { throw Self.noSealingKeys }
                outbox = PostgresNotificationOutbox(client: postgresClient, logger: logger)
                roles = PostgresRoleDirectory(client: postgresClient, logger: logger)
                // A browser state that no longer opens only asks for a new sign-in.
                state = .store(
                    SealingStateStore(
                        base: stores.stateStore,
                        codec: SealedStateCodec(keyRing: keyRing, purpose: "totplogin.browser-store"),
                        unopenable: .readAsAbsent),
                    name: "PostgreSQL, sealed", keyRing: keyRing)
                // The fleet's last key sets: an instance that starts while
                // Google's key route is down verifies with them until they expire.
                backend.admin.shareSigningKeys(
                    in: SealingStateStore(
                        base: stores.stateStore,
                        codec: SealedStateCodec(keyRing: keyRing, purpose: "totplogin.signing-keys")))
            } else {
                if keyRing == nil {
                    logger.warning(
                        "no sealing keys: a random key seals the browsers' cookies, so a restart or another instance cannot read them (set \(Self.sealingKeysVariable))"
                    )
                }
                state = .sealedCookie(keyRing: try keyRing ?? SealingKeyRing([SealingKey.random(id: "ephemeral")]))
                logger.warning(
                    "attempt counts are kept in this process: each instance grants the limit again (use --postgres)")
            }
            let app = TOTPLoginApp(
                backend: backend, state: state, attempts: attempts, recoveryCodes: recoveryCodes,
                publicURL: settings.publicURL,
                trustForwardedFor: settings.trustForwardedFor, logger: logger, securityEvents: securityEvents,
                outbox: outbox,
                enrollmentDeadline: settings.enrollBy,
                signInRules: SignInRules(totpTenant: tenantID, enrollmentGrace: settings.requireTOTPAfter, roles: roles)
            )
            logger.info("\(app.stateSummary)")
            // What runs beside the server, in start order; on SIGTERM or SIGINT
            // the server stops taking connections and finishes the requests in
            // flight, then these stop in reverse order: the key refresher, the
            // sweeper and the revocation fan-out, and the PostgreSQL pool; the
            // embedded emulator (which the draining requests still call) after them.
            var services: [any Service] = []
            if let observability { services.append(observability) }
            if let postgresClient, let stores {
                // The fan-out tells every instance at once when one revokes a
                // user's sessions (LISTEN/NOTIFY), instead of within the cache's 10 s.
                services += [
                    postgresClient, stores.sweeper(), stores.recordLog.retentionSweeper(),
                    backend.admin.revocationFanOut(over: stores.notificationChannel, logger: logger),
                ]
            }
            services.append(backend.admin.signingKeyRefresher)
            if let metricsPort = settings.metricsPort {
                services.append(Self.metricsApplication(metricsRegistry, port: metricsPort, logger: logger))
            }
            let host = settings.host
            let blockingFunction = settings.blockingFunction
            let publicURL = settings.publicURL
            var application = Application(
                router: app.router(tracing: otlp),
                configuration: ApplicationConfiguration(address: .hostname(host, port: settings.port), serverName: nil),
                services: services,
                onServerRunning: { [replayStore, logger] channel in
                    let port = channel.localAddress?.port ?? 0
                    if blockingFunction {
                        // Behind a balancer, Identity Platform calls the public address; any instance answers.
                        let url =
                            (publicURL.map {
                                $0.absoluteString.hasSuffix("/")
                                    ? String($0.absoluteString.dropLast()) : $0.absoluteString
                            }
                                ?? "http://\(host):\(port)") + TOTPLoginApp.beforeSignInPath
                        app.serveBlockingFunction(at: url, replayStore: replayStore)
                        do {
                            try await backend.configureBeforeSignIn(functionURL: url)
                            FileHandle.standardOutput.write(Data("blocking function beforeSignIn at \(url)\n".utf8))
                        } catch {
                            logger.error(
                                "could not configure the beforeSignIn trigger", metadata: ["error": "\(error)"])
                        }
                    }
                    // Whole lines, flushed: scripts wait for this one.
                    FileHandle.standardOutput.write(Data("listening on http://\(host):\(port)\n".utf8))
                },
                logger: logger
            )
            // Once the services run (the pool among them), before the first connection.
            application.beforeServerStarts { [stores, outbox, roles, settings] in
                if let stores {
                    // Creates or upgrades the tables; safe from every instance at once.
                    do {
                        try await stores.migrate()
                        if let outbox = outbox as? PostgresNotificationOutbox { try await outbox.migrate() }
                        if let roles = roles as? PostgresRoleDirectory { try await roles.migrate(seed: settings.roles) }
                    } catch { throw StartupError(description: "cannot prepare the PostgreSQL tables: \(error)") }
                }
                do { try await backend.enableTOTP() } catch {
                    throw StartupError(description: "cannot switch TOTP on at the emulator \(emulatorURL): \(error)")
                }
            }
            try await application.runService()
        }
    }
}
