#if Emulator
import Foundation
import IdentityToolkit
import IdentitySupport

/// The admin API's configuration side: the project's `config` and its
/// tenants, with update masks as Google documents them.
extension AdminRoutes {
    func getProjectConfig(project: String, request: APIServerRequest) async throws -> ProjectConfig {
        try await services.run { state, context in ProjectConfigRules.config(state, project: project, context) }
    }

    func updateProjectConfig(project: String, updateMask: String?, body: ProjectConfig, request: APIServerRequest)
        async throws -> ProjectConfig
    {
        try await services.run { state, context in
            try ProjectConfigRules.update(&state, project: project, mask: updateMask, body, context)
            return ProjectConfigRules.config(state, project: project, context)
        }
    }

    func createTenant(project: String, body: Tenant, request: APIServerRequest) async throws -> EmulatorTenant {
        try InputRules.checkDisplayName(body.displayName)
        try TenantRules.validate(body.mfaConfig, field: Tenant.FieldPath.mfaConfig)
        return EmulatorTenant(
            answering: try await services.run { state, _ in TenantRules.createTenant(&state, project: project, body)
            })
    }

    func getTenant(project: String, tenant: String, request: APIServerRequest) async throws -> EmulatorTenant {
        EmulatorTenant(
            answering: try await services.run { state, context in
                try TenantRules.tenantMadeOnFirstRead(&state, project: project, id: tenant, context)
            })
    }

    func listTenants(project: String, pageSize: Int32?, pageToken: String?, request: APIServerRequest) async throws
        -> EmulatorListTenantsResponse
    {
        let size = try Self.pageSize(pageSize, field: "pageSize")
        let after = try pageToken.map { try Self.cursor(fromPageToken: $0) }
        let page = try await services.run { state, _ in
            TenantRules.listTenants(state, project: project, pageSize: size, after: after)
        }
        // An empty page has no `tenants`, as production omits an empty list; Google's emulator answers [].
        let omitEmpty = page.tenants.isEmpty && !services.googleCompatible
        return EmulatorListTenantsResponse(
            tenants: omitEmpty ? nil : page.tenants.map(EmulatorTenant.init(answering:)),
            nextPageToken: page.lastID.map(Self.pageToken))
    }

    func deleteTenant(project: String, tenant: String, request: APIServerRequest) async throws -> Empty {
        try await services.run { state, _ in try TenantRules.deleteTenant(&state, project: project, id: tenant) }
        return Empty()
    }

    func updateTenant(project: String, tenant: String, updateMask: String?, body: Tenant, request: APIServerRequest)
        async throws -> EmulatorTenant
    {
        EmulatorTenant(
            answering: try await services.run { state, context in
                try TenantRules.updateTenant(
                    &state, project: project, id: tenant, mask: updateMask, body,
                    ignoringUnknownPaths: context.googleCompatible)
            })
    }

    // MARK: Pages

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

extension EmulatorTenant {
    /// A stored tenant as the emulator answers it: every field of
    /// production's `Tenant`, and its id (the last segment of `name`), as
    /// Google's emulator writes it.
    init(answering tenant: Tenant) {
        self.init(
            tenantId: tenant.name.flatMap { $0.split(separator: "/").last.map(String.init) }, name: tenant.name,
            displayName: tenant.displayName, allowPasswordSignup: tenant.allowPasswordSignup,
            enableEmailLinkSignin: tenant.enableEmailLinkSignin, enableAnonymousUser: tenant.enableAnonymousUser,
            disableAuth: tenant.disableAuth, mfaConfig: tenant.mfaConfig)
    }
}
#endif
