import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import IdentityToolkit
public import Logging
import NIOCore
import ServiceLifecycle

/// Settings of an emulator.
public struct EmulatorConfiguration: Sendable {
    /// The address to bind (loopback by default).
    public var host: String
    /// The port; 0 picks a free one.
    public var port: Int
    /// The project that API-key calls act on.
    public var projectID: String
    /// The largest request body accepted; larger ones get 413.
    public var maxBodyBytes: Int
    /// Service accounts whose JWT assertions the token endpoint
    /// (`POST /oauth2.googleapis.com/token`) accepts: client email → public key PEM.
    public var serviceAccounts: [String: String]
    /// A connection on which nothing arrives for this long is closed, a
    /// half-sent request included (so slow clients cannot hold connections).
    public var idleTimeout: Duration
    /// The longest a request body may take to arrive, however it trickles;
    /// a slower one gets 408.
    public var bodyReadTimeout: Duration
    /// How long a graceful shutdown (SIGTERM, SIGINT, cancellation) waits
    /// for requests in flight before the server is cancelled.
    public var shutdownGracePeriod: Duration
    /// Where the emulator logs (warnings and errors; never a body or a token).
    public var logger: Logger
    /// Production's second-factor rules, with their values.
    public var secondFactorRules = SecondFactorRules()

    /// Creates a configuration; every limit has a default fit for a shared,
    /// long-running emulator.
    public init(host: String = "127.0.0.1", port: Int = 9099, projectID: String = "demo-mfa", maxBodyBytes: Int = 1 << 20,
                serviceAccounts: [String: String] = [:], idleTimeout: Duration = .seconds(30), bodyReadTimeout: Duration = .seconds(10),
                shutdownGracePeriod: Duration = .seconds(5), logger: Logger = Logger(label: "IdentityToolkitEmulator")) {
        self.serviceAccounts = serviceAccounts
        self.host = host
        self.port = port
        self.projectID = projectID
        self.maxBodyBytes = maxBodyBytes
        self.idleTimeout = idleTimeout
        self.bodyReadTimeout = bodyReadTimeout
        self.shutdownGracePeriod = shutdownGracePeriod
        self.logger = logger
    }
}

/// A configuration the emulator cannot run with; the message names the setting.
public struct EmulatorConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public let description: String

    init(_ description: String) { self.description = description }
}

/// The rules production applies to second factors, with settable values
/// (`mfa emulator` has a flag for each). Production documents the errors
/// but not every value; the defaults say where each comes from.
public struct SecondFactorRules: Sendable, Hashable {
    /// Enrolling or withdrawing a factor needs a sign-in at most this old
    /// (`CREDENTIAL_TOO_OLD_LOGIN_AGAIN`); five minutes, as Firebase
    /// documents for sensitive operations.
    public var recentSignIn: Duration = .seconds(5 * 60)
    /// How long a TOTP sign-in challenge (the pending credential after the
    /// password) stays open (`TOTP_CHALLENGE_TIMEOUT`); five minutes, as
    /// recorded against production (refused at about 300 s; not documented).
    public var challengeLifetime: Duration = .seconds(5 * 60)
    /// Wrong codes allowed on one sign-in challenge or enrollment session;
    /// the next attempt, right or wrong, ends it
    /// (`TOO_MANY_ATTEMPTS_TRY_LATER`), so a code cannot be guessed by trying
    /// (NIST SP 800-63B §5.2.2). Five here; production throttles but does
    /// not document its threshold.
    public var maximumCodeAttempts: Int = 5

    /// The defaults above.
    public init() {}
}

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
public final class IdentityToolkitEmulator: Sendable {
    /// What the emulator was made with.
    public let configuration: EmulatorConfiguration
    /// The emulator's clock; tests move it instead of sleeping.
    public let clock = EmulatorClock()
    let store: EmulatorStore
    let tokens: SessionTokens
    let router: APIServerRouter
    let links = LinkBase()
    let oauth: OAuthTokenEndpoint

