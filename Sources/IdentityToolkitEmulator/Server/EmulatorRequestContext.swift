#if Emulator
import Hummingbird
import NIOCore
import IdentitySupport
import IdentityToolkit

/// What the emulator's middleware learns of a request before its route
/// runs: the caller's credentials, read once.
struct EmulatorRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// Whether the `Authorization` header names an admin (``AdminAuthorization``),
    /// set by ``CredentialsMiddleware``.
    var isAdmin = false
    /// The request body, read whole by ``BodyLimitMiddleware`` before the route runs.
    var body = ByteBuffer()
    /// The query's parameters, once the API-key check has read them
    /// (``CallerCheckMiddleware``), so that the route does not parse them again.
    var query: [String: String]?

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
    }
}

/// Reads the caller's credentials once per request into the context, so
/// that neither the route's check nor its rule parses them again.
struct CredentialsMiddleware: RouterMiddleware {
    let authorization: AdminAuthorization

    func handle(
        _ request: Request, context: EmulatorRequestContext,
        next: (Request, EmulatorRequestContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        context.isAdmin = authorization.isAdmin(request.headers[.authorization])
        return try await next(request, context)
    }
}

/// Answers a request no route matched in the API's error shape (the router
/// throws Hummingbird's 404, whose body is Hummingbird's own).
struct UnknownRouteMiddleware: RouterMiddleware {
    func handle(
        _ request: Request, context: EmulatorRequestContext,
        next: (Request, EmulatorRequestContext) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            return ErrorResponses.render(ErrorResponses.unknownRoute(request))
        }
    }
}

/// `--single-project-mode` (``EmulatorConfiguration/singleProjectMode``):
/// a request whose path names another project than the emulator's is
/// refused (400), as firebase-tools' `singleProjectMode: ERROR` refuses it,
/// so that a test naming the wrong project fails loudly instead of writing
/// to a project nothing reads.
struct SingleProjectMiddleware: RouterMiddleware {
    let project: String

    func handle(
        _ request: Request, context: EmulatorRequestContext,
        next: (Request, EmulatorRequestContext) async throws -> Response
    ) async throws -> Response {
        if let named = Self.project(in: request.uri.path), named != project {
            return ErrorResponses.render(
                APIServerError.invalidArgument(
                    "this emulator runs in single project mode for project '\(project)'; the request names '\(LogSafeText.escaping(named, limit: 64))'"
                ))
        }
        return try await next(request, context)
    }

    /// The project a path names (`…/projects/{id}[/:]…`), if any.
    static func project(in path: String) -> String? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard let index = segments.firstIndex(of: "projects"), index + 1 < segments.count else { return nil }
        // `projects/p:createSessionCookie` names `p`.
        let segment = segments[index + 1]
        let id =
            segment.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)
            ?? ""
        return id.isEmpty ? nil : (id.removingPercentEncoding ?? id)
    }
}
#endif
