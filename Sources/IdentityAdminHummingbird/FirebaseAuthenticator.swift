public import Hummingbird
public import HummingbirdAuth
public import IdentityAdmin
import Logging

/// Where a request carries its Firebase credential.
public struct FirebaseCredentialSource: Sendable, Hashable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        case bearer
        case cookie(String)
        case bearerOrCookie(String)
    }

    let kind: Kind

    /// An ID token in `Authorization: Bearer …`, verified with `verifyIDToken`.
    public static let bearerToken = FirebaseCredentialSource(kind: .bearer)

    /// A session cookie (``BaseAuth/createSessionCookie(_:expiresIn:)``),
    /// verified with `verifySessionCookie`.
    /// - Parameter name: The cookie's name; `session` by default.
    public static func sessionCookie(named name: String = "session") -> FirebaseCredentialSource {
        FirebaseCredentialSource(kind: .cookie(name))
    }

    /// A bearer ID token when the request has an `Authorization` header,
    /// else the session cookie `name` (an API beside a web page).
    public static func bearerTokenOrSessionCookie(named name: String = "session") -> FirebaseCredentialSource {
        FirebaseCredentialSource(kind: .bearerOrCookie(name))
    }

    /// Where the credential is read, for logs (a cookie's name, never its value).
    public var description: String {
        switch kind {
        case .bearer: return "bearer token"
        case .cookie(let name): return "session cookie \(name)"
        case .bearerOrCookie(let name): return "bearer token or session cookie \(name)"
        }
    }
}

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
/// missing or fails verification, 403 when it is valid but the policy
/// refuses it (no second factor, a sign-in too old, another tenant), 503
/// when the keys or the revocation check cannot be reached. The JSON body
/// names the reason (`{"error":{"reason":"expired","message":…}}`) and
/// never the credential; 401s carry `WWW-Authenticate` (RFC 6750). Refusals
/// are logged at debug level with the reason and, once verified, the uid.
///
/// Verification is cheap on repeated tokens: the admin's verifiers keep a
/// verified-token cache (``TokenCacheOptions``), and with `checkRevoked`
/// the account states for ``TokenCacheOptions/revocationMaximumAge``.
public struct FirebaseAuthenticator<Context: AuthRequestContext<DecodedIDToken>>: AuthenticatorMiddleware {
    /// What a verified request carries in its context: the token's claims.
    public typealias Identity = DecodedIDToken

    /// What the middleware reads and what it requires.
    public struct Options: Sendable {
        /// Where the credential is; a bearer ID token by default.
        public var credential: FirebaseCredentialSource
        /// Whether each request also checks that the user is enabled and its
        /// refresh tokens were not revoked (answers are remembered for
        /// ``TokenCacheOptions/revocationMaximumAge``).
        public var checkRevoked: Bool
        /// Whether the sign-in must have used a second factor (TOTP or SMS): 403 otherwise.
        public var requireSecondFactor: Bool
        /// With `requireSecondFactor`, the oldest sign-in accepted (a step-up
        /// check); nil for any age.
        public var maximumAuthenticationAge: Duration?
        /// Whether a request without a credential is refused (401). When
        /// false it goes on without an identity, for routes that serve both
        /// (`context.identity` is nil; `context.requireIdentity()` refuses it).
        /// A credential that is present and fails is refused either way.
        public var requireCredential: Bool

        /// Options; the defaults read a bearer token, require it, and check neither revocation nor a second factor.
        public init(credential: FirebaseCredentialSource = .bearerToken, checkRevoked: Bool = false, requireSecondFactor: Bool = false,
                    maximumAuthenticationAge: Duration? = nil, requireCredential: Bool = true) {
            self.credential = credential
            self.checkRevoked = checkRevoked
            self.requireSecondFactor = requireSecondFactor
            self.maximumAuthenticationAge = maximumAuthenticationAge
            self.requireCredential = requireCredential
        }
    }

    let auth: BaseAuth
    let options: Options

    /// Middleware verifying with `auth`: an ``IdentityAdmin`` (the
    /// project's users and every tenant's) or a ``TenantAwareAuth`` (one
    /// tenant's users only).
    public init(_ auth: BaseAuth, options: Options = Options()) {
        self.auth = auth
        self.options = options
    }