    /// An emulator with an empty store; ``start()`` serves it.
    /// - Throws: ``EmulatorConfigurationError`` for a rule out of range.
    public init(configuration: EmulatorConfiguration = EmulatorConfiguration()) throws {
        self.configuration = configuration
        guard (1...1000).contains(configuration.secondFactorRules.maximumCodeAttempts) else {
            throw EmulatorConfigurationError("secondFactorRules.maximumCodeAttempts must be 1 to 1000")
        }
        store = EmulatorStore(defaultProject: configuration.projectID, clock: clock, rules: configuration.secondFactorRules)
        oauth = try OAuthTokenEndpoint(serviceAccounts: configuration.serviceAccounts, clock: clock)
        tokens = SessionTokens(issuer: try TokenIssuer.processWide.get(), clock: clock, project: configuration.projectID)
        router = APIServerRouter(
            routes: AccountsEmulation(store: store, tokens: tokens, links: links,
                                      customTokens: CustomTokenVerifier(trustedKey: { [oauth] in oauth.publicKey(of: $0) }, clock: clock)).routes
                + SecureTokenEmulation(store: store, tokens: tokens).routes
                + AdminEmulation(store: store, tokens: tokens, links: links).routes
                + oauth.routes
                + (PublicKeysEmulation(issuer: tokens.issuer) as any GooglePublicKeysService).routes
                + (PublicKeysEmulation(issuer: tokens.issuer) as any SessionCookieKeysService).routes
                + HelperEmulation(store: store, clock: clock, oauth: oauth, issuer: tokens.issuer, links: links).routes
        )
    }

    /// How many of each kind of state the emulator holds (enrollment
    /// sessions, pending credentials, SMS codes, refresh tokens, email codes):
    /// for soak tests and monitoring that a long-running emulator stays flat.
    public var stateCounts: [String: Int] {
        get async { await store.stateCounts }
    }

    /// Serves until the calling task is cancelled, then shuts down
    /// gracefully. `onListening` receives the bound host and port (the real
    /// one when `port` is 0).
    public func run(onListening: @escaping @Sendable (String, Int) async -> Void = { _, _ in }) async throws {
        let group = serviceGroup(stopsOnSignals: false, onListening: onListening)
        // The group runs in a task of its own, which cancellation of the caller
        // does not reach: cancelling the caller shuts the server down gracefully.
        let serving = Task { try await group.run() }
        try await withTaskCancellationHandler {
            try await serving.value
        } onCancel: {
            Task { await group.triggerGracefulShutdown() }
        }
    }

    /// Serves until SIGINT or SIGTERM, then shuts down gracefully within
    /// ``EmulatorConfiguration/shutdownGracePeriod`` and returns.
    public func runUntilSignalled(onListening: @escaping @Sendable (String, Int) async -> Void) async throws {
        try await serviceGroup(stopsOnSignals: true, onListening: onListening).run()
    }

    /// The server as a service group whose graceful shutdown (on SIGTERM and
    /// SIGINT when `stopsOnSignals`, or on cancellation) waits at most
    /// ``EmulatorConfiguration/shutdownGracePeriod``.
    private func serviceGroup(stopsOnSignals: Bool, onListening: @escaping @Sendable (String, Int) async -> Void) -> ServiceGroup {
        var groupConfiguration = ServiceGroupConfiguration(
            services: [application(onListening: onListening)], gracefulShutdownSignals: stopsOnSignals ? [.sigterm, .sigint] : [],
            logger: configuration.logger)
        groupConfiguration.maximumGracefulShutdownDuration = configuration.shutdownGracePeriod
        groupConfiguration.maximumCancellationDuration = configuration.shutdownGracePeriod
        return ServiceGroup(configuration: groupConfiguration)
    }

    private func application(onListening: @escaping @Sendable (String, Int) async -> Void) -> some ApplicationProtocol {
        var logger = configuration.logger
        if logger.logLevel < .warning { logger.logLevel = .warning }
        let host = configuration.host
        let links = self.links
        return Application(
            responder: CallbackResponder { [self] (request: Request, _: BasicRequestContext) in
                if CORS.isPreflight(request) { return CORS.preflightResponse(to: request) }
                var response = await self.respond(to: request)
                CORS.decorate(&response, for: request)
                return response
            },
            server: .http1(configuration: HTTP1Channel.Configuration(idleTimeout: TimeAmount(configuration.idleTimeout))),
            configuration: ApplicationConfiguration(address: .hostname(host, port: configuration.port), serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                links.value = "http://\(host):\(port)"
                await onListening(host, port)
            },
            logger: logger
        )
    }

    // MARK: Requests

