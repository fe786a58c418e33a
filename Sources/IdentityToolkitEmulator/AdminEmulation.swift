import Foundation
import IdentityToolkit

/// The admin API (`AdminService`, generated from the spec): accounts,
/// session cookies, the project's and tenants' configuration.
/// Authorisation (`Bearer owner`) is checked before a route runs.
struct AdminEmulation: AdminService {
    let store: EmulatorStore
    let tokens: SessionTokens
    let links: LinkBase

    /// The realm of an admin account call: the project in the path, and the
    /// body's tenant when it names one (which must exist).
    private func realm(_ project: String, _ tenant: String?) async throws -> Realm {
        try await store.adminRealm(project: project, tenant: tenant)
    }

    func lookupAccounts(targetProjectId: String, body: GetAccountInfoRequest, request: APIServerRequest) async throws -> GetAccountInfoResponse {
        let found = try await store.adminLookup(realm: realm(targetProjectId, body.tenantId), localIds: body.localId ?? [], emails: body.email ?? [])
        // No match is the absence of `users`, not an error.
        return GetAccountInfoResponse(users: found.isEmpty ? nil : found.map(AccountsEmulation.userInfo), kind: "identitytoolkit#GetAccountInfoResponse")
    }

    func createAccount(targetProjectId: String, body: SignUpRequest, request: APIServerRequest) async throws -> SignUpResponse {
        let user = try await store.adminCreate(
            realm: realm(targetProjectId, body.tenantId), localId: body.localId, email: body.email, password: body.password,
            displayName: body.displayName, emailVerified: body.emailVerified, disabled: body.disabled)
        return SignUpResponse(localId: user.localId, email: user.email, displayName: user.displayName, kind: "identitytoolkit#SignupNewUserResponse")
    }

    func batchGetAccounts(targetProjectId: String, maxResults: Int32?, nextPageToken: String?, tenantId: String?,
                          request: APIServerRequest) async throws -> DownloadAccountResponse {
        let pageSize = try Self.pageSize(maxResults, field: "maxResults")
        let after = try nextPageToken.map { try Self.cursor(fromPageToken: $0) }
        let page = try await store.adminList(realm: realm(targetProjectId, tenantId), pageSize: pageSize, after: after)
        return DownloadAccountResponse(users: page.users.isEmpty ? nil : page.users.map(AccountsEmulation.userInfo),
                                       nextPageToken: page.lastUID.map(Self.pageToken), kind: "identitytoolkit#DownloadAccountResponse")
    }

    func deleteAccount(targetProjectId: String, body: DeleteAccountRequest, request: APIServerRequest) async throws -> DeleteAccountResponse {
        guard let localId = body.localId, !localId.isEmpty else { throw APIServerError("MISSING_LOCAL_ID") }
        try await store.adminDelete(realm: realm(targetProjectId, body.tenantId), localId: localId)
        return DeleteAccountResponse(kind: "identitytoolkit#DeleteAccountResponse")
    }

    /// A session cookie for a valid ID token of a user who still may sign
    /// in: the token's claims under the session issuer, for `validDuration`.
    func createSessionCookie(targetProjectId: String, body: CreateSessionCookieRequest,
                             request: APIServerRequest) async throws -> CreateSessionCookieResponse {
        // Two weeks when the request names no duration, as Google's emulator.
        let duration = body.validDuration ?? IdentityPlatformLimits.sessionCookieSeconds.upperBound
        guard IdentityPlatformLimits.sessionCookieSeconds.contains(duration) else {
            throw APIServerError("INVALID_DURATION", detail: "validDuration must be 300 to 1209600 seconds")
        }
        let claims = try tokens.claims(of: body.idToken)
        guard claims.aud == targetProjectId else { throw APIServerError("INVALID_ID_TOKEN", detail: "the token is for another project") }
        let user = try await store.user(for: claims, requestTenant: body.tenantId)
        // A token issued before the account's sessions were revoked.
        guard claims.iat >= Int64(user.validSince.timeIntervalSince1970.rounded(.down)) else { throw APIServerError("TOKEN_EXPIRED") }
        let now = Int64(tokens.clock.now.timeIntervalSince1970)
        let cookie = try tokens.issuer.sessionCookie(from: body.idToken, project: targetProjectId, issuedAt: now, expiresAt: now + duration)
        return CreateSessionCookieResponse(sessionCookie: cookie)
    }