    /// The verified token of `request`; nil when it has no credential and
    /// ``Options/requireCredential`` is false.
    /// - Throws: ``FirebaseAuthenticationError`` (401, 403 or 503).
    public func authenticate(request: Request, context: Context) async throws -> DecodedIDToken? {
        guard let credential = Self.credential(in: request, from: options.credential) else {
            guard options.requireCredential else { return nil }
            context.logger.debug("request refused", metadata: ["reason": "missing", "expects": "\(options.credential)"])
            throw FirebaseAuthenticationError(missing: options.credential)
        }
        let token: DecodedIDToken
        do {
            switch credential {
            case .idToken(let idToken): token = try await auth.verifyIDToken(idToken, checkRevoked: options.checkRevoked)
            case .sessionCookie(let cookie): token = try await auth.verifySessionCookie(cookie, checkRevoked: options.checkRevoked)
            }
            if options.requireSecondFactor {
                try token.requireSecondFactor(maximumAuthenticationAge: options.maximumAuthenticationAge)
            }
        } catch {
            context.logger.debug("request refused", metadata: ["reason": "\(error.code)"])
            throw FirebaseAuthenticationError(error, bearer: credential.isBearer)
        }
        return token
    }

    enum Credential {
        case idToken(String)
        case sessionCookie(String)

        var isBearer: Bool {
            if case .idToken = self { return true }
            return false
        }
    }

    /// The credential `request` carries where `source` says. An
    /// `Authorization` header of another scheme counts as none.
    static func credential(in request: Request, from source: FirebaseCredentialSource) -> Credential? {
        func bearer() -> Credential? {
            guard let token = request.headers.bearer?.token, !token.isEmpty else { return nil }
            return .idToken(token)
        }
        func cookie(_ name: String) -> Credential? {
            guard let value = request.cookies[name]?.value, !value.isEmpty else { return nil }
            return .sessionCookie(value)
        }
        switch source.kind {
        case .bearer: return bearer()
        case .cookie(let name): return cookie(name)
        case .bearerOrCookie(let name): return bearer() ?? cookie(name)
        }
    }
}

/// Why ``FirebaseAuthenticator`` refused a request: the answer's status and
/// reason. Holds no part of the credential.
public struct FirebaseAuthenticationError: HTTPResponseError, Sendable, CustomStringConvertible {
    /// The verification's own error; nil when the credential was missing.
    public let verificationError: TokenVerificationError?
    /// Whether the answer names the Bearer scheme in `WWW-Authenticate`.
    let bearer: Bool

    init(missing source: FirebaseCredentialSource) {
        verificationError = nil
        if case .cookie = source.kind { bearer = false } else { bearer = true }
    }

    init(_ error: TokenVerificationError, bearer: Bool) {
        verificationError = error
        self.bearer = bearer
    }

    /// 401, 403 or 503 (``TokenVerificationError/Code/httpStatus``); 401 when the credential was missing.
    public var status: HTTPResponse.Status {
        verificationError.map { HTTPResponse.Status(code: $0.code.httpStatus) } ?? .unauthorized
    }

    /// The reason in the body: `missing`, or a ``TokenVerificationError/Code``'s name (`expired`, `revoked`, `secondFactorRequired`, …).
    public var reason: String { verificationError?.code.description ?? "missing" }

    /// What the body's `message` says: the status and the reason, never a claim's value.
    public var description: String {
        verificationError == nil ? "no credential" : "the credential was refused: \(reason)"
    }

    private struct Body: Encodable {
        struct Detail: Encodable {
            let reason: String
            let message: String
        }
        let error: Detail
    }

    /// The JSON answer: the status, the reason and a message; `WWW-Authenticate` on a 401 of the Bearer scheme; `Cache-Control: no-store`.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try context.responseEncoder.encode(Body(error: .init(reason: reason, message: description)), from: request, context: context)
        response.status = status
        if status == .unauthorized, bearer {
            // RFC 6750 §3: a missing token gets the bare challenge, a refused one `invalid_token`.
            response.headers[.wwwAuthenticate] = verificationError == nil ? "Bearer" : "Bearer error=\"invalid_token\""
        }
        response.headers[.cacheControl] = "no-store"
        return response
    }
}
