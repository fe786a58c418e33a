#if Emulator
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

    /// The realm of a request: the project and tenant it names, or its ID
    /// token's tenant (read unverified: the rule verifies the token where
    /// production checks it).
    static func requestRealm(
        _ state: EmulatorState, project: String? = nil, tenant: String?, idToken: String? = nil, isAdmin: Bool = false,
        _ context: RuleContext
    ) throws -> Realm {
        try requestRealm(
            state, project: project, tenant: tenant, tokenTenant: SessionTokens.unverifiedTenant(of: idToken),
            isAdmin: isAdmin, context)
    }

    static func requestRealm(
        _ state: EmulatorState, project: String?, tenant: String?, tokenTenant: String?, isAdmin: Bool,
        _ context: RuleContext
    ) throws -> Realm {
        if let project, !project.isEmpty, !isAdmin {
            throw APIServerError.insufficientPermission(
                "Only authenticated requests can specify target_project_id.")
        }
        let named = tenant?.isEmpty == false ? tenant : nil
        if let named, let tokenTenant, named != tokenTenant { throw APIServerError.tenantIdMismatch }
        return try adminRealm(
            state, project: project?.isEmpty == false ? project! : context.defaultProject,
            tenant: named ?? tokenTenant)
    }

    /// The realm of an admin call: a project, or one of its tenants (which must exist).
    static func adminRealm(_ state: EmulatorState, project: String, tenant: String?) throws -> Realm {
        guard let tenant, !tenant.isEmpty else { return Realm(project: project, tenant: nil) }
        let realm = Realm(project: project, tenant: tenant)
        guard state.exists(realm) else {
            throw APIServerError.tenantNotFound("no tenant '\(tenant)' in project \(project)")
        }
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

    /// Whether SMS second factors are enabled in a realm: its multi-factor
    /// state `ENABLED` or `MANDATORY` with `PHONE_SMS`. A project whose
    /// multi-factor config was never set allows them, as Google's emulator
    /// does (production: set the config to enable them).
    static func allowsSMSFactors(_ state: EmulatorState, in realm: Realm) -> Bool {
        guard let config = mfaConfig(state, of: realm) else { return realm.tenant == nil }
        return [MfaState.enabled, .mandatory].contains(config.state ?? .enabled)
            && config.enabledProviders?.contains(.phoneSms) == true
    }

    /// The switches a realm has (a project allows everything; a tenant what
    /// its config says, off unless set, as production's defaults).
    struct Switches {
        var disableAuth = false
        var allowPasswordSignup = true
        var enableAnonymousUser = true
        var enableEmailLinkSignin = true
    }

    static func switches(_ state: EmulatorState, of realm: Realm) -> Switches {
        guard let config = tenantConfig(state, of: realm) else { return Switches() }
        return Switches(
            disableAuth: config.disableAuth ?? false, allowPasswordSignup: config.allowPasswordSignup ?? false,
            enableAnonymousUser: config.enableAnonymousUser ?? false,
            enableEmailLinkSignin: config.enableEmailLinkSignin ?? false)
    }

    /// The settings of a realm's tenant, if it is one.
    static func tenantConfig(_ state: EmulatorState, of realm: Realm) -> Tenant? {
        realm.tenant.flatMap { state.projects[realm.project]?.tenants[$0]?.config }
    }

    /// Refuses every end-user call to a tenant whose `disableAuth` is set (`PROJECT_DISABLED`).
    static func checkAuthEnabled(_ state: EmulatorState, _ realm: Realm) throws {
        if switches(state, of: realm).disableAuth { throw APIServerError.projectDisabled }
    }

    /// Refuses SMS multi-factor calls where SMS factors are off
    /// (`OPERATION_NOT_ALLOWED : SMS based MFA not enabled.`).
    static func checkSMSFactorsEnabled(_ state: EmulatorState, _ realm: Realm) throws {
        guard allowsSMSFactors(state, in: realm) else {
            throw APIServerError.operationNotAllowed("SMS based MFA not enabled.")
        }
    }

    // MARK: Tenants

    /// Creates a tenant with an id made from its display name.
    static func createTenant(_ state: inout EmulatorState, project: String, _ tenant: Tenant) throws -> Tenant {
        try InputRules.checkDisplayName(tenant.displayName)
        try validate(tenant.mfaConfig, field: Tenant.FieldPath.mfaConfig)
        let base = (tenant.displayName ?? "tenant").lowercased().filter { $0.isLetter || $0.isNumber || $0 == "-" }
            .prefix(20)
        var id: String
        repeat {
            id =
                "\(base.isEmpty ? "tenant" : String(base))-\(Data.randomToken(bytes: 4).lowercased().filter { $0.isLetter || $0.isNumber }.prefix(5))"
        } while state.projects[project]?.tenants[id] != nil
        var stored = withDefaults(tenant)
        stored.name = "projects/\(project)/tenants/\(id)"
        state.projects[project, default: ProjectState()].tenants[id] = TenantState(config: stored)
        state.projects[project]?.tenantOrder.append(id)
        return stored
    }

    /// `tenant` with production's defaults for what it leaves unset: every
    /// switch off, multi-factor authentication disabled.
    static func withDefaults(_ tenant: Tenant) -> Tenant {
        var result = tenant
        result.allowPasswordSignup = tenant.allowPasswordSignup ?? false
        result.disableAuth = tenant.disableAuth ?? false
        result.enableAnonymousUser = tenant.enableAnonymousUser ?? false
        result.enableEmailLinkSignin = tenant.enableEmailLinkSignin ?? false
        var mfa = tenant.mfaConfig ?? MultiFactorAuthConfig()
        if mfa.state == nil { mfa.state = .disabled }
        if mfa.enabledProviders == nil { mfa.enabledProviders = [] }
        result.mfaConfig = mfa
        return result
    }

    /// The tenant `id`, made on its first read in Google-compatible mode
    /// with Google's emulator's defaults (every sign-in method and SMS
    /// second factors on), as its suites expect.
    static func tenantMadeOnFirstRead(
        _ state: inout EmulatorState, project: String, id: String, _ context: RuleContext
    ) throws -> Tenant {
        if context.googleCompatible, state.projects[project]?.tenants[id] == nil {
            guard InputRules.isValidTenantID(id) else {
                throw APIServerError.invalidArgument("a tenant id must be 1 to 63 letters, digits or hyphens")
            }
            let made = Tenant(
                name: "projects/\(project)/tenants/\(id)", allowPasswordSignup: true, enableEmailLinkSignin: true,
                enableAnonymousUser: true, disableAuth: false,
                mfaConfig: MultiFactorAuthConfig(state: .enabled, enabledProviders: [.phoneSms]))
            state.projects[project, default: ProjectState()].tenants[id] = TenantState(config: made)
            state.projects[project]?.tenantOrder.append(id)
        }
        return try tenant(state, project: project, id: id)
    }

    /// The tenant `id` (`TENANT_NOT_FOUND`, 404, for one the project lacks).
    static func tenant(_ state: EmulatorState, project: String, id: String) throws -> Tenant {
        guard let tenant = state.projects[project]?.tenants[id] else {
            throw APIServerError.tenantNotFound("no tenant '\(id)' in project \(project)").with(
                status: 404, reason: "notFound")
        }
        return tenant.config
    }

    /// One page of a project's tenants in creation order, after the tenant
    /// `after`; the page's last id when more follow.
    static func listTenants(_ state: EmulatorState, project: String, pageSize requested: Int32?, pageToken: String?)
        throws -> (tenants: [Tenant], lastID: String?)
    {
        let pageSize = try InputRules.pageSize(requested, field: "pageSize")
        let after = try pageToken.map { try InputRules.cursor(fromPageToken: $0) }
        // In id order; a full page names its last id, as Google's emulator does, even when none follow.
        let order = (state.projects[project]?.tenantOrder ?? []).sorted()
        let ids = order.filter { after == nil || $0 > after! }.prefix(pageSize)
        let tenants = ids.compactMap { state.projects[project]?.tenants[$0]?.config }
        return (tenants, ids.count == pageSize ? ids.last : nil)
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
    static func updateTenant(
        _ state: inout EmulatorState, project: String, id: String, mask: String?, _ update: Tenant,
        ignoringUnknownPaths: Bool = false
    ) throws -> Tenant {
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
        var settable = Dictionary(uniqueKeysWithValues: scalarFields.map { ($0.path, [String]()) })
        settable[Path.mfaConfig] = [
            MultiFactorAuthConfig.FieldPath.state, MultiFactorAuthConfig.FieldPath.enabledProviders,
            MultiFactorAuthConfig.FieldPath.providerConfigs,
        ]
        let paths =
            try InputRules.updateMaskPaths(mask, settable: settable, ignoringUnknown: ignoringUnknownPaths)
            ?? Array(settable.keys)
        for field in scalarFields where paths.contains(field.path) { field.apply(&current) }
        current.mfaConfig = try merge(current.mfaConfig, update.mfaConfig, paths: paths, prefix: Path.mfaConfig)
        // Without a mask every field is replaced; what the body leaves out takes production's default.
        if mask?.isEmpty != false { current = withDefaults(current) }
        state.projects[project]?.tenants[id]?.config = current
        return current
    }

    /// Applies the masked MFA fields of `new` onto `current`.
    static func merge(
        _ current: MultiFactorAuthConfig?, _ new: MultiFactorAuthConfig?, paths: [String], prefix: String
    ) throws -> MultiFactorAuthConfig? {
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
            if let intervals = provider.totpProviderConfig?.adjacentIntervals,
                !IdentityPlatformLimits.totpAdjacentIntervals.contains(Int(intervals))
            {
                throw APIServerError.invalidArgument(
                    "\(field).providerConfigs[\(index)].totpProviderConfig.adjacentIntervals must be 0 to 10, not \(intervals)"
                )
            }
            if provider.state == .enabled && provider.totpProviderConfig == nil {
                throw APIServerError.invalidArgument(
                    "\(field).providerConfigs[\(index)] is ENABLED without a totpProviderConfig")
            }
        }
    }
}
#endif
