import Foundation
import IdentityToolkit
import Testing

/// The admin account operations in both path forms (project, and a
/// tenant's as firebase-admin's tenant-scoped calls use), and admin
/// out-of-band links.
@Suite struct AdminAccountRouteTests {
    @Test func tenantPathFormsActOnTheTenantsAccounts() async throws {
        try await withEmulator { harness in
            let admin = harness.admin
            let project = Harness.project
            let tenant = String(
                try await admin.createTenant(
                    project: project, body: Tenant(displayName: "Shop", allowPasswordSignup: true)
                )
                .name?.split(separator: "/").last ?? "")

            let created = try await admin.createTenantAccount(
                targetProjectId: project, tenantId: tenant,
                body: SignUpRequest(email: "t@example.com", password: "secret-pw", localId: "tenant-user"))
            #expect(created.localId == "tenant-user")
            // Only in the tenant: the project's form does not see it.
            #expect(
                try await admin.lookupTenantAccounts(
                    targetProjectId: project, tenantId: tenant, body: GetAccountInfoRequest(localId: ["tenant-user"])
                ).users?.first?.tenantId == tenant)
            #expect(
                try await admin.lookupAccounts(
                    targetProjectId: project, body: GetAccountInfoRequest(localId: ["tenant-user"])
                ).users == nil)
            #expect(
                try await admin.batchGetTenantAccounts(targetProjectId: project, tenantId: tenant).users?.map(\.localId)
                    == ["tenant-user"])
            _ = try await admin.updateTenantAccount(
                targetProjectId: project, tenantId: tenant,
                body: SetAccountInfoRequest(localId: "tenant-user", emailVerified: true))
            #expect(
                try await admin.lookupTenantAccounts(
                    targetProjectId: project, tenantId: tenant, body: GetAccountInfoRequest(email: ["t@example.com"])
                ).users?.first?.emailVerified == true)

            // A body naming another tenant than the path is refused.
            do {
                _ = try await admin.lookupTenantAccounts(
                    targetProjectId: project, tenantId: tenant,
                    body: GetAccountInfoRequest(localId: ["x"], tenantId: "other"))
                Issue.record("expected TENANT_ID_MISMATCH")
            } catch let failure as IdentityToolkitError where failure.code == .server {
                let error = try #require(failure.serverError)
                #expect(error.shortCode == "TENANT_ID_MISMATCH")
            }
            // An unknown tenant is TENANT_NOT_FOUND.
            do {
                _ = try await admin.batchGetTenantAccounts(targetProjectId: project, tenantId: "nope")
                Issue.record("expected TENANT_NOT_FOUND")
            } catch let failure as IdentityToolkitError where failure.code == .server {
                let error = try #require(failure.serverError)
                #expect(error.shortCode == "TENANT_NOT_FOUND")
            }

            // A session cookie for a tenant user, through the tenant's form.
            let signedIn = try await harness.accounts.signInWithPassword(
                SignInWithPasswordRequest(email: "t@example.com", password: "secret-pw", tenantId: tenant))
            let cookie = try await admin.createTenantSessionCookie(
                targetProjectId: project, tenantId: tenant,
                body: CreateSessionCookieRequest(idToken: try #require(signedIn.idToken), validDuration: 600))
            #expect(cookie.sessionCookie?.isEmpty == false)

            _ = try await admin.deleteTenantAccount(
                targetProjectId: project, tenantId: tenant, body: DeleteAccountRequest(localId: "tenant-user"))
            #expect(try await admin.batchGetTenantAccounts(targetProjectId: project, tenantId: tenant).users == nil)
        }
    }

    @Test func adminOutOfBandLinksAreReturnedNotSent() async throws {
        try await withEmulator { harness in
            let admin = harness.admin
            let project = Harness.project
            _ = try await admin.createAccount(
                targetProjectId: project, body: SignUpRequest(email: "link@example.com", password: "secret-pw"))

            let verify = try await admin.sendAccountOobCode(
                targetProjectId: project,
                body: GetOobCodeRequest(requestType: .verifyEmail, email: "link@example.com", returnOobLink: true))
            let link = try #require(verify.oobLink)
            let code = try #require(verify.oobCode)
            #expect(
                link.hasPrefix(harness.baseURL + "/emulator/action?mode=verifyEmail&lang=en&oobCode=\(code)"),
                "\(link)")
            // The code applies as any other.
            _ = try await harness.accounts.update(SetAccountInfoRequest(oobCode: code))
            #expect(
                try await admin.lookupAccounts(
                    targetProjectId: project, body: GetAccountInfoRequest(email: ["link@example.com"])
                ).users?.first?.emailVerified == true)
            // Without returnOobLink nothing is returned but the address.
            let sent = try await admin.sendAccountOobCode(
                targetProjectId: project,
                body: GetOobCodeRequest(requestType: .passwordReset, email: "link@example.com"))
            #expect(sent.oobLink == nil && sent.oobCode == nil && sent.email == "link@example.com")
            // An unknown address: USER_NOT_FOUND for verification; a reset says nothing under
            // improved email privacy (production's default), as production does.
            let unknownReset = try await admin.sendAccountOobCode(
                targetProjectId: project,
                body: GetOobCodeRequest(requestType: .passwordReset, email: "nobody@example.com", returnOobLink: true))
            #expect(unknownReset.oobLink == nil && unknownReset.email == "nobody@example.com")
            for (type, shortCode) in [(OobRequestType.verifyEmail, "USER_NOT_FOUND")] {
                do {
                    _ = try await admin.sendAccountOobCode(
                        targetProjectId: project,
                        body: GetOobCodeRequest(requestType: type, email: "nobody@example.com", returnOobLink: true))
                    Issue.record("expected \(shortCode)")
                } catch let failure as IdentityToolkitError where failure.code == .server {
                    let error = try #require(failure.serverError)
                    #expect(error.shortCode == shortCode)
                }
            }
        }
    }
}