    func respond(to incoming: Request) async -> Response {
        let request = incoming
        let path = request.uri.path
        // Hummingbird has percent-decoded the query already: decoding again
        // would turn a literal "%20" into a space.
        var query: [String: String] = [:]
        for (name, value) in request.uri.queryParameters where query[String(name)] == nil {
            query[String(name)] = String(value)
        }
        let body: Data
        switch await readBody(of: request) {
        case .success(let data): body = data
        case .failure(let error): return Self.error(error)
        }
        switch router.match(method: request.method, path: path) {
        case .notFound:
            return Self.error(APIServerError(status: 404, "NOT_FOUND", detail: "no such operation: \(request.method.rawValue) \(path)", reason: "notFound"))
        case .methodNotAllowed:
            return Self.error(APIServerError(status: 405, "METHOD_NOT_ALLOWED", detail: "\(request.method.rawValue) is not allowed on \(path)"))
        case .found(let route, let parameters):
            if route.authorization == .bearer && !isAuthorizedAdmin(request.headers[.authorization]) {
                return Self.error(APIServerError(status: 401, "UNAUTHENTICATED", detail: "admin calls need 'Authorization: Bearer \(EmulatorAdminToken.owner)' or a token from the token endpoint", reason: "unauthorized"))
            }
            let apiRequest = APIServerRequest(method: request.method, headerFields: request.headers, query: query, body: body,
                                              pathParameters: parameters, operationID: route.operationID, acceptsFormBody: route.acceptsFormBody)
            do {
                let response = try await route.handler(apiRequest)
                return Response(status: HTTPResponse.Status(code: response.status), headers: [.contentType: response.contentType],
                                body: ResponseBody(byteBuffer: ByteBuffer(bytes: response.body)))
            } catch let error as APIServerError {
                return Self.error(error, for: route)
            } catch {
                configuration.logger.error("unexpected failure in \(route.operationID): \(type(of: error))")
                return Self.error(APIServerError(status: 500, "INTERNAL_ERROR", reason: "backendError"), for: route)
            }
        }
    }

    /// The request body, within the size bound and the read deadline. At
    /// the deadline the caller answers 408 while the read is cancelled in
    /// the background (a stalled stream need not notice cancellation).
    private func readBody(of request: Request) async -> Result<Data, APIServerError> {
        let limit = configuration.maxBodyBytes
        let requestBody = request.body
        do {
            let buffer = try await Deadline.run(within: configuration.bodyReadTimeout) {
                try await requestBody.collect(upTo: limit)
            }
            return .success(Data(buffer: buffer))
        } catch TransportError.timedOut {
            return .failure(APIServerError(status: 408, "INVALID_ARGUMENT", detail: "the request body did not arrive within \(configuration.bodyReadTimeout)"))
        } catch {
            return .failure(APIServerError(status: 413, "INVALID_ARGUMENT", detail: "the request body is larger than \(limit) bytes"))
        }
    }

    private func isAuthorizedAdmin(_ header: String?) -> Bool {
        guard let header, header.hasPrefix("Bearer ") else { return false }
        let token = String(header.dropFirst("Bearer ".count))
        return token == EmulatorAdminToken.owner.rawValue || oauth.isValid(token)
    }

    static func json(status: Int, _ body: Data) -> Response {
        Response(status: HTTPResponse.Status(code: status), headers: [.contentType: "application/json; charset=utf-8"],
                 body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// An error in the shape the route's spec gives it: RFC 6749 §5.2 for
    /// the OAuth2 token endpoint (a request it cannot read is
    /// `invalid_request`), Google's API error otherwise.
    static func error(_ error: APIServerError, for route: APIServerRoute) -> Response {
        guard route.errorBody == ObjectIdentifier(OAuthErrorResponse.self) else { return Self.error(error) }
        let code = error.shortCode == APIServerError.invalidArgument("").shortCode ? OAuthErrorCode.invalidRequest.rawValue : error.shortCode
        let body = OAuthErrorResponse(error: code, errorDescription: error.detail)
        return json(status: error.status, (try? JSONEncoder().encode(body)) ?? Data())
    }

    /// The API's error shape, built from the spec's generated error types.
    static func error(_ error: APIServerError) -> Response {
        let body = ErrorResponse(error: ErrorStatus(
            code: Int32(error.status), message: error.message, status: canonicalStatus(error.status),
            errors: [ErrorDetail(message: error.message, domain: "global", reason: error.reason)]
        ))
        return json(status: error.status, (try? JSONEncoder().encode(body)) ?? Data())
    }

    static func canonicalStatus(_ status: Int) -> String {
        switch status {
        case 400, 413: return "INVALID_ARGUMENT"
        case 408: return "DEADLINE_EXCEEDED"
        case 401: return "UNAUTHENTICATED"
        case 403: return "PERMISSION_DENIED"
        case 404: return "NOT_FOUND"
        case 405: return "UNIMPLEMENTED"
        default: return "INTERNAL"
        }
    }
}
