import Foundation
import IdentityToolkit

/// The admin API (`AdminService`, generated from
/// `Spec/identitytoolkit-admin.yaml`): accounts and session cookies here,
/// the project's and tenants' configuration in `AdminConfigRoutes.swift`.
/// Authorisation (`Bearer owner`) is checked before a route runs.
struct AdminRoutes: AdminService {
    let services: EmulatorServices

    private var tokens: SessionTokens { services.tokens }

    func lookupAccounts(targetProjectId: String, body: GetAccountInfoRequest, request: APIServerRequest) async throws -> GetAccountInfoResponse {
        let found = try await services.run { state, _ in
            let realm = try TenantRules.adminRealm(state, project: targetProjectId, tenant: body.tenantId)
            return AdminAccountRules.lookup(state, realm: realm, localIds: body.localId ?? [], emails: body.email ?? [])
        }
        // No match is the absence of `users`, not an error.
        return GetAccountInfoResponse(users: found.isEmpty ? nil : found.map { AccountViews.userInfo($0) }, kind: ResponseKind.getAccountInfo.rawValue)
    }

    func createAccount(targetProjectId: String, body: SignUpRequest, request: APIServerRequest) async throws -> SignUpResponse {
        let account = AdminAccountRules.NewAccount(localId: body.localId, email: body.email, password: body.password, displayName: body.displayName,
                                                   emailVerified: body.emailVerified, disabled: body.disabled, photoUrl: body.photoUrl,
                                                   phoneNumber: body.phoneNumber, factors: body.mfaInfo ?? [])
        let user = try await services.run { state, context in
            let realm = try TenantRules.adminRealm(state, project: targetProjectId, tenant: body.tenantId)
            return try AdminAccountRules.create(&state, realm: realm, account, context)
        }
        return SignUpResponse(localId: user.localId, email: user.email, displayName: user.displayName, kind: ResponseKind.signupNewUser.rawValue)
    }

    func batchGetAccounts(targetProjectId: String, maxResults: Int32?, nextPageToken: String?, tenantId: String?,
                          request: APIServerRequest) async throws -> DownloadAccountResponse {
        let pageSize = try Self.pageSize(maxResults, field: "maxResults")
        let after = try nextPageToken.map { try Self.cursor(fromPageToken: $0) }
        let page = try await services.run { state, _ in
            let realm = try TenantRules.adminRealm(state, project: targetProjectId, tenant: tenantId)
            return AdminAccountRules.list(state, realm: realm, pageSize: pageSize, after: after)
        }
        return DownloadAccountResponse(users: page.users.isEmpty ? nil : page.users.map { AccountViews.userInfo($0, detail: .download) },
                                       nextPageToken: page.lastUID.map(Self.pageToken), kind: ResponseKind.downloadAccount.rawValue)
    }

    func deleteAccount(targetProjectId: String, body: DeleteAccountRequest, request: APIServerRequest) async throws -> DeleteAccountResponse {
        guard let localId = body.localId, !localId.isEmpty else { throw APIServerError.missingLocalId }
        try await services.run { state, _ in
            let realm = try TenantRules.adminRealm(state, project: targetProjectId, tenant: body.tenantId)
            try AdminAccountRules.delete(&state, realm: realm, localId: localId)
        }
        return DeleteAccountResponse(kind: ResponseKind.deleteAccount.rawValue)
    }

    /// A session cookie for a valid ID token of a user who still may sign
    /// in: the token's claims under the session issuer, for `validDuration`.
    func createSessionCookie(targetProjectId: String, body: CreateSessionCookieRequest,
                             request: APIServerRequest) async throws -> CreateSessionCookieResponse {
        // Two weeks when the request names no duration, as Google's emulator.
        let duration = body.validDuration ?? IdentityPlatformLimits.sessionCookieSeconds.upperBound
        guard IdentityPlatformLimits.sessionCookieSeconds.contains(duration) else {
            throw APIServerError.invalidDuration("validDuration must be 300 to 1209600 seconds")
        }
        let claims = try tokens.claims(of: body.idToken)
        guard claims.aud == targetProjectId else { throw APIServerError.invalidIdToken("the token is for another project") }
        let user = try await services.run { state, context in try AccountRules.user(state, for: claims, requestTenant: body.tenantId, context) }
        // A token issued before the account's sessions were revoked.
        guard claims.iat >= Int64(user.validSince.timeIntervalSince1970.rounded(.down)) else { throw APIServerError.tokenExpired }
        let now = Int64(services.clock.now.timeIntervalSince1970)
        let cookie = try tokens.sessionCookie(from: body.idToken, claims: claims, issuedAt: now, expiresAt: now + duration)
        return CreateSessionCookieResponse(sessionCookie: cookie)
    }

    func updateAccount(targetProjectId: String, body: SetAccountInfoRequest, request: APIServerRequest) async throws -> SetAccountInfoResponse {
        guard let localId = body.localId, !localId.isEmpty else { throw APIServerError.missingLocalId }
        let update = AdminAccountRules.Update(
            disable: body.disableUser, validSince: body.validSince, emailVerified: body.emailVerified,
            keepFactors: body.mfa.map { mfa in (mfa.enrollments ?? []).map { (id: $0.mfaEnrollmentId, isTOTP: $0.totpInfo != nil) } },
            customAttributes: body.customAttributes)
        let user = try await services.run { state, context in
            let realm = try TenantRules.adminRealm(state, project: targetProjectId, tenant: body.tenantId)
            // The profile first: a new address resets `emailVerified`, which
            // the same request may then set.
            if body.email != nil || body.password != nil || body.displayName != nil {
                _ = try AccountRules.updateProfile(&state, localId, realm: realm, email: body.email, password: body.password,
                                                   displayName: body.displayName, byAdmin: true, context)
            }
            return try AdminAccountRules.update(&state, realm: realm, localId: localId, update)
        }
        return SetAccountInfoResponse(localId: user.localId, email: user.email, emailVerified: user.emailVerified, displayName: user.displayName,
                                      kind: ResponseKind.setAccountInfo.rawValue)
    }

