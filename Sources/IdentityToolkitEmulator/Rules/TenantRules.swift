import Foundation
import IdentityToolkit

/// Projects, tenants and their configuration: which realm a request acts
/// on, what each realm allows, and the admin API's tenant and config
/// operations with their update masks.
enum TenantRules {
    // MARK: Realms

    /// The realm of an API-key request: the default project, or one of its
    /// tenants (`TENANT_NOT_FOUND` for one it lacks).
    static func realm(_ state: EmulatorState, tenant: String?, _ context: RuleContext) throws -> Realm {
        try adminRealm(state, project: context.defaultProject, tenant: tenant)
    }

    /// The realm of an admin call: a project, or one of its tenants (which must exist).
    static func adminRealm(_ state: EmulatorState, project: String, tenant: String?) throws -> Realm {
        guard let tenant, !tenant.isEmpty else { return Realm(project: project, tenant: nil) }
        let realm = Realm(project: project, tenant: tenant)
        guard state.exists(realm) else { throw APIServerError.tenantNotFound("no tenant '\(tenant)' in project \(project)") }
        return realm
    }

    /// The multi-factor settings of a realm.
    static func mfaConfig(_ state: EmulatorState, of realm: Realm) -> MultiFactorAuthConfig? {
        if let tenant = realm.tenant { return state.projects[realm.project]?.tenants[tenant]?.config.mfaConfig }
        return state.projects[realm.project]?.mfa
    }

    /// The TOTP window of a realm, or nil when TOTP is not enabled there.
    static func totpWindow(_ state: EmulatorState, of realm: Realm) -> Int? {
        for provider in mfaConfig(state, of: realm)?.providerConfigs ?? [] where provider.state == .enabled {
            if let totp = provider.totpProviderConfig {
                return Int(totp.adjacentIntervals ?? Int32(IdentityPlatformLimits.defaultTOTPAdjacentIntervals))
            }
        }
        return nil
    }

    /// Whether SMS second factors are enabled in a realm.
    static func allowsSMSFactors(_ state: EmulatorState, in realm: Realm) -> Bool {
        mfaConfig(state, of: realm)?.enabledProviders?.contains(.phoneSms) == true
    }

    /// The settings of a realm's tenant, if it is one.
    static func tenantConfig(_ state: EmulatorState, of realm: Realm) -> Tenant? {
        realm.tenant.flatMap { state.projects[realm.project]?.tenants[$0]?.config }
    }

    /// Refuses sign-ins to a tenant whose `disableAuth` is set, as Google's emulator does.
    static func checkAuthEnabled(_ state: EmulatorState, _ realm: Realm) throws {
        if let config = tenantConfig(state, of: realm), config.disableAuth == true {
            throw APIServerError.projectDisabled("authentication is disabled for tenant '\(realm.tenant ?? "")'")
        }
    }

    // MARK: Tenants

    /// Creates a tenant with an id made from its display name.
    static func createTenant(_ state: inout EmulatorState, project: String, _ tenant: Tenant) -> Tenant {
        let base = (tenant.displayName ?? "tenant").lowercased().filter { $0.isLetter || $0.isNumber || $0 == "-" }.prefix(20)
        var id: String
        repeat {
            id = "\(base.isEmpty ? "tenant" : String(base))-\(Data.randomToken(bytes: 4).lowercased().filter { $0.isLetter || $0.isNumber }.prefix(5))"
        } while state.projects[project]?.tenants[id] != nil
        var stored = tenant
        stored.name = "projects/\(project)/tenants/\(id)"
        state.projects[project, default: ProjectState()].tenants[id] = TenantState(config: stored)
        state.projects[project]?.tenantOrder.append(id)
        return stored
    }

    /// The tenant `id` (`TENANT_NOT_FOUND`, 404, for one the project lacks).
    static func tenant(_ state: EmulatorState, project: String, id: String) throws -> Tenant {
        guard let tenant = state.projects[project]?.tenants[id] else {
            throw APIServerError.tenantNotFound("no tenant '\(id)' in project \(project)").with(status: 404, reason: "notFound")
        }
        return tenant.config
    }

    /// One page of a project's tenants in creation order, after the tenant
    /// `after`; the page's last id when more follow.
    static func listTenants(_ state: EmulatorState, project: String, pageSize: Int, after: String?) -> (tenants: [Tenant], lastID: String?) {
        let order = state.projects[project]?.tenantOrder ?? []
        let start = after.flatMap { order.firstIndex(of: $0).map { $0 + 1 } } ?? 0
        let ids = order[min(start, order.count)...].prefix(pageSize)
        let tenants = ids.compactMap { state.projects[project]?.tenants[$0]?.config }
        return (tenants, start + ids.count < order.count ? ids.last : nil)
    }

    /// Deletes a tenant with its accounts, sessions and codes.
    static func deleteTenant(_ state: inout EmulatorState, project: String, id: String) throws {
        _ = try tenant(state, project: project, id: id)
        SessionRules.forgetRealm(&state, Realm(project: project, tenant: id))
        state.projects[project]?.tenants[id] = nil
        state.projects[project]?.tenantOrder.removeAll { $0 == id }
    }

