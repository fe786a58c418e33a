#if Hummingbird
public import Hummingbird
public import HummingbirdAuth
public import IdentityAdmin
import IdentityOTP
import IdentityToolkit
import Logging

/// Hummingbird middleware that verifies the Firebase ID token or session
/// cookie of each request and puts the ``DecodedIDToken`` in the request
/// context (`context.identity`), in the `hummingbird-auth` style.
///
/// ```swift
/// typealias AppContext = BasicAuthRequestContext<DecodedIDToken>
/// let router = Router(context: AppContext.self)
/// router.group("api")
///     .add(middleware: FirebaseAuthenticator(admin, options: .init(checkRevoked: true, requireSecondFactor: true)))
///     .get("me") { _, context in try context.requireIdentity().uid }
/// ```
///
/// A request it refuses is answered at once: 401 when the credential is
/// missing or fails verification (and, with a step-up challenge, RFC 9470,
/// when a bearer token's sign-in lacks the second factor or is too old),
/// 403 when it is valid but the policy refuses it (another tenant,
/// enrolment overdue, a session cookie's sign-in not enough), 503
/// when the keys or the revocation check cannot be reached. The JSON body
/// names the reason (`{"error":{"reason":"expired","message":…}}`) and
/// never the credential; 401s carry `WWW-Authenticate` (RFC 6750). Refusals
/// are logged at debug level with the reason only.
///
/// Verification is cheap on repeated tokens: the admin's verifiers keep a
/// verified-token cache (``TokenCacheOptions``), and with `checkRevoked`
/// the account states for ``TokenCacheOptions/revocationMaximumAge``.
public struct FirebaseAuthenticator<Context: AuthRequestContext<DecodedIDToken>>: AuthenticatorMiddleware {
    /// What a verified request carries in its context: the token's claims.
    public typealias Identity = DecodedIDToken

    /// What the middleware reads and what it requires (shared with the Vapor middleware).
    public typealias Options = FirebaseRouteProtection.Options

    /// The check every request goes through.
    public let protection: FirebaseRouteProtection

    /// Middleware verifying with `auth`: an ``IdentityAdmin`` (the
    /// project's users and every tenant's) or a ``TenantAwareAuth`` (one
    /// tenant's users only).
    public init(_ auth: BaseAuth, options: Options = Options()) {
        protection = FirebaseRouteProtection(auth, options: options)
    }

    /// Authenticates the request, then passes it on with the context's
    /// logger as `RequestLogger.current`, so that the
    /// package's lines for this request (the verification's REST calls, a
    /// recovery in the handler) carry its metadata, and — unless the app
    /// set one already — a `SecurityEventContext` with the request's id,
    /// the peer's address (a context that knows it) and its `User-Agent`,
    /// so that the security events of this request carry them.
    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        try await RequestLogger.withValue(context.logger) {
            try await Self.withSecurityEventContext(of: request, context: context) {
                var context = context
                if let identity = try await authenticate(request: request, context: context) {
                    context.identity = identity
                }
                return try await next(request, context)
            }
        }
    }

    /// Runs `operation` with the request's facts as the security-event
    /// context, unless one is set.
    static func withSecurityEventContext<Result>(
        of request: Request, context: Context,
        _ operation: () async throws -> Result
    ) async rethrows -> Result {
        guard SecurityEventContext.current == nil else { return try await operation() }
        let address = (context as? any RemoteAddressRequestContext)?.remoteAddress?.ipAddress
        let facts = SecurityEventContext(
            requestID: context.logger[metadataKey: "hb.request.id"]?.description,
            clientAddress: address, userAgent: request.headers[.userAgent])
        return try await SecurityEventContext.withValue(facts, operation)
    }

    /// The verified token of `request`; nil when it has no credential and
    /// ``FirebaseRouteProtection/Options/requireCredential`` is false.
    /// - Throws: `TokenVerificationError` (401, 403 or 503).
    public func authenticate(request: Request, context: Context) async throws -> DecodedIDToken? {
        do {
            return try await protection.authenticate(authorization: request.headers[.authorization]) {
                request.cookies[$0]?.value
            }
        } catch {
            context.logger.debug(
                "request refused", metadata: error.logMetadata(expects: protection.options.credential))
            throw error
        }
    }
}

/// A refusal is answered as JSON with its status, `WWW-Authenticate` on a
/// 401 of the Bearer scheme, and `Cache-Control: no-store`: the
/// authenticator's, and one a handler's own `verifyIDToken` throws.
extension TokenVerificationError: HTTPResponseError {
    /// 401, 403 or 503.
    public var status: HTTPResponse.Status { HTTPResponse.Status(code: statusCode) }

    /// The JSON answer (`TokenVerificationError.jsonBody`).
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = HTTPFields()
        for field in responseHeaders {
            // The names are fixed, valid tokens (``responseHeaders``).
            if let name = HTTPFields.Element.Name(field.name) { headers[name] = field.value }
        }
        return Response(
            status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: jsonBody)))
    }
}
#endif
