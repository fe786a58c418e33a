public import Foundation
public import IdentityToolkit

/// Admin access to a project's (and its tenants') multi-factor settings,
/// the Swift counterpart of firebase-admin-node's `projectConfigManager()`
/// and `tenantManager()`.
public final class IdentityAdmin: Sendable {
    /// The project this instance manages.
    public let projectID: String
    let client: AdminClient
    /// Verifies the project's ID tokens; its key cache is shared by the
    /// tenant-scoped verifiers.
    public let idTokenVerifier: IDTokenVerifier

    /// - Parameters:
    ///   - credential: Supplies access tokens (`cloud-platform` scope).
    ///   - configuration: Transport, emulator host (`FIREBASE_AUTH_EMULATOR_HOST` by default), timeouts, logging.
    public init(projectID: String, credential: any AdminCredential, configuration: ClientConfiguration = ClientConfiguration()) {
        self.projectID = projectID
        self.client = AdminClient(accessToken: { try await credential.accessToken() }, configuration: configuration)
        // The key route's emulator form when the configuration names an emulator.
        self.idTokenVerifier = IDTokenVerifier(projectID: projectID, keys: GooglePublicKeysClient(configuration: configuration))
    }

    /// Verifies an ID token a client sent (every check Google documents; see
    /// ``IDTokenVerifier``) and returns its claims, the second factor included.
    ///
    /// ```swift
    /// let token = try await admin.verifyIDToken(idToken, checkRevoked: true)
    /// try token.requireSecondFactor()   // "totp" when the sign-in used TOTP
    /// ```
    /// - Parameters:
    ///   - idToken: The token, as the client sent it.
    ///   - checkRevoked: Also look the account up: refuse a disabled or
    ///     deleted user, and a sign-in older than the account's `validSince`
    ///     (``revokeRefreshTokens(uid:tenantID:)``). Compares `auth_time`, as
    ///     firebase-admin does, so a token refreshed after the revocation is refused too.
    public func verifyIDToken(_ idToken: String, checkRevoked: Bool = false) async throws(TokenVerificationError) -> DecodedIDToken {
        let token = try await idTokenVerifier.verify(idToken)
        if checkRevoked { try await checkNotRevoked(token) }
        return token
    }

    /// The account behind a verified `token` is enabled, exists, and was not
    /// revoked after its sign-in: the `checkRevoked` half of
    /// ``verifyIDToken(_:checkRevoked:)``, for a token a tenant-scoped
    /// verifier (``IDTokenVerifier/forTenant(_:)``) accepted.
    public func checkNotRevoked(_ token: DecodedIDToken) async throws(TokenVerificationError) {
        let users: [UserInfo]
        do {
            users = try await client.lookupAccounts(targetProjectId: projectID, body: GetAccountInfoRequest(localId: [token.uid], tenantId: token.tenant)).users ?? []
        } catch {
            throw .revocationCheckFailed(reason: "\(error)")
        }
        guard let user = users.first(where: { $0.localId == token.uid }) else { throw .userNotFound }
        if user.disabled == true { throw .userDisabled }
        if let validSince = user.validSince, token.authTime < Date(timeIntervalSince1970: TimeInterval(validSince)) { throw .revoked }
    }

    /// Ends every session of a user: refresh tokens stop working, and ID
    /// tokens of earlier sign-ins fail `verifyIDToken(_:checkRevoked: true)`.
    /// As firebase-admin, it sets the account's `validSince` to now, in whole seconds rounded down.
    /// - Parameters:
    ///   - uid: The user.
    ///   - tenantID: The user's tenant, for a tenant's user.
    ///   - now: The current time (for tests).
    public func revokeRefreshTokens(uid: String, tenantID: String? = nil, now: Date = Date()) async throws {
        _ = try await client.updateAccount(targetProjectId: projectID, body: SetAccountInfoRequest(
            tenantId: tenantID, localId: uid, validSince: Int64(now.timeIntervalSince1970.rounded(.down))))
    }

    /// An instance for the emulator at `host:port`, authorised as its owner.
    public static func emulator(projectID: String, hostAndPort: String, transport: any HTTPTransport = URLSessionTransport.shared) -> IdentityAdmin {
        IdentityAdmin(projectID: projectID, credential: EmulatorOwnerCredential(),
                      configuration: ClientConfiguration(transport: transport, emulatorHost: hostAndPort))
    }

    /// The project's configuration.
    public func projectConfigManager() -> ProjectConfigManager { ProjectConfigManager(admin: self) }

    /// The project's tenants.
    public func tenantManager() -> TenantManager { TenantManager(admin: self) }
}

/// A project's configuration, as firebase-admin-node shows it.
public struct ProjectConfigInfo: Sendable, Hashable {
    public var multiFactorConfig: MultiFactorConfig?
}

/// The fields of a project configuration update.
public struct UpdateProjectConfigRequest: Sendable, Hashable {
    public var multiFactorConfig: MultiFactorConfig?

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
            throw AdminValidationError(field: "UpdateProjectConfigRequest", message: "must set at least one field to update")
        }
        let config = try await admin.client.updateProjectConfig(
            project: admin.projectID, updateMask: mask.joined(separator: ","), body: ProjectConfig(mfa: request.multiFactorConfig?.wire))
        return ProjectConfigInfo(multiFactorConfig: config.mfa.map(MultiFactorConfig.init(wire:)))
    }
}

/// A tenant, as firebase-admin-node shows it.
public struct TenantInfo: Sendable, Hashable {
    /// The tenant id.
    public var tenantID: String
    public var displayName: String?
    public var multiFactorConfig: MultiFactorConfig?

    init(_ tenant: Tenant) {
        tenantID = String((tenant.name ?? "").split(separator: "/").last ?? "")
        displayName = tenant.displayName
        multiFactorConfig = tenant.mfaConfig.map(MultiFactorConfig.init(wire:))
    }
}

/// The fields of a tenant creation or update.
public struct TenantRequest: Sendable, Hashable {
    public var displayName: String?
    public var multiFactorConfig: MultiFactorConfig?

    public init(displayName: String? = nil, multiFactorConfig: MultiFactorConfig? = nil) {
        self.displayName = displayName
        self.multiFactorConfig = multiFactorConfig
    }

    var wire: Tenant { Tenant(displayName: displayName, mfaConfig: multiFactorConfig?.wire) }

    var updateMask: [String] {
        (displayName == nil ? [] : [Tenant.FieldPath.displayName]) + (multiFactorConfig?.updateMask(prefix: Tenant.FieldPath.mfaConfig) ?? [])
    }
}

/// Creates, reads and updates tenants.
public final class TenantManager: Sendable {
    let admin: IdentityAdmin

    init(admin: IdentityAdmin) {
        self.admin = admin
    }

    public func getTenant(_ tenantID: String) async throws -> TenantInfo {
        TenantInfo(try await admin.client.getTenant(project: admin.projectID, tenant: tenantID))
    }

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
        return TenantInfo(try await admin.client.updateTenant(
            project: admin.projectID, tenant: tenantID, updateMask: request.updateMask.joined(separator: ","), body: request.wire))
    }
}
