#if Emulator
import Foundation
import IdentityToolkit

/// The admin API (`AdminService`, generated from
/// `Spec/identitytoolkit-admin.yaml`): accounts and session cookies here,
/// the project's and tenants' configuration in `AdminConfigRoutes.swift`.
/// Authorisation (`Bearer owner`) is checked before a route runs.
struct AdminRoutes: AdminService {
    let services: EmulatorServices

    private var tokens: SessionTokens { services.tokens }

    func lookupAccounts(targetProjectId: String, body: GetAccountInfoRequest, request: APIServerRequest)
        async throws -> GetAccountInfoResponse
    {
        let found = try await services.run { state, context in
            try AdminAccountRules.lookup(state, body, project: targetProjectId, context)
        }
        // No match is the absence of `users`, not an error.
        // Google-compatible mode shows password hashes in lookups, as Google's emulator does.
        let detail: AccountViews.Detail = services.googleCompatible ? .download : .lookup
        return GetAccountInfoResponse(
            users: found.isEmpty ? nil : found.map { AccountViews.userInfo($0, detail: detail) },
            kind: ResponseKind.getAccountInfo.rawValue)
    }

    func createAccount(targetProjectId: String, body: SignUpRequest, request: APIServerRequest) async throws
        -> SignUpResponse
    {
        try await Self.create(body, project: targetProjectId, viaSignUp: false, services: services)
    }

    /// An account an admin creates (`accounts`, or an admin's `accounts:signUp`: `viaSignUp`): no tokens.
    static func create(_ body: SignUpRequest, project: String, viaSignUp: Bool, services: EmulatorServices)
        async throws -> SignUpResponse
    {
        let user = try await services.run { state, context in
            try AdminAccountRules.create(&state, body, project: project, viaSignUp: viaSignUp, context)
        }
        return SignUpResponse(
            localId: user.localId, email: user.email, displayName: user.displayName,
            kind: ResponseKind.signupNewUser.rawValue)
    }

    func batchGetAccounts(
        targetProjectId: String, maxResults: Int32?, nextPageToken: String?, tenantId: String?,
        request: APIServerRequest
    ) async throws -> DownloadAccountResponse {
        let page = try await services.run { state, _ in
            try AdminAccountRules.list(
                state, project: targetProjectId, tenant: tenantId, maxResults: maxResults, nextPageToken: nextPageToken)
        }
        return DownloadAccountResponse(
            users: page.users.isEmpty ? nil : page.users.map { AccountViews.userInfo($0, detail: .download) },
            nextPageToken: page.lastUID.map(InputRules.pageToken), kind: ResponseKind.downloadAccount.rawValue)
    }

    func deleteAccount(targetProjectId: String, body: DeleteAccountRequest, request: APIServerRequest) async throws
        -> DeleteAccountResponse
    {
        try await services.run { state, _ in try AdminAccountRules.delete(&state, body, project: targetProjectId) }
        return DeleteAccountResponse(kind: ResponseKind.deleteAccount.rawValue)
    }

    /// A session cookie for a valid ID token of a user who still may sign
    /// in: the token's claims under the session issuer, for `validDuration`.
    func createSessionCookie(
        targetProjectId: String, body: CreateSessionCookieRequest,
        request: APIServerRequest
    ) async throws -> CreateSessionCookieResponse {
        let token = tokens.verify(body.idToken)
        let (claims, duration) = try await services.run { state, context in
            try AdminAccountRules.sessionCookie(state, body, project: targetProjectId, token: token, context)
        }
        let now = Int64(services.clock.now.timeIntervalSince1970)
        let cookie = try tokens.sessionCookie(
            from: body.idToken, claims: claims, issuedAt: now, expiresAt: now + duration)
        return CreateSessionCookieResponse(sessionCookie: cookie)
    }

    func updateAccount(targetProjectId: String, body: SetAccountInfoRequest, request: APIServerRequest) async throws
        -> SetAccountInfoResponse
    {
        let tokens = self.tokens
        let token = body.idToken.flatMap { $0.isEmpty ? nil : tokens.verify($0) }
        let outcome = try await services.run { state, context in
            try AdminAccountRules.update(&state, body, project: targetProjectId, token: token, context)
        }
        return try AccountsRoutes.response(outcome, tokens: tokens)
    }

