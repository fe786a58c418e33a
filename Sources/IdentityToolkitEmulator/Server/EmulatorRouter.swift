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
/// A request walks: ``LaptopSafetyMiddleware`` (host, origin, CORS, pages)
/// → ``UnknownRouteMiddleware`` → ``CredentialsMiddleware`` → the route
/// (``RouteResponder``: caller check, then the body, then the generated
/// decoder and the rule) → the response or the error in the route's shape.
final class EmulatorRouter: APIServerRouteRegistry {
    private let router = Router(context: EmulatorRequestContext.self)
    private let responder: RouteResponder
    /// Every route registered, in order (the route fuzz test walks them).
    private(set) var routes: [APIServerRoute] = []

    init(
        safety: LaptopSafety, pagePaths: Set<String>, authorization: AdminAuthorization,
        maxBodyBytes: Int, bodyReadTimeout: Duration, logger: Logger, singleProject: String? = nil,
        refusesNullMembers: Bool = false,
        faults: FaultInjector = FaultInjector()
    ) {
        responder = RouteResponder(
            maxBodyBytes: maxBodyBytes, bodyReadTimeout: bodyReadTimeout, logger: logger,
            refusesNullMembers: refusesNullMembers, faults: faults)
        // Middleware first: Hummingbird wraps the routes added after it.
        router.add(middleware: LaptopSafetyMiddleware(safety: safety, pagePaths: pagePaths))
        router.add(middleware: UnknownRouteMiddleware())
        if let singleProject { router.add(middleware: SingleProjectMiddleware(project: singleProject)) }
        router.add(middleware: CredentialsMiddleware(authorization: authorization))
    }

    func register(_ route: APIServerRoute) {
        routes.append(route)
        if FaultInjector.isFaultable(template: route.template) { responder.faults.allow(route.operationID) }
        router.on(RouterPath(route.template), method: route.method) { [responder] request, context in
            await responder.respond(to: request, context: context, route: route)
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

/// One matched route, from its path parameters to its answer.
struct RouteResponder: Sendable {
    let maxBodyBytes: Int
    let bodyReadTimeout: Duration
    let logger: Logger
    /// Google-compatible mode: a body member sent as `null` is refused, as
    /// Google's emulator's schema validator refuses it.
    let refusesNullMembers: Bool
    /// The faults injected into the emulated APIs' operations.
    let faults: FaultInjector

    func respond(to request: Request, context: EmulatorRequestContext, route: APIServerRoute) async -> Response {
        var pathParameters: [String: String] = [:]
        for name in route.pathParameterNames {
            guard let raw = context.parameters.get(name), let value = APIServerRoute.pathParameterValue(raw[...])
            else {
                return ErrorResponses.render(ErrorResponses.unknownRoute(request))
            }
            pathParameters[name] = value
        }
        // The caller is checked before a byte of the body is read.
        if route.authorization == .bearer && !context.isAdmin
            && !AdminAuthorization.isHarnessCall(
                method: request.method, routeTemplate: route.template, headers: request.headers)
        {
            return ErrorResponses.render(
                APIServerError.unauthenticated(
                    "this call needs 'Authorization: Bearer \(EmulatorAdminToken.owner)' or a token from the token endpoint"
                ))
        }
        // Hummingbird has percent-decoded the query already: decoding again
        // would turn a literal "%20" into a space.
        var query: [String: String] = [:]
        for (name, value) in request.uri.queryParameters where query[String(name)] == nil {
            query[String(name)] = String(value)
        }
        // An end-user call names an API key, as production requires (an admin's need not).
        if route.authorization == .apiKey && !context.isAdmin
            && !AdminAuthorization.hasAPIKey(query: query, headers: request.headers)
        {
            return ErrorResponses.render(
                APIServerError.permissionDenied("The request is missing a valid API key."), for: route)
        }
        // An injected fault answers in the route's place (or delays it).
        let fault = FaultInjector.isFaultable(template: route.template) ? faults.take(for: route.operationID) : nil
        if let fault, let answer = await FaultInjector.apply(fault, route: route) { return answer }
        let body: Data
        switch await readBody(of: request) {
        case .success(let data): body = data
        case .failure(let error): return ErrorResponses.render(error, for: route)
        }
        var apiRequest = APIServerRequest(
            method: request.method, headerFields: request.headers, query: query, body: body,
            pathParameters: pathParameters, operationID: route.operationID,
            acceptsFormBody: route.acceptsFormBody, hasBearerAuthorization: context.isAdmin)
        apiRequest.refusesNullMembers = refusesNullMembers
        do {
            let response = try await route.handler(apiRequest)
            var answer = Response(
                status: HTTPResponse.Status(code: response.status), headers: [.contentType: response.contentType],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: response.body)))
            if fault?.kind == .malformedCacheControl {
                answer.headers[.cacheControl] = FaultInjector.malformedCacheControl
            }
            return answer
        } catch let error as APIServerError {
            return ErrorResponses.render(error, for: route)
        } catch {
            logger.error("unexpected failure in \(route.operationID): \(type(of: error))")
            return ErrorResponses.render(APIServerError.internalError, for: route)
        }
    }

    /// The request body, within the size bound and the read deadline. At
    /// the deadline the caller answers 408 while the read is cancelled in
    /// the background (a stalled stream need not notice cancellation).
    private func readBody(of request: Request) async -> Result<Data, APIServerError> {
        let limit = maxBodyBytes
        let requestBody = request.body
        do {
            let buffer = try await Deadline.run(within: bodyReadTimeout) {
                try await requestBody.collect(upTo: limit)
            }
            return .success(Data(buffer: buffer))
        } catch is DeadlineExceeded {
            return .failure(
                APIServerError.invalidArgument("the request body did not arrive within \(bodyReadTimeout)").with(
                    status: 408, reason: "invalid"))
        } catch {
            return .failure(
                APIServerError.invalidArgument("the request body is larger than \(limit) bytes").with(
                    status: 413, reason: "invalid"))
        }
    }
}
#endif