    /// A page size: the default when absent, 1 to the maximum otherwise.
    private static func pageSize(_ requested: Int32?, field: String) throws -> Int {
        guard let requested else { return EmulatorRules.defaultPageSize }
        guard (1...Int32(IdentityPlatformLimits.maximumPageSize)).contains(requested) else {
            throw APIServerError.invalidArgument("\(field) must be 1 to \(IdentityPlatformLimits.maximumPageSize)")
        }
        return Int(requested)
    }

    /// Page tokens are opaque to clients: the base64url form of the last id of the previous page.
    private static func pageToken(after lastID: String) -> String { Data(lastID.utf8).base64URLEncoded }

    private static func cursor(fromPageToken token: String) throws -> String {
        guard !token.isEmpty, let data = Data(base64URLEncoded: token), let id = String(data: data, encoding: .utf8) else {
            throw APIServerError("INVALID_PAGE_SELECTION")
        }
        return id
    }

    func updateAccount(targetProjectId: String, body: SetAccountInfoRequest, request: APIServerRequest) async throws -> SetAccountInfoResponse {
        guard let localId = body.localId, !localId.isEmpty else { throw APIServerError("MISSING_LOCAL_ID") }
        let accountRealm = try await realm(targetProjectId, body.tenantId)
        let keep = body.mfa.map { mfa in (mfa.enrollments ?? []).map { (id: $0.mfaEnrollmentId, isTOTP: $0.totpInfo != nil) } }
        var user = try await store.adminUpdate(realm: accountRealm, localId: localId, disable: body.disableUser, validSince: body.validSince,
                                               emailVerified: body.emailVerified, keepFactors: keep, customAttributes: body.customAttributes)
        if body.email != nil || body.password != nil || body.displayName != nil {
            user = try await store.updateProfile(localId, realm: accountRealm, email: body.email, password: body.password,
                                                 displayName: body.displayName, byAdmin: true)
        }
        return SetAccountInfoResponse(localId: user.localId, email: user.email, emailVerified: user.emailVerified, displayName: user.displayName,
                                      kind: "identitytoolkit#SetAccountInfoResponse")
    }

    /// An out-of-band code made by an admin: for an account found by email
    /// (or by the ID token a client would send), returned as a link with
    /// `returnOobLink` instead of "sent".
    func sendAccountOobCode(targetProjectId: String, body: GetOobCodeRequest, request: APIServerRequest) async throws -> GetOobCodeResponse {
        let realm = try await realm(targetProjectId, body.tenantId)
        let code: OutOfBandCode
        if let email = body.email, body.idToken == nil {
            switch body.requestType {
            case .verifyEmail:
                // An unknown address is USER_NOT_FOUND here (EMAIL_NOT_FOUND for a reset), as production answers.
                guard !(await store.adminLookup(realm: realm, localIds: [], emails: [email])).isEmpty else { throw APIServerError("USER_NOT_FOUND") }
                code = try await store.createOobCode(requestType: body.requestType, uid: nil, email: email, realm: realm)
            case .passwordReset, .emailSignin:
                code = try await store.createOobCode(requestType: body.requestType, uid: nil, email: email, realm: realm)
            default:
                throw APIServerError.invalidArgument("unsupported requestType \(body.requestType.rawValue)")
            }
        } else {
            guard body.requestType == .verifyEmail else { throw APIServerError("MISSING_EMAIL") }
            let claims = try tokens.claims(of: body.idToken)
            let user = try await store.user(for: claims, requestTenant: body.tenantId)
            code = try await store.createOobCode(requestType: body.requestType, uid: user.localId, email: nil, realm: user.realm)
        }
        let returned = body.returnOobLink == true
        return GetOobCodeResponse(email: code.email, oobCode: returned ? code.code : nil, oobLink: returned ? links.actionLink(for: code) : nil,
                                  kind: "identitytoolkit#GetOobConfirmationCodeResponse")
    }

