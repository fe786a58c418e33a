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
        EmulatorTenant(
            answering: try await services.run { state, _ in
                try TenantRules.createTenant(&state, project: project, body)
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
        let page = try await services.run { state, _ in
            try TenantRules.listTenants(state, project: project, pageSize: pageSize, pageToken: pageToken)
        }
        // An empty page has no `tenants`, as production omits an empty list; Google's emulator answers [].
        let omitEmpty = page.tenants.isEmpty && !services.googleCompatible
        return EmulatorListTenantsResponse(
            tenants: omitEmpty ? nil : page.tenants.map(EmulatorTenant.init(answering:)),
            nextPageToken: page.lastID.map(InputRules.pageToken))
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
