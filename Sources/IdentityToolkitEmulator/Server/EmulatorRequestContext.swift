import Hummingbird

/// What the emulator's middleware learns of a request before its route
/// runs: the caller's credentials, read once.
struct EmulatorRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// Whether the `Authorization` header names an admin (``AdminAuthorization``),
    /// set by ``CredentialsMiddleware``.
    var isAdmin = false

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
    }
}

/// Reads the caller's credentials once per request into the context, so
/// that neither the route's check nor its rule parses them again.
struct CredentialsMiddleware: RouterMiddleware {
    let authorization: AdminAuthorization

    func handle(_ request: Request, context: EmulatorRequestContext,
                next: (Request, EmulatorRequestContext) async throws -> Response) async throws -> Response {
        var context = context
        context.isAdmin = authorization.isAdmin(request.headers[.authorization])
        return try await next(request, context)
    }
}

/// Answers a request no route matched in the API's error shape (the router
/// throws Hummingbird's 404, whose body is Hummingbird's own).
struct UnknownRouteMiddleware: RouterMiddleware {
    func handle(_ request: Request, context: EmulatorRequestContext,
                next: (Request, EmulatorRequestContext) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            return ErrorResponses.render(ErrorResponses.unknownRoute(request))
        }
    }
}
