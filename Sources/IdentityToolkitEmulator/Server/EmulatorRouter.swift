#if Emulator
import Foundation
import HTTPTypes
import Hummingbird
import IdentitySupport
import IdentityToolkit
import Logging
import NIOCore

/// The emulator's routes on Hummingbird's router: each API's generated
/// `registerRoutes(on:)` adds its operations here, and the trie matches
/// them (literal segments first, then `{name}:verb`, then `{name}`).
///
/// A request walks middleware for the framework's jobs, then the route:
/// ``LaptopSafetyMiddleware`` (host, origin, CORS, pages) →
/// ``UnknownRouteMiddleware`` → ``CredentialsMiddleware`` (read once), then
/// the route's own: ``RouteErrorMiddleware`` (every error in the route's
/// shape) → ``CallerCheckMiddleware`` (admin credential or API key) →
/// ``FaultMiddleware`` → ``BodyLimitMiddleware``, and last the route
/// (``RouteResponder``): decode, one rule, encode.
final class EmulatorRouter: APIServerRouteRegistry {
    private let router = Router(context: EmulatorRequestContext.self)
    private let responder: RouteResponder
    private let maxBodyBytes: Int
    private let bodyReadTimeout: Duration
    private let logger: Logger
    private let faults: FaultInjector
    /// Every route registered, in order (the route fuzz test walks them).
    private(set) var routes: [APIServerRoute] = []

    init(
        safety: LaptopSafety, pagePaths: Set<String>, authorization: AdminAuthorization,
        maxBodyBytes: Int, bodyReadTimeout: Duration, logger: Logger, singleProject: String? = nil,
        refusesNullMembers: Bool = false,
        faults: FaultInjector = FaultInjector()
    ) {
        responder = RouteResponder(refusesNullMembers: refusesNullMembers)
        self.maxBodyBytes = maxBodyBytes
        self.bodyReadTimeout = bodyReadTimeout
        self.logger = logger
        self.faults = faults
        // Middleware first: Hummingbird wraps the routes added after it.
        router.add(middleware: LaptopSafetyMiddleware(safety: safety, pagePaths: pagePaths))
        router.add(middleware: UnknownRouteMiddleware())
        if let singleProject { router.add(middleware: SingleProjectMiddleware(project: singleProject)) }
        router.add(middleware: CredentialsMiddleware(authorization: authorization))
    }

    func register(_ route: APIServerRoute) {
        routes.append(route)
        let faultable = FaultInjector.isFaultable(template: route.template)
        if faultable { faults.allow(route.operationID) }
        let (logger, faults, maxBodyBytes, bodyReadTimeout) = (logger, faults, maxBodyBytes, bodyReadTimeout)
        // One statically typed stack per route (MiddlewareFixedTypeBuilder):
        // the four run specialized, one existential call in all.
        router.group()
            .addMiddleware {
                RouteErrorMiddleware(route: route, logger: logger)
                CallerCheckMiddleware(route: route)
                if faultable { FaultMiddleware(route: route, faults: faults) }
                BodyLimitMiddleware(maxBodyBytes: maxBodyBytes, readTimeout: bodyReadTimeout)
            }
            .on(RouterPath(route.template), method: route.method) { [responder] request, context in
                try await responder.respond(to: request, context: context, route: route)
            }
    }

    /// The methods a path without them answers 405 to (`OPTIONS` is a
    /// preflight, answered before routing).
    static let standardMethods: [HTTPRequest.Method] = [.get, .post, .put, .patch, .delete, .head]

    /// The responder serving every route registered so far; a standard
    /// method a path lacks is answered 405 rather than 404.
    func build() -> RouterResponder<EmulatorRequestContext> {
        var methodsByTemplate: [String: Set<HTTPRequest.Method>] = [:]
        var templates: [String] = []
        for route in routes {
            if methodsByTemplate[route.template] == nil { templates.append(route.template) }
            methodsByTemplate[route.template, default: []].insert(route.method)
        }
        for template in templates {
            for method in Self.standardMethods where !(methodsByTemplate[template]?.contains(method) ?? false) {
                router.on(RouterPath(template), method: method) { request, _ in
                    ErrorResponses.render(
                        APIServerError.methodNotAllowed(
                            "\(request.method.rawValue) is not allowed on \(LogSafeText.escaping(request.uri.path))"
                        ))
                }
            }
        }
        return router.buildResponder()
    }
}

/// A matched route, its framework jobs done by middleware: the path
/// parameters and the query read, the generated decoder, the rule, the
/// encoded answer.
struct RouteResponder: Sendable {
    /// Google-compatible mode: a body member sent as `null` is refused, as
    /// Google's emulator's schema validator refuses it.
    let refusesNullMembers: Bool

    func respond(to request: Request, context: EmulatorRequestContext, route: APIServerRoute) async throws
        -> Response
    {
        var pathParameters: [String: String] = [:]
        for name in route.pathParameterNames {
            guard let raw = context.parameters.get(name), let value = APIServerRoute.pathParameterValue(raw[...])
            else {
                throw RouteFailure(error: ErrorResponses.unknownRoute(request), shape: nil)
            }
            pathParameters[name] = value
        }
        let query = context.query ?? Self.query(of: request)
        // BodyLimitMiddleware has read the body whole, within its bounds.
        var apiRequest = APIServerRequest(
            method: request.method, headerFields: request.headers, query: query, body: Data(buffer: context.body),
            pathParameters: pathParameters, operationID: route.operationID,
            acceptsFormBody: route.acceptsFormBody, hasBearerAuthorization: context.isAdmin)
        apiRequest.refusesNullMembers = refusesNullMembers
        let response = try await route.handler(apiRequest)
        return Response(
            status: HTTPResponse.Status(code: response.status), headers: [.contentType: response.contentType],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: response.body)))
    }

    /// A request's query parameters, the first of each name. Hummingbird
    /// has percent-decoded them already: decoding again would turn a
    /// literal "%20" into a space.
    static func query(of request: Request) -> [String: String] {
        var query: [String: String] = [:]
        for (name, value) in request.uri.queryParameters where query[String(name)] == nil {
            query[String(name)] = String(value)
        }
        return query
    }
}
#endif
