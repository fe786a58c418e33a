#if Emulator
import Foundation
import IdentityToolkit

/// The admin API's account operations (`AdminService`: accounts, bulk
/// imports and deletes, queries, session cookies), each one rule on the
/// state: the admin's realm and its switches, the request's fields, the
/// token (verified before the state was entered), then the change.
extension AdminAccountRules {
    /// The most accounts `accounts:query` returns, and its default.
    static let maximumQueryLimit = 500

    static func lookup(_ state: EmulatorState, _ body: GetAccountInfoRequest, project: String, _ context: RuleContext)
        throws -> [EmulatedUser]
    {
        let realm = try TenantRules.requestRealm(
            state, project: project, tenant: body.tenantId,
            tokenTenant: SessionTokens.unverifiedTenant(of: body.idToken), isAdmin: true, context)
        try TenantRules.checkAuthEnabled(state, realm)
        return lookup(state, realm: realm, body)
    }

    /// The accounts a lookup's fields name (uids, addresses, phone numbers,
    /// providers' ids), in a realm already settled.
    static func lookup(_ state: EmulatorState, realm: Realm, _ body: GetAccountInfoRequest) -> [EmulatedUser] {
        lookup(
            state, realm: realm, localIds: body.localId ?? [], emails: body.email ?? [],
            phoneNumbers: body.phoneNumber ?? [],
            providers: (body.federatedUserId ?? []).compactMap { id in
                id.providerId.flatMap { provider in id.rawId.map { (provider, $0) } }
            })
    }

    /// An account an admin creates (`accounts`, or an admin's `accounts:signUp`:
    /// `viaSignUp`, where a uid beside an ID token is refused).
    static func create(
        _ state: inout EmulatorState, _ body: SignUpRequest, project: String, viaSignUp: Bool, _ context: RuleContext
    ) throws -> EmulatedUser {
        if viaSignUp, body.idToken?.isEmpty == false, body.localId != nil {
            throw APIServerError.unexpectedParameter("User ID")
        }
        let realm = try TenantRules.adminRealm(state, project: project, tenant: body.tenantId)
        return try create(
            &state, realm: realm,
            NewAccount(
                localId: body.localId, email: body.email, password: body.password, displayName: body.displayName,
                emailVerified: body.emailVerified, disabled: body.disabled, photoUrl: body.photoUrl,
                phoneNumber: body.phoneNumber, factors: body.mfaInfo ?? []), context)
    }

    /// One page of a realm's accounts (`accounts:batchGet`).
    static func list(
        _ state: EmulatorState, project: String, tenant: String?, maxResults: Int32?, nextPageToken: String?
    ) throws -> (users: [EmulatedUser], lastUID: String?) {
        let pageSize = try InputRules.pageSize(maxResults, field: "maxResults")
        let after = try nextPageToken.map { try InputRules.cursor(fromPageToken: $0) }
        let realm = try TenantRules.adminRealm(state, project: project, tenant: tenant)
        try TenantRules.checkAuthEnabled(state, realm)
        return list(state, realm: realm, pageSize: pageSize, after: after)
    }

    static func delete(_ state: inout EmulatorState, _ body: DeleteAccountRequest, project: String) throws {
        guard let localId = body.localId, !localId.isEmpty else { throw APIServerError.missingLocalId }
        let realm = try TenantRules.adminRealm(state, project: project, tenant: body.tenantId)
        try delete(&state, realm: realm, localId: localId)
    }

    /// An admin's `accounts:update`; a token in the body is read before the realm, as production.
    static func update(
        _ state: inout EmulatorState, _ body: SetAccountInfoRequest, project: String, token: VerifiedIDToken?,
        _ context: RuleContext
    ) throws -> AccountUpdateRules.Outcome {
        let claims = try token?.get()
        let realm = try TenantRules.adminRealm(state, project: project, tenant: body.tenantId)
        return try AccountUpdateRules.update(&state, realm: realm, body, claims: claims, isAdmin: true, context)
    }

