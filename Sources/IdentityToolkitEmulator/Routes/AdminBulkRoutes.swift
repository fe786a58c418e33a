#if Emulator
import Foundation
import IdentityToolkit

/// The admin API's bulk side: importing (`accounts:batchCreate`),
/// deleting (`accounts:batchDelete`) and querying (`accounts:query`)
/// accounts, in the project and tenant path forms.
extension AdminRoutes {
    /// The most accounts `accounts:query` returns, and its default.
    static let maximumQueryLimit = 500

    func importAccounts(targetProjectId: String, body: UploadAccountRequest, request: APIServerRequest) async throws
        -> UploadAccountResponse
    {
        var settings = ImportRules.Options()
        settings.hashing = try PasswordRules.parameters(of: body)
        settings.sanityCheck = body.sanityCheck ?? false
        settings.allowOverwrite = body.allowOverwrite ?? false
        let options = settings
        let refusals = try await services.run { state, context in
            let realm = try TenantRules.adminRealm(state, project: targetProjectId, tenant: body.tenantId)
            try TenantRules.checkAuthEnabled(state, realm)
            return try ImportRules.importUsers(&state, realm: realm, users: body.users, options, context)
        }
        // Production lists an empty `error` when every user was imported.
        return UploadAccountResponse(
            error: refusals.map { UploadAccountError(index: Int32($0.index), message: $0.message) },
            kind: ResponseKind.uploadAccount.rawValue)
    }

    func importTenantAccounts(
        targetProjectId: String, tenantId: String, body: UploadAccountRequest,
        request: APIServerRequest
    ) async throws -> UploadAccountResponse {
        try await importAccounts(
            targetProjectId: targetProjectId, body: Self.scoped(body, to: tenantId), request: request)
    }

    func batchDeleteAccounts(
        targetProjectId: String, body: BatchDeleteAccountsRequest,
        request: APIServerRequest
    ) async throws -> BatchDeleteAccountsResponse {
        let errors = try await services.run { state, _ in
            let realm = try TenantRules.adminRealm(state, project: targetProjectId, tenant: body.tenantId)
            return try ImportRules.batchDelete(
                &state, realm: realm, localIds: body.localIds ?? [], force: body.force ?? false)
        }
        return BatchDeleteAccountsResponse(errors: errors.isEmpty ? nil : errors)
    }

    func batchDeleteTenantAccounts(
        targetProjectId: String, tenantId: String, body: BatchDeleteAccountsRequest,
        request: APIServerRequest
    ) async throws -> BatchDeleteAccountsResponse {
        try await batchDeleteAccounts(
            targetProjectId: targetProjectId, body: Self.scoped(body, to: tenantId), request: request)
    }

    /// The number of accounts, and (unless `returnUserInfo` is false) a
    /// page of them in uid order: `limit` (1 to 500, default 500) after
    /// `offset`.
    func queryAccounts(targetProjectId: String, body: QueryUserInfoRequest, request: APIServerRequest) async throws
        -> QueryUserInfoResponse
    {
        let limit = Int(body.limit ?? Int64(Self.maximumQueryLimit))
        guard (1...Self.maximumQueryLimit).contains(limit) else {
            throw APIServerError.invalidArgument("limit must be 1 to \(Self.maximumQueryLimit)")
        }
        let offset = Int(body.offset ?? 0)
        guard offset >= 0 else { throw APIServerError.invalidArgument("offset must not be negative") }
        let (count, page) = try await services.run { state, _ in
            let realm = try TenantRules.adminRealm(state, project: targetProjectId, tenant: body.tenantId)
            try TenantRules.checkAuthEnabled(state, realm)
            let all = state.accounts(in: realm)
            return (
                all.count, body.returnUserInfo == false ? [] : Array(all.sortedByID.dropFirst(offset).prefix(limit))
            )
        }
        return QueryUserInfoResponse(
            recordsCount: Int64(count),
            userInfo: body.returnUserInfo == false ? nil : page.map { AccountViews.userInfo($0) })
    }

    func queryTenantAccounts(
        targetProjectId: String, tenantId: String, body: QueryUserInfoRequest,
        request: APIServerRequest
    ) async throws -> QueryUserInfoResponse {
        try await queryAccounts(
            targetProjectId: targetProjectId, body: Self.scoped(body, to: tenantId), request: request)
    }
}

extension UploadAccountRequest: TenantScopedBody {}
extension BatchDeleteAccountsRequest: TenantScopedBody {}
extension QueryUserInfoRequest: TenantScopedBody {}
#endif
