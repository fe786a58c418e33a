#if Emulator
import Foundation
import IdentityToolkit

/// The admin API's bulk side: importing (`accounts:batchCreate`),
/// deleting (`accounts:batchDelete`) and querying (`accounts:query`)
/// accounts, in the project and tenant path forms.
extension AdminRoutes {
    func importAccounts(targetProjectId: String, body: UploadAccountRequest, request: APIServerRequest) async throws
        -> UploadAccountResponse
    {
        let refusals = try await services.run { state, context in
            try ImportRules.importUsers(&state, body, project: targetProjectId, context)
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
            try ImportRules.batchDelete(&state, body, project: targetProjectId)
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
        let (count, page) = try await services.run { state, _ in
            try AdminAccountRules.query(state, body, project: targetProjectId)
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