    /// An out-of-band code made by an admin: for an account found by email
    /// (or by the ID token a client would send), returned as a link with
    /// `returnOobLink` instead of "sent".
    func sendAccountOobCode(targetProjectId: String, body: GetOobCodeRequest, request: APIServerRequest) async throws -> GetOobCodeResponse {
        let byToken = body.email == nil || body.idToken != nil
        let tokens = self.tokens
        let code = try await services.run { state, context in
            let realm = try TenantRules.adminRealm(state, project: targetProjectId, tenant: body.tenantId)
            if let email = body.email, !byToken {
                switch body.requestType {
                case .verifyEmail:
                    // An unknown address is USER_NOT_FOUND here (EMAIL_NOT_FOUND for a reset), as production answers.
                    guard state.accounts(in: realm).user(email: email) != nil else { throw APIServerError.userNotFound }
                    return try OutOfBandRules.create(&state, requestType: body.requestType, uid: nil, email: email, realm: realm)
                case .passwordReset, .emailSignin:
                    return try OutOfBandRules.create(&state, requestType: body.requestType, uid: nil, email: email, realm: realm)
                default:
                    throw APIServerError.invalidArgument("unsupported requestType \(body.requestType.rawValue)")
                }
            }
            guard body.requestType == .verifyEmail else { throw APIServerError.missingEmail }
            let user = try AccountRules.user(state, for: try tokens.claims(of: body.idToken), requestTenant: body.tenantId, context)
            return try OutOfBandRules.create(&state, requestType: body.requestType, uid: user.localId, email: nil, realm: user.realm)
        }
        let returned = body.returnOobLink == true
        return GetOobCodeResponse(email: code.email, oobCode: returned ? code.code : nil, oobLink: returned ? services.links.link(for: code) : nil,
                                  kind: ResponseKind.getOobConfirmationCode.rawValue)
    }

    // MARK: Tenant path forms: the same operations, the tenant from the path.

    /// `body` with the path's tenant; a body naming another tenant is refused.
    static func scoped<Body: TenantScopedBody>(_ body: Body, to pathTenant: String) throws -> Body {
        if let named = body.tenantId, !named.isEmpty, named != pathTenant { throw APIServerError.tenantIdMismatch }
        var scoped = body
        scoped.tenantId = pathTenant
        return scoped
    }

    func createTenantAccount(targetProjectId: String, tenantId: String, body: SignUpRequest, request: APIServerRequest) async throws -> SignUpResponse {
        try await createAccount(targetProjectId: targetProjectId, body: Self.scoped(body, to: tenantId), request: request)
    }

    func batchGetTenantAccounts(targetProjectId: String, tenantId: String, maxResults: Int32?, nextPageToken: String?,
                                request: APIServerRequest) async throws -> DownloadAccountResponse {
        try await batchGetAccounts(targetProjectId: targetProjectId, maxResults: maxResults, nextPageToken: nextPageToken, tenantId: tenantId, request: request)
    }

    func deleteTenantAccount(targetProjectId: String, tenantId: String, body: DeleteAccountRequest, request: APIServerRequest) async throws -> DeleteAccountResponse {
        try await deleteAccount(targetProjectId: targetProjectId, body: Self.scoped(body, to: tenantId), request: request)
    }

    func lookupTenantAccounts(targetProjectId: String, tenantId: String, body: GetAccountInfoRequest, request: APIServerRequest) async throws -> GetAccountInfoResponse {
        try await lookupAccounts(targetProjectId: targetProjectId, body: Self.scoped(body, to: tenantId), request: request)
    }

    func updateTenantAccount(targetProjectId: String, tenantId: String, body: SetAccountInfoRequest, request: APIServerRequest) async throws -> SetAccountInfoResponse {
        try await updateAccount(targetProjectId: targetProjectId, body: Self.scoped(body, to: tenantId), request: request)
    }

    func sendTenantAccountOobCode(targetProjectId: String, tenantId: String, body: GetOobCodeRequest, request: APIServerRequest) async throws -> GetOobCodeResponse {
        try await sendAccountOobCode(targetProjectId: targetProjectId, body: Self.scoped(body, to: tenantId), request: request)
    }

    func createTenantSessionCookie(targetProjectId: String, tenantId: String, body: CreateSessionCookieRequest,
                                   request: APIServerRequest) async throws -> CreateSessionCookieResponse {
        try await createSessionCookie(targetProjectId: targetProjectId, body: Self.scoped(body, to: tenantId), request: request)
    }
}

/// A request body that names its tenant (`tenantId`), so that a tenant's
/// path form can set it from the path.
protocol TenantScopedBody {
    var tenantId: String? { get set }
}

extension SignUpRequest: TenantScopedBody {}
extension DeleteAccountRequest: TenantScopedBody {}
extension GetAccountInfoRequest: TenantScopedBody {}
extension SetAccountInfoRequest: TenantScopedBody {}
extension GetOobCodeRequest: TenantScopedBody {}
extension CreateSessionCookieRequest: TenantScopedBody {}
