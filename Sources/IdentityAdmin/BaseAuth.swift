public import Foundation
public import IdentityOTP
import IdentityToolkit

/// What the project's admin (``IdentityAdmin``) and a tenant's
/// (``TenantAwareAuth``, from ``TenantManager/authForTenant(_:)``) share, as
/// firebase-admin-node's `BaseAuth`: verifying ID tokens and session cookies,
/// creating session cookies, ending sessions, and managing users. Every call
/// of a tenant's instance is scoped to that tenant.
///
/// A class (not a protocol) so that the behaviour has one home; its state is
/// immutable, which makes the unchecked `Sendable` conformance safe.
public class BaseAuth: @unchecked Sendable {
    /// The project.
    public let projectID: String
    /// The tenant every call is scoped to; nil for the project's own users.
    public let tenantID: String?
    /// Verifies ID tokens (every check Google documents; see ``IDTokenVerifier``).
    public let idTokenVerifier: IDTokenVerifier
    /// Verifies session cookies (the same checks under the session issuer and keys).
    public let sessionCookieVerifier: IDTokenVerifier

    let client: AdminClient
    /// Makes ``createCustomToken(uid:developerClaims:now:)``'s tokens.
    let customTokens: CustomTokenMinter
    /// The account states `checkRevoked` checks looked up, shared with the
    /// tenants' instances; nil when ``TokenCacheOptions/revocationMaximumAge`` is zero.
    let accountStates: AccountStateCache?
    /// The lookups behind `checkRevoked`: one in flight per account, and a
    /// breaker that fails fast while the backend is down (shared with the tenants).
    let accountLookups: AccountLookups
    /// The account changes for ``RevocationFanOut`` to tell the other
    /// instances (shared with the tenants).
    let accountChanges: AccountChangeFeed

    /// What an instance is built from: ``IdentityAdmin`` makes them, a
    /// tenant's instance takes the admin's (its verifiers narrowed to the tenant).
    struct Parts {
        var client: AdminClient
        var customTokens: CustomTokenMinter
        var idTokenVerifier: IDTokenVerifier
        var sessionCookieVerifier: IDTokenVerifier
        var accountStates: AccountStateCache?
        var accountLookups: AccountLookups
        var accountChanges = AccountChangeFeed()
    }

    init(projectID: String, tenantID: String?, parts: Parts) {
        self.projectID = projectID
        self.tenantID = tenantID
        client = parts.client
        customTokens = parts.customTokens
        idTokenVerifier = parts.idTokenVerifier
        sessionCookieVerifier = parts.sessionCookieVerifier
        accountStates = parts.accountStates
        accountLookups = parts.accountLookups
        accountChanges = parts.accountChanges
    }

    // MARK: ID tokens and session cookies

    /// Verifies an ID token a client sent (every check Google documents; see
    /// ``IDTokenVerifier``) and returns its claims, the second factor included.
    ///
    /// Tenants: the project's instance (``IdentityAdmin``) accepts the tokens
    /// of the project's own users **and of every tenant of the project**, as
    /// firebase-admin does; ``DecodedIDToken/tenant`` says whose it is. A
    /// server for one tenant verifies through that tenant's
    /// ``TenantAwareAuth`` (``TenantManager/authForTenant(_:)``), which
    /// refuses the others, or calls ``DecodedIDToken/requireTenant(_:)``.
    ///
    /// ```swift
    /// let token = try await admin.verifyIDToken(idToken, checkRevoked: true)
    /// try token.requireSecondFactor()   // "totp" when the sign-in used TOTP
    /// ```
    /// - Parameters:
    ///   - idToken: The token, as the client sent it.
    ///   - checkRevoked: Also look the account up: refuse a disabled or
    ///     deleted user, and a sign-in older than the account's `validSince`
    ///     (``revokeRefreshTokens(uid:now:)``). Compares `auth_time`, as
    ///     firebase-admin does, so a token refreshed after the revocation is refused too.
    public func verifyIDToken(_ idToken: String, checkRevoked: Bool = false) async throws(TokenVerificationError)
        -> DecodedIDToken
    {
        try await verify(idToken, with: idTokenVerifier, checkRevoked: checkRevoked)
    }

    /// The shortest and longest session a cookie may hold: 5 minutes and 2 weeks.
    public static let sessionCookieDurations: ClosedRange<Duration> =
        .seconds(IdentityPlatformLimits.sessionCookieSeconds.lowerBound)
        ... .seconds(IdentityPlatformLimits.sessionCookieSeconds.upperBound)