    // MARK: Tenant path forms: the same operations, the tenant from the path.

    /// `body` with the path's tenant; a body naming another tenant is refused.
    private static func scoped<Body: TenantScopedBody>(_ body: Body, to pathTenant: String) throws -> Body {
        if let named = body.tenantId, !named.isEmpty, named != pathTenant { throw APIServerError("TENANT_ID_MISMATCH") }
        var scoped = body
        scoped.tenantId = pathTenant
        return scoped
    }

    func createTenantAccount(targetProjectId: String, tenantId: String, body: SignUpRequest, request: APIServerRequest) async throws -> SignUpResponse {
        try await createAccount(targetProjectId: targetProjectId, body: Self.scoped(body, to: tenantId), request: request)
    }

    func batchGetTenantAccounts(targetProjectId: String, tenantId: String, maxResults: Int32?, nextPageToken: String?,
                                request: APIServerRequest) async throws -> DownloadAccountResponse {
        try await batchGetAccounts(targetProjectId: targetProjectId, maxResults: maxResults, nextPageToken: nextPageToken, tenantId: tenantId, request: request)
    }

    func deleteTenantAccount(targetProjectId: String, tenantId: String, body: DeleteAccountRequest, request: APIServerRequest) async throws -> DeleteAccountResponse {
        try await deleteAccount(targetProjectId: targetProjectId, body: Self.scoped(body, to: tenantId), request: request)
    }

    func lookupTenantAccounts(targetProjectId: String, tenantId: String, body: GetAccountInfoRequest, request: APIServerRequest) async throws -> GetAccountInfoResponse {
        try await lookupAccounts(targetProjectId: targetProjectId, body: Self.scoped(body, to: tenantId), request: request)
    }

    func updateTenantAccount(targetProjectId: String, tenantId: String, body: SetAccountInfoRequest, request: APIServerRequest) async throws -> SetAccountInfoResponse {
        try await updateAccount(targetProjectId: targetProjectId, body: Self.scoped(body, to: tenantId), request: request)
    }

    func sendTenantAccountOobCode(targetProjectId: String, tenantId: String, body: GetOobCodeRequest, request: APIServerRequest) async throws -> GetOobCodeResponse {
        try await sendAccountOobCode(targetProjectId: targetProjectId, body: Self.scoped(body, to: tenantId), request: request)
    }

    func createTenantSessionCookie(targetProjectId: String, tenantId: String, body: CreateSessionCookieRequest,
                                   request: APIServerRequest) async throws -> CreateSessionCookieResponse {
        try await createSessionCookie(targetProjectId: targetProjectId, body: Self.scoped(body, to: tenantId), request: request)
    }

    func getProjectConfig(project: String, request: APIServerRequest) async throws -> ProjectConfig {
        ProjectConfig(name: "projects/\(project)/config", mfa: await store.projectConfig(project).mfa)
    }

    func updateProjectConfig(project: String, updateMask: String?, body: ProjectConfig, request: APIServerRequest) async throws -> ProjectConfig {
        let mfaPath = ProjectConfig.FieldPath.mfa
        let paths = try Self.maskPaths(updateMask, allowed: [mfaPath], default: body.mfa == nil ? [] : [mfaPath])
        var mfa = await store.projectConfig(project).mfa
        mfa = try Self.merge(mfa, body.mfa, paths: paths, prefix: mfaPath)
        await store.setProjectMFA(project, mfa)
        return try await getProjectConfig(project: project, request: request)
    }

