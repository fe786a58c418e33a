import Foundation
import IdentitySupport
import IdentityToolkit
import Logging

// The project's and the tenants' configuration: their values and their managers.

/// A project's configuration, as firebase-admin-node shows it.
public struct ProjectConfigInfo: Sendable, Hashable {
    /// The multi-factor settings (TOTP among them); nil when never set.
    public var multiFactorConfig: MultiFactorConfig?
}

/// The fields of a project configuration update.
public struct UpdateProjectConfigRequest: Sendable, Hashable {
    /// The multi-factor settings to apply; nil leaves them.
    public var multiFactorConfig: MultiFactorConfig?

    /// An update of the fields that are set.
    public init(multiFactorConfig: MultiFactorConfig? = nil) {
        self.multiFactorConfig = multiFactorConfig
    }
}

/// Reads and updates the project configuration.
public final class ProjectConfigManager: Sendable {
    let admin: IdentityAdmin

    init(admin: IdentityAdmin) {
        self.admin = admin
    }

    /// The project's configuration.
    public func getProjectConfig() async throws -> ProjectConfigInfo {
        let config = try await admin.client.getProjectConfig(project: admin.projectID)
        return ProjectConfigInfo(multiFactorConfig: config.mfa.map(MultiFactorConfig.init(wire:)))
    }

    /// Updates the fields set in `request` (validated first: no request is
    /// sent for an invalid config).
    public func updateProjectConfig(_ request: UpdateProjectConfigRequest) async throws -> ProjectConfigInfo {
        try request.multiFactorConfig?.validate()
        let mask = request.multiFactorConfig?.updateMask(prefix: ProjectConfig.FieldPath.mfa) ?? []
        // An empty mask would make the server replace every field: refuse it.
        guard !mask.isEmpty else {
            throw AdminValidationError(
                field: "UpdateProjectConfigRequest", message: "must set at least one field to update")
        }
        let config = try await admin.client.updateProjectConfig(
            project: admin.projectID, updateMask: mask.joined(separator: ","),
            body: ProjectConfig(mfa: request.multiFactorConfig?.wire))
        return ProjectConfigInfo(multiFactorConfig: config.mfa.map(MultiFactorConfig.init(wire:)))
    }
}

/// A tenant, as firebase-admin-node shows it.
public struct TenantInfo: Sendable, Hashable {
    /// The tenant id.
    public var tenantID: String
    /// The tenant's display name.
    public var displayName: String?
    /// The tenant's multi-factor settings; nil when never set.
    public var multiFactorConfig: MultiFactorConfig?
    /// Email sign-in (firebase-admin's `emailSignInConfig`); off unless enabled.
    public var emailSignInConfig: EmailSignInConfig
    /// Whether anonymous users may sign up (firebase-admin's `anonymousSignInEnabled`).
    public var anonymousSignInEnabled: Bool

    init(_ tenant: Tenant) {
        // Production names a tenant only by its resource name, as firebase-admin reads it.
        tenantID = String((tenant.name ?? "").split(separator: "/").last ?? "")
        displayName = tenant.displayName
        multiFactorConfig = tenant.mfaConfig.map(MultiFactorConfig.init(wire:))
        emailSignInConfig = EmailSignInConfig(
            enabled: tenant.allowPasswordSignup ?? false, passwordRequired: !(tenant.enableEmailLinkSignin ?? false))
        anonymousSignInEnabled = tenant.enableAnonymousUser ?? false
    }
}

/// How a tenant's users sign in with an email address (firebase-admin's
/// `EmailSignInProviderConfig`). Production's tenants start with it off.
public struct EmailSignInConfig: Sendable, Hashable {
    /// Whether users may sign up and in with an email address.
    public var enabled: Bool
    /// Whether they need a password (false: email links also work).
    public var passwordRequired: Bool

    /// Email sign-in on or off; with a password only unless `passwordRequired` is false.
    public init(enabled: Bool, passwordRequired: Bool = true) {
        self.enabled = enabled
        self.passwordRequired = passwordRequired
    }
}

/// The fields of a tenant creation or update.
public struct TenantRequest: Sendable, Hashable {
    /// The display name to set: 4 to 20 characters, a letter first, letters, digits and hyphens (production's rule).
    public var displayName: String?
    /// The multi-factor settings to set.
    public var multiFactorConfig: MultiFactorConfig?
    /// Email sign-in to set (a new tenant has it off).
    public var emailSignInConfig: EmailSignInConfig?
    /// Whether anonymous users may sign up (a new tenant: no).
    public var anonymousSignInEnabled: Bool?