    /// Exchanges a fresh ID token for a session cookie that lasts `expiresIn`:
    /// the web-server form of a sign-in (set it as an `HttpOnly` cookie, and
    /// check it with ``verifySessionCookie(_:checkRevoked:)`` on each request).
    /// Google recommends doing this only for a sign-in of the last few minutes
    /// (`token.authTime`).
    /// - Parameters:
    ///   - idToken: The user's ID token.
    ///   - expiresIn: The cookie's lifetime, 5 minutes to 2 weeks (``sessionCookieDurations``).
    /// - Throws: ``AdminValidationError`` for a lifetime out of range (nothing
    ///   is sent), or the server's error (`INVALID_ID_TOKEN`, `TOKEN_EXPIRED`,
    ///   `USER_DISABLED`, …) as `IdentityToolkitError`.
    public func createSessionCookie(_ idToken: String, expiresIn: Duration) async throws -> String {
        guard Self.sessionCookieDurations.contains(expiresIn), expiresIn.components.attoseconds == 0 else {
            throw AdminValidationError(field: "expiresIn", message: "must be whole seconds from 5 minutes to 2 weeks")
        }
        let response = try await client.createSessionCookie(
            targetProjectId: projectID,
            body: CreateSessionCookieRequest(
                idToken: idToken, validDuration: expiresIn.components.seconds, tenantId: tenantID))
        guard let cookie = response.sessionCookie, !cookie.isEmpty else {
            throw IdentityToolkitError.undecodableResponse(
                status: 200,
                underlying: AdminValidationError(field: "sessionCookie", message: "is missing from the response"))
        }
        return cookie
    }

    /// Verifies a session cookie from ``createSessionCookie(_:expiresIn:)``
    /// (the ID-token checks, under the session issuer and the session-cookie
    /// keys) and returns its claims: the same ``DecodedIDToken``, second
    /// factor included.
    /// - Parameters:
    ///   - sessionCookie: The cookie's value.
    ///   - checkRevoked: As for ``verifyIDToken(_:checkRevoked:)``.
    public func verifySessionCookie(_ sessionCookie: String, checkRevoked: Bool = false)
        async throws(TokenVerificationError) -> DecodedIDToken
    {
        try await verify(sessionCookie, with: sessionCookieVerifier, checkRevoked: checkRevoked)
    }

    /// Both verifications: the verifier's checks and the revocation check,
    /// in the verifier's one span (the `Telemetry` trait).
    private func verify(_ credential: String, with verifier: IDTokenVerifier, checkRevoked: Bool)
        async throws(TokenVerificationError) -> DecodedIDToken
    {
        try await verifier.verify(credential, checkRevoked: checkRevoked) { token throws(TokenVerificationError) in
            try await checkNotRevoked(token)
        }
    }

    /// The account behind a verified `token` is enabled, exists, and was not
    /// revoked after its sign-in: the `checkRevoked` half of
    /// ``verifyIDToken(_:checkRevoked:)``.
    ///
    /// The account's state is looked up once per account at a time, and kept
    /// for ``TokenCacheOptions/revocationMaximumAge``; while lookups keep
    /// failing (three in a row) the check fails at once with
    /// ``TokenVerificationError/revocationCheckFailed(reason:)`` (a 503)
    /// instead of waiting for each request's deadline, until one lookup
    /// succeeds again.
    ///
    /// Counted in `firebase_token_revocation_checks_total` by `outcome` and
    /// `source` (`cache` or `lookup`; the `Telemetry` trait).
    public func checkNotRevoked(_ token: DecodedIDToken) async throws(TokenVerificationError) {
        var source = "lookup"
        do throws(TokenVerificationError) {
            let state = try await accountState(uid: token.uid, tenant: token.tenant, source: &source)
            guard state.exists else { throw TokenVerificationError.userNotFound }
            if state.disabled { throw TokenVerificationError.userDisabled }
            if let validSince = state.validSince, token.authTime < validSince { throw TokenVerificationError.revoked }
            VerificationMetrics.revocationCheck(outcome: "ok", looked: source)
        } catch {
            VerificationMetrics.revocationCheck(outcome: error.code.description, looked: source)
            throw error
        }
    }

