#if Emulator
import Foundation
import IdentityToolkit
import IdentitySupport

/// Sessions and tokens: refresh tokens granted, refreshed and revoked,
/// the recent-sign-in rule, and the sweep that keeps a long-running
/// emulator's memory flat.
enum SessionRules {
    /// A new refresh token for `user` (a session with `facts`). Each user
    /// keeps at most the newest ``EmulatorRules/maximumRefreshTokensPerUser``
    /// sessions; an older refresh token then answers `INVALID_REFRESH_TOKEN`.
    static func grant(
        _ state: inout EmulatorState, for user: EmulatedUser, facts: SessionFacts, _ context: RuleContext
    ) -> SessionGrant {
        var user = user
        user.lastRefreshAt = max(user.lastRefreshAt ?? .distantPast, facts.authTime)
        state.updateAccounts(in: user.realm) { accounts in
            if var stored = accounts[user.localId] {
                stored.lastRefreshAt = user.lastRefreshAt
                accounts.store(stored)
            }
        }
        let token = refreshToken(for: user, provider: facts.provider, context)
        state.sessions.refreshTokens[token] = RefreshTokenRecord(
            uid: user.localId, realm: user.realm, generation: user.tokenGeneration, session: facts)
        var tokens = state.sessions.refreshTokensByUser[user.key] ?? []
        tokens.append(token)
        if tokens.count > EmulatorRules.maximumRefreshTokensPerUser {
            for old in tokens.prefix(tokens.count - EmulatorRules.maximumRefreshTokensPerUser) {
                state.sessions.refreshTokens[old] = nil
            }
            tokens.removeFirst(tokens.count - EmulatorRules.maximumRefreshTokensPerUser)
        }
        state.sessions.refreshTokensByUser[user.key] = tokens
        return SessionGrant(
            uid: user.localId, realm: user.realm, email: user.email, emailVerified: user.emailVerified,
            displayName: user.displayName, facts: facts, refreshToken: token,
            customAttributes: user.customAttributes,
            phoneNumber: user.phoneNumber, linkedProviders: user.linkedProviders, photoUrl: user.photoUrl)
    }

    /// A new refresh token: opaque, or in Google-compatible mode readable
    /// as Google's emulator's are (base64 of a JSON record that test
    /// suites decode), with the opaque token inside. Either way the token
    /// is only a key of the emulator's own records: a forged or edited one
    /// names no session and is refused.
    static func refreshToken(for user: EmulatedUser, provider: ProviderID, _ context: RuleContext) -> String {
        let opaque = Data.randomToken(bytes: 32)
        guard context.googleCompatible else { return opaque }
        let record = ReadableRefreshToken(
            marker: ReadableRefreshTokenMarker.doNotModify.rawValue, localId: user.localId,
            provider: provider.rawValue,
            projectId: user.realm.project, tenantId: user.realm.tenant, token: opaque)
        return (try? CanonicalJSON.encoder.encode(record))?.base64EncodedString() ?? opaque
    }

    /// A pending credential for `user`, who passed `provider` and has a
    /// second factor: it lasts ``SecondFactorRules/challengeLifetime``.
    static func pendingCredential(
        _ state: inout EmulatorState, for user: EmulatedUser, provider: ProviderID, _ context: RuleContext
    ) -> String {
        let credential = Data.randomToken(bytes: 32)
        state.sessions.pendingCredentials[credential] = PendingCredential(
            uid: user.localId, realm: user.realm, provider: provider,
            expiresAt: context.now.addingTimeInterval(context.secondFactors.challengeLifetime.timeInterval))
        return credential
    }

    /// `securetoken.googleapis.com/v1/token`: the request's fields, then
    /// the refresh token's session, marked as refreshed now.
    static func grantToken(_ state: inout EmulatorState, _ body: GrantTokenRequest, _ context: RuleContext) throws
        -> SessionGrant
    {
        guard !body.grantType.isEmpty else { throw APIServerError.missingGrantType }
        guard body.grantType == SecureTokenGrantType.refreshToken.rawValue else {
            throw APIServerError.invalidGrantType
        }
        guard let refreshToken = body.refreshToken, !refreshToken.isEmpty else {
            throw APIServerError.missingRefreshToken
        }
        let grant = try refresh(state, token: refreshToken, googleCompatible: context.googleCompatible)
        if var user = state.user(grant.uid, in: grant.realm) {
            user.lastRefreshAt = context.now
            state.store(user)
        }
        return grant
    }

    /// The session of a refresh token, for new tokens: the user must still
    /// exist, be enabled, and not have had their sessions revoked since.
    /// A deleted user's token is `USER_NOT_FOUND`, as production documents;
    /// `googleCompatible` answers `INVALID_REFRESH_TOKEN`, as Google's emulator.
    static func refresh(_ state: EmulatorState, token: String, googleCompatible: Bool = false) throws
        -> SessionGrant
    {
        guard let record = state.sessions.refreshTokens[token] else { throw APIServerError.invalidRefreshToken }
        if googleCompatible, state.user(record.uid, in: record.realm) == nil {
            throw APIServerError.invalidRefreshToken
        }
        let user = try AccountRules.activeUser(state, record.uid, in: record.realm)
        guard user.tokenGeneration == record.generation else {
            throw APIServerError.tokenExpired("the session was revoked")
        }
        return SessionGrant(
            uid: user.localId, realm: user.realm, email: user.email, emailVerified: user.emailVerified,
            displayName: user.displayName, facts: record.session, refreshToken: token,
            customAttributes: user.customAttributes,
            phoneNumber: user.phoneNumber, linkedProviders: user.linkedProviders, photoUrl: user.photoUrl)
    }

