#if Emulator
import Foundation
import IdentityToolkit

/// The legacy v3 relying-party operations that are not plain aliases of
/// v1 ones (`LegacyRelyingPartyService`, from `Spec/identitytoolkit-v3.yaml`):
/// the v1 admin operations with the project named in the body.
struct LegacyRelyingPartyRoutes: LegacyRelyingPartyService {
    let admin: AdminRoutes

    /// The body's project: production refuses a request without one.
    private static func project(_ targetProjectId: String?) throws -> String {
        guard let project = targetProjectId, !project.isEmpty else { throw APIServerError.insufficientPermission }
        return project
    }

    func legacyDownloadAccount(_ body: LegacyDownloadAccountRequest, request: APIServerRequest) async throws
        -> DownloadAccountResponse
    {
        try await admin.batchGetAccounts(
            targetProjectId: Self.project(body.targetProjectId), maxResults: body.maxResults,
            nextPageToken: body.nextPageToken, tenantId: body.tenantId, request: request)
    }

    /// The body is v1's `UploadAccountRequest` with the project added
    /// (`LegacyTargetProject`), as Google's emulator reads it.
    func legacyUploadAccount(_ body: UploadAccountRequest, request: APIServerRequest) async throws
        -> UploadAccountResponse
    {
        let target = try request.decodeBody(LegacyTargetProject.self)
        return try await admin.importAccounts(
            targetProjectId: Self.project(target.targetProjectId), body: body, request: request)
    }
}
#endif
