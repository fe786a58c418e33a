import Foundation

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

    /// Whether a refusal names the Bearer scheme (RFC 6750) in `WWW-Authenticate`.
    var readsBearerTokens: Bool {
        if case .cookie = kind { return false }
        return true
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

/// The check of a protected route, whatever the server framework: where
/// the credential is, how it is verified, and what the sign-in must have
/// been. The Hummingbird and Vapor middlewares are thin adapters over it,
/// so that both read, refuse and answer the same way.
public struct FirebaseRouteProtection: Sendable {
    /// What a protected route reads and what it requires.
    public struct Options: Sendable {
        /// Where the credential is; a bearer ID token by default.
        public var credential: FirebaseCredentialSource
        /// Whether each request also checks that the user is enabled and its
        /// refresh tokens were not revoked (answers are remembered for
        /// ``TokenCacheOptions/revocationMaximumAge``).
        public var checkRevoked: Bool
        /// What the sign-in must have been: its second factor and its age.
        public var policy: FirebaseSignInPolicy
        /// Whether every sign-in must have used a second factor (TOTP or SMS):
        /// the policy's ``FirebaseSignInPolicy/SecondFactor/required(enrollBy:snooze:)``
        /// without a deadline. Setting it replaces the policy's second-factor rule.
        public var requireSecondFactor: Bool {
            get { if case .required = policy.secondFactor { return true } else { return false } }
            set { policy.secondFactor = newValue ? .required() : .notRequired }
        }
        /// The oldest sign-in accepted (a step-up check); nil for any age.
        /// The policy's ``FirebaseSignInPolicy/maximumAuthenticationAge``.
        public var maximumAuthenticationAge: Duration? {
            get { policy.maximumAuthenticationAge }
            set { policy.maximumAuthenticationAge = newValue }
        }
        /// Whether a request without a credential is refused (401). When
        /// false it goes on without an identity, for routes that serve both.
        /// A credential that is present and fails is refused either way.
        public var requireCredential: Bool

        /// Options; the defaults read a bearer token, require it, and check
        /// neither revocation nor a second factor. `maximumAuthenticationAge`
        /// applies whatever `requireSecondFactor` says, as it does when set
        /// afterwards; ``init(credential:checkRevoked:policy:requireCredential:)``
        /// takes any policy.
        public init(
            credential: FirebaseCredentialSource = .bearerToken, checkRevoked: Bool = false,
            requireSecondFactor: Bool = false,
            maximumAuthenticationAge: Duration? = nil, requireCredential: Bool = true
        ) {
            self.init(
                credential: credential, checkRevoked: checkRevoked,
                policy: FirebaseSignInPolicy(
                    secondFactor: requireSecondFactor ? .required() : .notRequired,
                    maximumAuthenticationAge: maximumAuthenticationAge),
                requireCredential: requireCredential)
        }

        /// Options with a sign-in policy.
        /// - Parameters:
        ///   - credential: Where the credential is.
        ///   - checkRevoked: Whether each request also checks the account (see ``checkRevoked``).
        ///   - policy: What the sign-in must have been.
        ///   - requireCredential: Whether a request without a credential is refused.
        public init(
            credential: FirebaseCredentialSource = .bearerToken, checkRevoked: Bool = false,
            policy: FirebaseSignInPolicy, requireCredential: Bool = true
        ) {
            self.credential = credential
            self.checkRevoked = checkRevoked
            self.policy = policy
            self.requireCredential = requireCredential
        }
    }

    /// Verifies the credentials: an ``IdentityAdmin`` (the project's users
    /// and every tenant's) or a ``TenantAwareAuth`` (one tenant's users only).
    public let auth: BaseAuth
    /// What the route reads and requires.
    public let options: Options

    /// The check of `options`, verifying with `auth`.
    public init(_ auth: BaseAuth, options: Options = Options()) {
        self.auth = auth
        self.options = options
    }

    /// The verified token of a request whose `Authorization` header is
    /// `authorization` and whose cookies `cookie` looks up by name; nil when
    /// it has no credential and ``Options/requireCredential`` is false.
    /// An `Authorization` header of another scheme counts as none.
    /// - Throws: ``TokenVerificationError``, answered with its
    ///   ``TokenVerificationError/statusCode`` (401, 403 or 503).
    public func authenticate(authorization: String?, cookie: (String) -> String?)
        async throws(TokenVerificationError) -> DecodedIDToken?
    {
        func bearer() -> String? { authorization.flatMap(Self.bearerToken(fromAuthorization:)) }
        func nonEmpty(_ value: String?) -> String? { value?.isEmpty == false ? value : nil }
        let credential: (value: String, isBearer: Bool)?
        switch options.credential.kind {
        case .bearer: credential = bearer().map { ($0, true) }
        case .cookie(let name): credential = nonEmpty(cookie(name)).map { ($0, false) }
        case .bearerOrCookie(let name):
            credential = bearer().map { ($0, true) } ?? nonEmpty(cookie(name)).map { ($0, false) }
        }
        guard let credential else {
            guard options.requireCredential else { return nil }
            var refusal = TokenVerificationError.missingCredential
            refusal.routeAnswer.namesBearerScheme = options.credential.readsBearerTokens
            throw refusal
        }
        var usedSecondFactor = false
        do throws(TokenVerificationError) {
            let token =
                credential.isBearer
                ? try await auth.verifyIDToken(credential.value, checkRevoked: options.checkRevoked)
                : try await auth.verifySessionCookie(credential.value, checkRevoked: options.checkRevoked)
            if options.policy.asksNothing { return token }
            usedSecondFactor = token.usedSecondFactor
            return try await auth.enforce(options.policy, on: token)
        } catch {
            var refusal = error
            refusal.routeAnswer = .init(
                namesBearerScheme: credential.isBearer,
                secondFactorForStepUp: usedSecondFactor || error.code == .secondFactorRequired)
            throw refusal
        }
    }

    /// The token of an `Authorization` header of the Bearer scheme (RFC 6750
    /// §2.1: the scheme's name in any case, one or more spaces, a non-empty
    /// token); nil for another scheme.
    public static func bearerToken(fromAuthorization header: String) -> String? {
        // On contiguous bytes: this runs on every request, and Foundation's
        // `contains(" ")` or a generic walk of the UTF-8 view cost more than
        // a cached verification does.
        var header = header
        return header.withUTF8 { bytes -> String? in
            let scheme = "bearer".utf8
            let space = UInt8(ascii: " ")
            guard bytes.count > scheme.count + 1, zip(bytes, scheme).allSatisfy({ $0 | 0x20 == $1 }),
                bytes[scheme.count] == space
            else { return nil }
            var start = scheme.count + 1
            while start < bytes.count, bytes[start] == space { start += 1 }
            let token = UnsafeBufferPointer(rebasing: bytes[start...])
            guard !token.isEmpty, !token.contains(space) else { return nil }
            return String(decoding: token, as: UTF8.self)
        }
    }
}