    func createTenant(project: String, body: Tenant, request: APIServerRequest) async throws -> Tenant {
        try InputRules.checkDisplayName(body.displayName)
        try Self.validate(body.mfaConfig, field: Tenant.FieldPath.mfaConfig)
        return await store.createTenant(project: project, body)
    }

    func getTenant(project: String, tenant: String, request: APIServerRequest) async throws -> Tenant {
        try await store.tenant(project: project, id: tenant)
    }

    func listTenants(project: String, pageSize: Int32?, pageToken: String?, request: APIServerRequest) async throws -> ListTenantsResponse {
        let size = try Self.pageSize(pageSize, field: "pageSize")
        let after = try pageToken.map { try Self.cursor(fromPageToken: $0) }
        let page = await store.listTenants(project: project, pageSize: size, after: after)
        return ListTenantsResponse(tenants: page.tenants.isEmpty ? nil : page.tenants, nextPageToken: page.lastID.map(Self.pageToken))
    }

    func deleteTenant(project: String, tenant: String, request: APIServerRequest) async throws -> Empty {
        try await store.deleteTenant(project: project, id: tenant)
        return Empty()
    }

    func updateTenant(project: String, tenant: String, updateMask: String?, body: Tenant, request: APIServerRequest) async throws -> Tenant {
        try InputRules.checkDisplayName(body.displayName)
        var current = try await store.tenant(project: project, id: tenant)
        typealias Path = Tenant.FieldPath
        // Each settable scalar field: its mask path, and how to copy it.
        let scalarFields: [(path: String, apply: (inout Tenant) -> Void)] = [
            (Path.displayName, { $0.displayName = body.displayName }),
            (Path.allowPasswordSignup, { $0.allowPasswordSignup = body.allowPasswordSignup }),
            (Path.enableEmailLinkSignin, { $0.enableEmailLinkSignin = body.enableEmailLinkSignin }),
            (Path.enableAnonymousUser, { $0.enableAnonymousUser = body.enableAnonymousUser }),
            (Path.disableAuth, { $0.disableAuth = body.disableAuth }),
        ]
        // Without a mask every settable field is replaced, as Google documents for tenants.
        let settable = scalarFields.map(\.path) + [Path.mfaConfig]
        let paths = try Self.maskPaths(updateMask, allowed: settable, default: settable)
        for field in scalarFields where paths.contains(field.path) { field.apply(&current) }
        current.mfaConfig = try Self.merge(current.mfaConfig, body.mfaConfig, paths: paths, prefix: Path.mfaConfig)
        return try await store.replaceTenant(project: project, id: tenant, current)
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
            let known = allowed.contains(head)
                && (parts.count == 1 || (mfaParents.contains(head) && mfaFields.contains(parts[1])))
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

    static func validate(_ config: MultiFactorAuthConfig?, field: String) throws {
        for (index, provider) in (config?.providerConfigs ?? []).enumerated() {
            if let intervals = provider.totpProviderConfig?.adjacentIntervals, !(0...10).contains(intervals) {
                throw APIServerError.invalidArgument("\(field).providerConfigs[\(index)].totpProviderConfig.adjacentIntervals must be 0 to 10, not \(intervals)")
            }
            if provider.state == .enabled && provider.totpProviderConfig == nil {
                throw APIServerError.invalidArgument("\(field).providerConfigs[\(index)] is ENABLED without a totpProviderConfig")
            }
        }
    }
}

/// A request body that names its tenant (`tenantId`), so that a tenant's
/// path form can set it from the path.
protocol TenantScopedBody {
    var tenantId: String? { get set }
}

extension SignUpRequest: TenantScopedBody {}
extension DeleteAccountRequest: TenantScopedBody {}
extension GetAccountInfoRequest: TenantScopedBody {}
extension SetAccountInfoRequest: TenantScopedBody {}
extension GetOobCodeRequest: TenantScopedBody {}
extension CreateSessionCookieRequest: TenantScopedBody {}
