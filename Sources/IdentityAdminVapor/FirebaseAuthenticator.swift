#if Vapor
public import IdentityAdmin
public import IdentityOTP
import IdentityToolkit
public import Vapor

/// A verified Firebase user, as Vapor's authentication stores it:
/// `req.auth.require(FirebaseUser.self)` in a route behind
/// ``FirebaseAuthenticator``.
public struct FirebaseUser: Authenticatable, Sendable {
    /// The verified token's claims (uid, tenant, second factor, custom claims).
    public let token: DecodedIDToken

    /// The user's uid.
    public var uid: String { token.uid }

    /// Wraps a verified token.
    public init(token: DecodedIDToken) {
        self.token = token
    }
}

/// Vapor middleware that verifies the Firebase ID token or session cookie
/// of each request and logs a ``FirebaseUser`` in (`req.auth`).
///
/// ```swift
/// let api = app.grouped(FirebaseAuthenticator(admin, options: .init(checkRevoked: true, requireSecondFactor: true)))
/// api.get("me") { req in try req.auth.require(FirebaseUser.self).uid }
/// ```
///
/// A request it refuses is answered at once, as the Hummingbird middleware
/// answers it (``FirebaseRouteProtection``): 401 when the credential is
/// missing or fails verification (and, with a step-up challenge, RFC 9470,
/// when a bearer token's sign-in lacks the second factor or is too old),
/// 403 when it is valid but the policy refuses it (another tenant,
/// enrolment overdue, a session cookie's sign-in not enough), 503
/// when the keys or the revocation check cannot be reached; a JSON body
/// naming the reason and never the credential, `WWW-Authenticate` on 401s
/// of the Bearer scheme (RFC 6750), `Cache-Control: no-store`. Refusals are
/// logged at debug level with the reason only.
///
/// With ``FirebaseRouteProtection/Options/requireCredential`` false, a
/// request without a credential goes on with no user: the route decides
/// (`req.auth.get(FirebaseUser.self)`, or Vapor's `guardMiddleware()`).
public struct FirebaseAuthenticator: AsyncMiddleware {
    /// What the middleware reads and what it requires (shared with the Hummingbird middleware).
    public typealias Options = FirebaseRouteProtection.Options

    /// The check every request goes through.
    public let protection: FirebaseRouteProtection

    /// Middleware verifying with `auth`: an ``IdentityAdmin`` (the
    /// project's users and every tenant's) or a ``TenantAwareAuth`` (one
    /// tenant's users only).
    public init(_ auth: BaseAuth, options: Options = Options()) {
        protection = FirebaseRouteProtection(auth, options: options)
    }

    /// Verifies the request's credential, logs its user in and passes it on; answers a refusal itself.
    /// The rest of the request runs with `request.logger` as
    /// `RequestLogger.current`, so that the package's lines
    /// for it (the verification's REST calls, a recovery in the handler)
    /// carry its metadata.
    ///
    /// Unless the app set one already, the verification also runs with the
    /// request's `SecurityEventContext` (``Vapor/Request/securityEventContext``).
    /// Vapor starts each async route handler in a task of its own, so
    /// task-local values do not reach it: a handler that records events
    /// wraps its work in `SecurityEventContext.withValue(req.securityEventContext) { … }`.
    public func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        try await RequestLogger.withValue(request.logger) {
            guard SecurityEventContext.current == nil else {
                return try await authenticate(request, chainingTo: next)
            }
            return try await SecurityEventContext.withValue(request.securityEventContext) {
                try await authenticate(request, chainingTo: next)
            }
        }
    }

    private func authenticate(_ request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let token: DecodedIDToken?
        do {
            token = try await protection.authenticate(authorization: request.headers.first(name: .authorization)) {
                request.cookies[$0]?.string
            }
        } catch {
            request.logger.debug(
                "request refused", metadata: error.logMetadata(expects: protection.options.credential))
            return Self.response(for: error)
        }
        if let token { request.auth.login(FirebaseUser(token: token)) }
        return try await next.respond(to: request)
    }

    /// The JSON answer of a refusal.
    static func response(for error: TokenVerificationError) -> Response {
        let headers = HTTPHeaders(error.responseHeaders)
        return Response(
            status: HTTPResponseStatus(statusCode: error.statusCode), headers: headers,
            body: .init(data: error.jsonBody))
    }
}

extension Request {
    /// The request's facts for its security events: its id, the peer's
    /// address and its `User-Agent` (behind a load balancer, an app that
    /// trusts the balancer's forwarded address sets its own context).
    public var securityEventContext: SecurityEventContext {
        SecurityEventContext(
            requestID: id, clientAddress: remoteAddress?.ipAddress, userAgent: headers.first(name: .userAgent))
    }
}
#endif