    /// An out-of-band code made by an admin: for an account found by email
    /// (or by the ID token a client would send), returned as a link with
    /// `returnOobLink` instead of "sent".
    func sendAccountOobCode(targetProjectId: String, body: GetOobCodeRequest, request: APIServerRequest)
        async throws -> GetOobCodeResponse
    {
        try await AccountsRoutes.sendOobCode(body, project: targetProjectId, isAdmin: true, services: services)
    }

    // MARK: Tenant path forms: the same operations, the tenant from the path.

    /// `body` with the path's tenant; a body naming another tenant is refused.
    static func scoped<Body: TenantScopedBody>(_ body: Body, to pathTenant: String) throws -> Body {
        if let named = body.tenantId, !named.isEmpty, named != pathTenant { throw APIServerError.tenantIdMismatch }
        if let tokenTenant = SessionTokens.unverifiedTenant(of: body.idTokenForTenant), tokenTenant != pathTenant {
            throw APIServerError.tenantIdMismatch
        }
        var scoped = body
        scoped.tenantId = pathTenant
        return scoped
    }

    func createTenantAccount(
        targetProjectId: String, tenantId: String, body: SignUpRequest, request: APIServerRequest
    ) async throws -> SignUpResponse {
        try await createAccount(
            targetProjectId: targetProjectId, body: Self.scoped(body, to: tenantId), request: request)
    }

    func batchGetTenantAccounts(
        targetProjectId: String, tenantId: String, maxResults: Int32?, nextPageToken: String?,
        request: APIServerRequest
    ) async throws -> DownloadAccountResponse {
        try await batchGetAccounts(
            targetProjectId: targetProjectId, maxResults: maxResults, nextPageToken: nextPageToken,
            tenantId: tenantId, request: request)
    }

    func deleteTenantAccount(
        targetProjectId: String, tenantId: String, body: DeleteAccountRequest, request: APIServerRequest
    ) async throws -> DeleteAccountResponse {
        try await deleteAccount(
            targetProjectId: targetProjectId, body: Self.scoped(body, to: tenantId), request: request)
    }

    func lookupTenantAccounts(
        targetProjectId: String, tenantId: String, body: GetAccountInfoRequest, request: APIServerRequest
    ) async throws -> GetAccountInfoResponse {
        try await lookupAccounts(
            targetProjectId: targetProjectId, body: Self.scoped(body, to: tenantId), request: request)
    }

    func updateTenantAccount(
        targetProjectId: String, tenantId: String, body: SetAccountInfoRequest, request: APIServerRequest
    ) async throws -> SetAccountInfoResponse {
        try await updateAccount(
            targetProjectId: targetProjectId, body: Self.scoped(body, to: tenantId), request: request)
    }

    func sendTenantAccountOobCode(
        targetProjectId: String, tenantId: String, body: GetOobCodeRequest, request: APIServerRequest
    ) async throws -> GetOobCodeResponse {
        try await sendAccountOobCode(
            targetProjectId: targetProjectId, body: Self.scoped(body, to: tenantId), request: request)
    }

    func createTenantSessionCookie(
        targetProjectId: String, tenantId: String, body: CreateSessionCookieRequest,
        request: APIServerRequest
    ) async throws -> CreateSessionCookieResponse {
        try await createSessionCookie(
            targetProjectId: targetProjectId, body: Self.scoped(body, to: tenantId), request: request)
    }
}

/// A request body that names its tenant (`tenantId`), so that a tenant's
/// path form can set it from the path.
protocol TenantScopedBody {
    var tenantId: String? { get set }
    /// An ID token the body carries, whose tenant must be the path's.
    var idTokenForTenant: String? { get }
}

extension TenantScopedBody {
    var idTokenForTenant: String? { nil }
}

extension GetAccountInfoRequest {
    var idTokenForTenant: String? { idToken }
}

extension SetAccountInfoRequest {
    var idTokenForTenant: String? { idToken }
}

extension CreateSessionCookieRequest {
    var idTokenForTenant: String? { idToken }
}

extension SignUpRequest: TenantScopedBody {}
extension DeleteAccountRequest: TenantScopedBody {}
extension GetAccountInfoRequest: TenantScopedBody {}
extension SetAccountInfoRequest: TenantScopedBody {}
extension GetOobCodeRequest: TenantScopedBody {}
extension CreateSessionCookieRequest: TenantScopedBody {}
#endif
