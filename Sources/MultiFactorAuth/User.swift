import Foundation
import IdentitySupport
import IdentityToolkit

/// A signed-in user.
///
/// Its state changes as calls refresh tokens or change factors; all reads
/// and writes are thread-safe.
public final class User: Sendable, CustomStringConvertible {
    /// The ID token is refreshed when fewer than this many seconds remain.
    static let refreshMargin: TimeInterval = 5 * 60

    let context: AuthContext
    let state: Locked<AuthSession>
    private let refreshing = SharedFetch<String>()

    /// The user's second factors.
    public let multiFactor: MultiFactor

    init(session: AuthSession, context: AuthContext) {
        self.context = context
        self.state = Locked(session)
        self.multiFactor = MultiFactor(context: context)
        multiFactor.user = WeakUser(self)
    }

    /// The user's id.
    public var uid: String { state.current.uid }
    /// The user's email address, if any.
    public var email: String? { state.current.email }
    /// The user's display name, if any.
    public var displayName: String? { state.current.displayName }
    /// Whether the email address is verified (as of the last sign-in or ``reload()``).
    public var isEmailVerified: Bool { state.current.isEmailVerified }
    /// Whether the user signed in anonymously.
    public var isAnonymous: Bool { state.current.isAnonymous }
    /// The tenant the user belongs to.
    public var tenantID: String? { state.current.tenantID }
    /// The refresh token (a secret: never log it).
    public var refreshToken: String? { state.current.refreshToken }

    /// Never shows tokens.
    public var description: String {
        "User(uid: \(uid), email: \(email ?? "nil"), factors: \(state.current.factors.count))"
    }

    /// A current ID token: the cached one while more than five minutes
    /// remain, else a refreshed one. Concurrent callers share one refresh.
    public func getIDToken() async throws -> String {
        try await getIDToken(forcingRefresh: false)
    }

    /// A current ID token; with `forcingRefresh`, always a new one.
    public func getIDToken(forcingRefresh: Bool) async throws -> String {
        let session = state.current
        if !forcingRefresh && session.idTokenExpiration.timeIntervalSince(context.now()) > Self.refreshMargin {
            return session.idToken
        }
        return try await refreshing.value { try await self.refreshTokens() }
    }

    /// The refresh failures after which the session cannot continue: the
    /// user is signed out, as Firebase does.
    static let sessionEndingCodes: Set<AuthErrorCode.Code> = [
        .userNotFound, .userDisabled, .invalidUserToken, .userTokenExpired,
    ]

    private func refreshTokens() async throws -> String {
        let backend = try context.backend()
        let refreshToken = state.current.refreshToken
        let response: GrantTokenResponse
        do {
            response = try await AuthErrorMapping.perform {
                try await backend.secureToken.grantToken(
                    GrantTokenRequest(grantType: SecureTokenGrantType.refreshToken.rawValue, refreshToken: refreshToken)
                )
            }
        } catch let error as AuthErrorCode where Self.sessionEndingCodes.contains(error.code) {
            context.sessionEnded(for: uid)
            throw error
        }
        guard let idToken = response.idToken ?? response.accessToken else {
            throw AuthErrorCode(.internalError, message: "The token response has no ID token.")
        }
        try await updateTokens(idToken: idToken, refreshToken: response.refreshToken, expiresIn: response.expiresIn)
        return idToken
    }

    /// Stores new tokens (from a refresh, an enrollment or a withdrawal).
    func updateTokens(idToken: String, refreshToken: String?, expiresIn: Int64?) async throws {
        let expiration =
            IDToken.expiration(of: idToken) ?? context.now().addingTimeInterval(TimeInterval(expiresIn ?? 3600))
        state.withLock { session in
            session.idToken = idToken
            if let refreshToken { session.refreshToken = refreshToken }
            session.idTokenExpiration = expiration
        }
        context.idTokenChanged(for: uid)
        try await save()
    }

    /// Reloads the profile and factors from the server.
    public func reload() async throws {
        let idToken = try await getIDToken()
        let backend = try context.backend()
        let tenant = tenantID
        let response = try await AuthErrorMapping.perform {
            try await backend.accounts.lookup(GetAccountInfoRequest(idToken: idToken, tenantId: tenant))
        }
        guard let account = response.users?.first else { throw AuthErrorCode(.userNotFound) }
        let factors = try MultiFactorInfo.factors(from: account.mfaInfo ?? [])
        state.withLock { session in
            session.email = account.email
            session.displayName = account.displayName
            session.isEmailVerified = account.emailVerified ?? false
            session.factors = factors.map(\.stored)
        }
        try await save()
    }

    /// Sends the email verification message (the emulator lists it at `/emulator/v1/projects/{project}/oobCodes`).
    public func sendEmailVerification() async throws {
        let idToken = try await getIDToken()
        let backend = try context.backend()
        let tenant = tenantID
        _ = try await AuthErrorMapping.perform {
            try await backend.accounts.sendOobCode(
                GetOobCodeRequest(requestType: .verifyEmail, idToken: idToken, tenantId: tenant))
        }
    }

    /// Sends a verification email to `newEmail`; following it makes that the
    /// user's (verified) address. The way a user with a second factor
    /// changes email, as Firebase's `sendEmailVerification(beforeUpdatingEmail:)`.
    public func sendEmailVerification(beforeUpdatingEmail newEmail: String) async throws {
        let idToken = try await getIDToken()
        let backend = try context.backend()
        let tenant = tenantID
        _ = try await AuthErrorMapping.perform {
            try await backend.accounts.sendOobCode(
                GetOobCodeRequest(
                    requestType: .verifyAndChangeEmail, idToken: idToken, newEmail: newEmail,
                    tenantId: tenant))
        }
    }

    /// Saves the session, after any earlier save or removal (see ``SessionStoreQueue``).
    func save() async throws {
        let session = state.current
        let key = context.sessionKey
        context.storeQueue.enqueue { try await $0.save(session, key: key) }
        try await context.storeQueue.flush()
    }
}

/// Lets ``MultiFactor`` reach its user without a retain cycle.
struct WeakUser: @unchecked Sendable {
    weak var user: User?
    init(_ user: User) { self.user = user }
}

/// Reads an ID token's claims (the spec's `IDTokenClaims`) without
/// verifying them, as the Firebase SDKs do on the client: a server verifies.
enum IDToken {
    static func claims(of token: String) -> IDTokenClaims? {
        JWTCompactForm(token).flatMap { try? JSONDecoder().decode(IDTokenClaims.self, from: $0.payload) }
    }

    /// When the token expires (`exp`).
    static func expiration(of token: String) -> Date? {
        claims(of: token).map { Date(timeIntervalSince1970: TimeInterval($0.exp)) }
    }
}