    /// Applies the masked fields of `update` to tenant `id`. Without a mask
    /// every settable field is replaced, as Google documents for tenants.
    static func updateTenant(_ state: inout EmulatorState, project: String, id: String, mask: String?, _ update: Tenant) throws -> Tenant {
        try InputRules.checkDisplayName(update.displayName)
        var current = try tenant(state, project: project, id: id)
        typealias Path = Tenant.FieldPath
        // Each settable scalar field: its mask path, and how to copy it.
        let scalarFields: [(path: String, apply: (inout Tenant) -> Void)] = [
            (Path.displayName, { $0.displayName = update.displayName }),
            (Path.allowPasswordSignup, { $0.allowPasswordSignup = update.allowPasswordSignup }),
            (Path.enableEmailLinkSignin, { $0.enableEmailLinkSignin = update.enableEmailLinkSignin }),
            (Path.enableAnonymousUser, { $0.enableAnonymousUser = update.enableAnonymousUser }),
            (Path.disableAuth, { $0.disableAuth = update.disableAuth }),
        ]
        let settable = scalarFields.map(\.path) + [Path.mfaConfig]
        let paths = try maskPaths(mask, allowed: settable, default: settable)
        for field in scalarFields where paths.contains(field.path) { field.apply(&current) }
        current.mfaConfig = try merge(current.mfaConfig, update.mfaConfig, paths: paths, prefix: Path.mfaConfig)
        state.projects[project]?.tenants[id]?.config = current
        return current
    }

    // MARK: Project configuration

    /// Applies the masked MFA fields of `update` to the project's configuration.
    static func updateProjectMFA(_ state: inout EmulatorState, project: String, mask: String?, _ update: MultiFactorAuthConfig?) throws {
        let mfaPath = ProjectConfig.FieldPath.mfa
        let paths = try maskPaths(mask, allowed: [mfaPath], default: update == nil ? [] : [mfaPath])
        let current = state.projects[project]?.mfa
        state.projects[project, default: ProjectState()].mfa = try merge(current, update, paths: paths, prefix: mfaPath)
    }

    /// The field paths of an update mask; each must be a known field or one
    /// of the MFA config's fields (`mfa.state`, `mfa.enabledProviders`, `mfa.providerConfigs`).
    static func maskPaths(_ mask: String?, allowed: [String], default: [String]) throws -> [String] {
        guard let mask, !mask.isEmpty else { return `default` }
        let mfaFields = [MultiFactorAuthConfig.FieldPath.state, MultiFactorAuthConfig.FieldPath.enabledProviders,
                         MultiFactorAuthConfig.FieldPath.providerConfigs]
        let mfaParents = [ProjectConfig.FieldPath.mfa, Tenant.FieldPath.mfaConfig]
        let paths = mask.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        for path in paths {
            let parts = path.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard let head = parts.first, !head.isEmpty, parts.allSatisfy({ !$0.isEmpty }) else {
                throw APIServerError.invalidArgument("empty field path in update mask: '\(path)'")
            }
            let known = allowed.contains(head) && (parts.count == 1 || (mfaParents.contains(head) && mfaFields.contains(parts[1])))
            guard known else { throw APIServerError.invalidArgument("unknown field in update mask: \(path)") }
        }
        return paths
    }

    /// Applies the masked MFA fields of `new` onto `current`.
    static func merge(_ current: MultiFactorAuthConfig?, _ new: MultiFactorAuthConfig?, paths: [String], prefix: String) throws -> MultiFactorAuthConfig? {
        let relevant = paths.filter { $0 == prefix || $0.hasPrefix(prefix + ".") }
        guard !relevant.isEmpty else { return current }
        try validate(new, field: prefix)
        if relevant.contains(prefix) { return new }
        var merged = current ?? MultiFactorAuthConfig()
        typealias Path = MultiFactorAuthConfig.FieldPath
        for path in relevant {
            switch String(path.dropFirst(prefix.count + 1)) {
            case Path.state: merged.state = new?.state
            case Path.enabledProviders: merged.enabledProviders = new?.enabledProviders
            case Path.providerConfigs: merged.providerConfigs = new?.providerConfigs
            default: break
            }
        }
        return merged
    }

    /// A multi-factor config as production checks it.
    static func validate(_ config: MultiFactorAuthConfig?, field: String) throws {
        for (index, provider) in (config?.providerConfigs ?? []).enumerated() {
            if let intervals = provider.totpProviderConfig?.adjacentIntervals, !IdentityPlatformLimits.totpAdjacentIntervals.contains(Int(intervals)) {
                throw APIServerError.invalidArgument("\(field).providerConfigs[\(index)].totpProviderConfig.adjacentIntervals must be 0 to 10, not \(intervals)")
            }
            if provider.state == .enabled && provider.totpProviderConfig == nil {
                throw APIServerError.invalidArgument("\(field).providerConfigs[\(index)] is ENABLED without a totpProviderConfig")
            }
        }
    }
}
