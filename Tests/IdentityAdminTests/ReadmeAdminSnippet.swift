// A README snippet, verbatim (ReadmeSnippetTests compares them): TOTP switched on.
import IdentityAdmin

/// TOTP on for the project (five adjacent steps accepted) and for one tenant.
func switchTOTPOn() async throws {
    // The key file GOOGLE_APPLICATION_CREDENTIALS names, read when first needed:
    // with FIREBASE_AUTH_EMULATOR_HOST set, nothing asks for it.
    let admin = IdentityAdmin(projectID: "my-project", credential: ApplicationDefaultCredential())
    // Or the emulator, named in code: IdentityAdmin.emulator(projectID: "demo-mfa", hostAndPort: "127.0.0.1:9099")
    _ = try await admin.projectConfigManager().updateProjectConfig(
        UpdateProjectConfigRequest(multiFactorConfig: .totpEnabled(adjacentIntervals: 5)))
    _ = try await admin.tenantManager().updateTenant("tenant-1", TenantRequest(multiFactorConfig: .totpEnabled()))
}