    /// Ends every session of `user` from now on: refresh tokens of earlier
    /// sessions stop working and their ID tokens fail `checkRevoked`.
    static func revokeSessions(of user: inout EmulatedUser, at now: Date) {
        user.tokenGeneration += 1
        user.validSince = now
    }

    /// Forgets every session of a uid: a new account that takes a deleted
    /// one's uid must not inherit its refresh tokens.
    static func forgetSessions(_ state: inout EmulatorState, of owner: UserKey) {
        for token in state.sessions.refreshTokensByUser[owner] ?? [] { state.sessions.refreshTokens[token] = nil }
        state.sessions.refreshTokensByUser[owner] = nil
    }

    /// Refuses an ID token whose sign-in is older than ``SecondFactorRules/recentSignIn``
    /// (`CREDENTIAL_TOO_OLD_LOGIN_AGAIN`, as production answers sensitive operations).
    static func checkRecentSignIn(_ authTime: Date, _ context: RuleContext) throws {
        guard context.now.timeIntervalSince(authTime) <= context.secondFactors.recentSignIn.timeInterval else {
            throw APIServerError.credentialTooOldLoginAgain("sign in again before changing second factors")
        }
    }

    /// Removes expired enrollment sessions, pending credentials and SMS
    /// codes, and refresh tokens that can never work again (revoked, or of a
    /// deleted user). Runs at most once per ``EmulatorRules/sweepInterval``
    /// of the emulator's clock; each rule that creates state calls it.
    static func sweepExpiredState(_ state: inout EmulatorState, now: Date) {
        guard abs(now.timeIntervalSince(state.lastSweep)) >= EmulatorRules.sweepInterval else { return }
        state.lastSweep = now
        state.sessions.enrollmentSessions = state.sessions.enrollmentSessions.filter { now < $0.value.expiresAt }
        state.sessions.pendingCredentials = state.sessions.pendingCredentials.filter { now < $0.value.expiresAt }
        state.outOfBand.phoneVerifications.filter { now < $0.expiresAt }
        state.sessions.passkeyChallenges.filter { now < $0.expiresAt }
        let live = state
        state.sessions.refreshTokens = state.sessions.refreshTokens.filter { _, record in
            live.user(record.uid, in: record.realm)?.tokenGeneration == record.generation
        }
        let tokens = state.sessions.refreshTokens
        state.sessions.refreshTokensByUser = state.sessions.refreshTokensByUser.compactMapValues { userTokens in
            let kept = userTokens.filter { tokens[$0] != nil }
            return kept.isEmpty ? nil : kept
        }
    }

    /// Forgets the sessions and codes of a realm (its accounts were deleted).
    static func forgetRealm(_ state: inout EmulatorState, _ realm: Realm) {
        state.sessions.enrollmentSessions = state.sessions.enrollmentSessions.filter { $0.value.realm != realm }
        state.sessions.pendingCredentials = state.sessions.pendingCredentials.filter { $0.value.realm != realm }
        state.sessions.refreshTokens = state.sessions.refreshTokens.filter { $0.value.realm != realm }
        state.sessions.refreshTokensByUser = state.sessions.refreshTokensByUser.filter { $0.key.realm != realm }
        state.outOfBand.oobCodes.filter { $0.realm != realm }
        state.outOfBand.phoneVerifications.filter { $0.realm != realm }
        state.sessions.passkeyChallenges.filter { $0.realm != realm }
    }

    /// How many of each kind of short-lived state there is (for tests and the soak).
    static func counts(_ state: EmulatorState) -> [String: Int] {
        [
            "enrollmentSessions": state.sessions.enrollmentSessions.count,
            "pendingCredentials": state.sessions.pendingCredentials.count,
            "phoneVerifications": state.outOfBand.phoneVerifications.count,
            "refreshTokens": state.sessions.refreshTokens.count,
            "oobCodes": state.outOfBand.oobCodes.count, "passkeyChallenges": state.sessions.passkeyChallenges.count,
        ]
    }
}

extension Data {
    /// A random opaque identifier (session infos, refresh tokens, codes),
    /// drawn 8 bytes per generator call rather than one.
    static func randomToken(bytes: Int = 24) -> String {
        var generator = SystemRandomNumberGenerator()
        var data = Data(capacity: bytes + 8)
        while data.count < bytes {
            Swift.withUnsafeBytes(of: generator.next()) { data.append(contentsOf: $0) }
        }
        return data.prefix(bytes).base64URLEncoded
    }
}
#endif