    /// The account's state as a revocation check and a sign-in policy need it: looked up, or
    /// as looked up within ``TokenCacheOptions/revocationMaximumAge``
    /// (`source` becomes `cache`).
    func accountState(uid: String, tenant: String?, source: inout String) async throws(TokenVerificationError)
        -> AccountStateCache.AccountState
    {
        let key = AccountStateCache.Key(tenant: tenant, uid: uid)
        if let cached = accountStates?.state(for: key) {
            source = "cache"
            return cached
        }
        let (client, projectID) = (client, projectID)
        let epoch = accountStates?.epoch ?? 0
        let state = try await accountLookups.state(for: key) {
            let users =
                try await client.lookupAccounts(
                    targetProjectId: projectID, body: GetAccountInfoRequest(localId: [uid], tenantId: tenant)
                ).users ?? []
            let user = users.first { $0.localId == uid }
            return AccountStateCache.AccountState(
                exists: user != nil, disabled: user?.disabled == true,
                validSince: user?.validSince.map { Date(timeIntervalSince1970: TimeInterval($0)) },
                secondFactorCount: user?.mfaInfo?.count ?? 0,
                createdAt: user?.createdAt.map { Date(timeIntervalSince1970: TimeInterval($0) / 1000) })
        }
        accountStates?.insert(state, for: key, ifUnchangedSince: epoch)
        return state
    }

    /// Forgets what this instance remembers of `uid`'s account (the state
    /// that `checkRevoked` and ``FirebaseSignInPolicy`` read), so that the
    /// next check here looks it up. This admin's own account changes do it
    /// by themselves; call it after the app changed the account another way,
    /// such as a second factor enrolled or withdrawn through MultiFactorAuth.
    /// Other instances hear of it at once through a running
    /// ``RevocationFanOut``; without one, they see the change within
    /// ``TokenCacheOptions/revocationMaximumAge``.
    /// - Parameter uid: The user (of this admin's tenant, if it has one).
    public func forgetCachedAccountState(uid: String) {
        let key = AccountStateCache.Key(tenant: tenantID, uid: uid)
        accountStates?.forget(key)
        idTokenVerifier.cache?.forget(uid: uid, tenant: tenantID)
        sessionCookieVerifier.cache?.forget(uid: uid, tenant: tenantID)
        accountChanges.announce(key)
    }

    /// Ends every session of a user: refresh tokens stop working, and ID
    /// tokens and session cookies of earlier sign-ins fail the
    /// `checkRevoked: true` checks. As firebase-admin, it sets the account's
    /// `validSince` to now, in whole seconds rounded down.
    /// - Parameters:
    ///   - uid: The user.
    ///   - now: The current time (for tests).
    ///
    /// Records a `SecurityEvent.Kind.sessionsRevoked` event (initiated by
    /// an administrator) in `SecurityEventSystem`.
    public func revokeRefreshTokens(uid: String, now: Date = Date()) async throws {
        try await revokeRefreshTokens(uid: uid, now: now, initiatedBy: .admin)
    }

    /// ``revokeRefreshTokens(uid:now:)`` on behalf of `initiator`: the
    /// user signing out everywhere (`SecurityEvent.Initiator.user`), say,
    /// so that the event says who ended the sessions.
    /// - Parameters:
    ///   - uid: The user.
    ///   - now: The current time.
    ///   - initiator: Who asked.
    public func revokeRefreshTokens(uid: String, now: Date = Date(), initiatedBy initiator: SecurityEvent.Initiator)
        async throws
    {
        defer { forgetCachedAccountState(uid: uid) }
        _ = try await client.updateAccount(
            targetProjectId: projectID,
            body: SetAccountInfoRequest(
                tenantId: tenantID, localId: uid, validSince: Int64(now.timeIntervalSince1970.rounded(.down))))
        await SecurityEventSystem.record(
            SecurityEvent(.sessionsRevoked, user: userKey(uid), date: now, initiatedBy: initiator))
    }

    /// `uid` of this instance's tenant (or the project), as the stores and events name users.
    public func userKey(_ uid: String) -> UserKey { UserKey(uid: uid, tenantID: tenantID) }

    /// Ends every session of `uid` as of now: firebase-admin's call.
    /// - Parameter uid: The user.
    public func revokeRefreshTokens(uid: String) async throws {
        try await revokeRefreshTokens(uid: uid, now: Date())
    }
}