    /// The claims and lifetime of a session cookie for a valid ID token of
    /// a user who still may sign in (two weeks when the request names no
    /// duration, as Google's emulator).
    static func sessionCookie(
        _ state: EmulatorState, _ body: CreateSessionCookieRequest, project: String, token: VerifiedIDToken,
        _ context: RuleContext
    ) throws -> (claims: IDTokenClaims, seconds: Int64) {
        let duration = body.validDuration ?? IdentityPlatformLimits.sessionCookieSeconds.upperBound
        guard IdentityPlatformLimits.sessionCookieSeconds.contains(duration) else {
            throw APIServerError.invalidDuration
        }
        let claims = try token.get()
        guard claims.audience == project else {
            throw APIServerError.invalidIdToken("the token is for another project")
        }
        // AccountRules.user refuses a token issued before the account's sessions were revoked.
        _ = try AccountRules.user(state, for: claims, requestTenant: body.tenantId, context)
        return (claims, duration)
    }

    /// The number of a realm's accounts and (unless `returnUserInfo` is
    /// false) a page of them in uid order: `limit` (1 to 500, default 500)
    /// after `offset`.
    static func query(_ state: EmulatorState, _ body: QueryUserInfoRequest, project: String) throws -> (
        count: Int, page: [EmulatedUser]
    ) {
        let limit = Int(body.limit ?? Int64(maximumQueryLimit))
        guard (1...maximumQueryLimit).contains(limit) else {
            throw APIServerError.invalidArgument("limit must be 1 to \(maximumQueryLimit)")
        }
        let offset = Int(body.offset ?? 0)
        guard offset >= 0 else { throw APIServerError.invalidArgument("offset must not be negative") }
        let realm = try TenantRules.adminRealm(state, project: project, tenant: body.tenantId)
        try TenantRules.checkAuthEnabled(state, realm)
        let all = state.accounts(in: realm)
        return (all.count, body.returnUserInfo == false ? [] : Array(all.sortedByID.dropFirst(offset).prefix(limit)))
    }

    /// Withdraws one second factor of a user (the emulator's page).
    static func withdrawFactor(_ state: inout EmulatorState, realm: Realm, uid: String, factor: String) throws {
        guard var user = state.user(uid, in: realm) else { throw APIServerError.userNotFound }
        guard user.enrollments.contains(where: { $0.id == factor }) else {
            throw APIServerError.mfaEnrollmentNotFound
        }
        user.enrollments.removeAll { $0.id == factor }
        state.store(user)
    }
}

extension ImportRules {
    /// `accounts:batchCreate`: the hashing parameters, the realm, then each user.
    static func importUsers(
        _ state: inout EmulatorState, _ body: UploadAccountRequest, project: String, _ context: RuleContext
    ) throws -> [Refusal] {
        var options = Options()
        options.hashing = try PasswordRules.parameters(of: body)
        options.sanityCheck = body.sanityCheck ?? false
        options.allowOverwrite = body.allowOverwrite ?? false
        let realm = try TenantRules.adminRealm(state, project: project, tenant: body.tenantId)
        try TenantRules.checkAuthEnabled(state, realm)
        return try importUsers(&state, realm: realm, users: body.users, options, context)
    }

    static func batchDelete(_ state: inout EmulatorState, _ body: BatchDeleteAccountsRequest, project: String)
        throws -> [BatchDeleteError]
    {
        let realm = try TenantRules.adminRealm(state, project: project, tenant: body.tenantId)
        return try batchDelete(&state, realm: realm, localIds: body.localIds ?? [], force: body.force ?? false)
    }
}

extension InputRules {
    /// A page size: the default when absent, 1 to the maximum otherwise.
    static func pageSize(_ requested: Int32?, field: String) throws -> Int {
        guard let requested else { return EmulatorRules.defaultPageSize }
        guard (1...Int32(IdentityPlatformLimits.maximumPageSize)).contains(requested) else {
            throw APIServerError.invalidArgument("\(field) must be 1 to \(IdentityPlatformLimits.maximumPageSize)")
        }
        return Int(requested)
    }

    /// Page tokens are opaque to clients: the base64url form of the last id of the previous page.
    static func pageToken(after lastID: String) -> String { Data(lastID.utf8).base64URLEncoded }

    /// The id a page token names (`INVALID_PAGE_SELECTION` when it names none).
    static func cursor(fromPageToken token: String) throws -> String {
        guard !token.isEmpty, let data = Data(base64URLEncoded: token), let id = String(data: data, encoding: .utf8)
        else {
            throw APIServerError.invalidPageSelection
        }
        return id
    }
}
#endif