    /// A request setting the fields that are not nil.
    public init(
        displayName: String? = nil, multiFactorConfig: MultiFactorConfig? = nil,
        emailSignInConfig: EmailSignInConfig? = nil,
        anonymousSignInEnabled: Bool? = nil
    ) {
        self.displayName = displayName
        self.multiFactorConfig = multiFactorConfig
        self.emailSignInConfig = emailSignInConfig
        self.anonymousSignInEnabled = anonymousSignInEnabled
    }

    var wire: Tenant {
        Tenant(
            displayName: displayName, allowPasswordSignup: emailSignInConfig?.enabled,
            enableEmailLinkSignin: emailSignInConfig.map { !$0.passwordRequired },
            enableAnonymousUser: anonymousSignInEnabled,
            mfaConfig: multiFactorConfig?.wire)
    }

    var updateMask: [String] {
        typealias Path = Tenant.FieldPath
        return (displayName == nil ? [] : [Path.displayName])
            + (emailSignInConfig == nil ? [] : [Path.allowPasswordSignup, Path.enableEmailLinkSignin])
            + (anonymousSignInEnabled == nil ? [] : [Path.enableAnonymousUser])
            + (multiFactorConfig?.updateMask(prefix: Path.mfaConfig) ?? [])
    }
}

/// One page of tenants.
public struct ListTenantsResult: Sendable, Hashable {
    /// The tenants of this page.
    public var tenants: [TenantInfo]
    /// The token of the next page; nil on the last page.
    public var pageToken: String?
}

/// Creates, lists, reads, updates and deletes tenants, and gives each one's
/// user API (``authForTenant(_:)``).
public final class TenantManager: Sendable {
    let admin: IdentityAdmin

    init(admin: IdentityAdmin) {
        self.admin = admin
    }

    /// The user API of tenant `tenantID`: token and cookie verification
    /// and user management scoped to it, sharing this admin's key caches.
    public func authForTenant(_ tenantID: String) -> TenantAwareAuth {
        TenantAwareAuth(admin: admin, tenantID: tenantID)
    }

    /// One page of the project's tenants, in creation order.
    /// - Parameters:
    ///   - pageSize: At most this many, 1 to 1000.
    ///   - pageToken: The previous page's ``ListTenantsResult/pageToken``; nil for the first page.
    public func listTenants(pageSize: Int = 1000, pageToken: String? = nil) async throws -> ListTenantsResult {
        let maximum = IdentityPlatformLimits.maximumPageSize
        guard (1...maximum).contains(pageSize) else {
            throw AdminValidationError(field: "pageSize", message: "must be 1 to \(maximum)")
        }
        let page = try await admin.client.listTenants(
            project: admin.projectID, pageSize: Int32(pageSize), pageToken: pageToken)
        return ListTenantsResult(
            tenants: (page.tenants ?? []).map(TenantInfo.init),
            pageToken: page.nextPageToken.flatMap { $0.isEmpty ? nil : $0 })
    }

    /// Deletes tenant `tenantID` and its users.
    public func deleteTenant(_ tenantID: String) async throws {
        _ = try await admin.client.deleteTenant(project: admin.projectID, tenant: tenantID)
    }

    /// The tenant `tenantID`.
    public func getTenant(_ tenantID: String) async throws -> TenantInfo {
        TenantInfo(try await admin.client.getTenant(project: admin.projectID, tenant: tenantID))
    }

    /// Creates a tenant (the server picks its id).
    public func createTenant(_ request: TenantRequest) async throws -> TenantInfo {
        try request.multiFactorConfig?.validate()
        return TenantInfo(try await admin.client.createTenant(project: admin.projectID, body: request.wire))
    }

    /// Updates the fields set in `request` of tenant `tenantID`.
    public func updateTenant(_ tenantID: String, _ request: TenantRequest) async throws -> TenantInfo {
        try request.multiFactorConfig?.validate()
        // Without a mask the server replaces every settable field (as Google
        // documents): an update that sets nothing is refused before sending.
        guard !request.updateMask.isEmpty else {
            throw AdminValidationError(field: "TenantRequest", message: "must set at least one field to update")
        }
        return TenantInfo(
            try await admin.client.updateTenant(
                project: admin.projectID, tenant: tenantID, updateMask: request.updateMask.joined(separator: ","),
                body: request.wire))
    }
}
