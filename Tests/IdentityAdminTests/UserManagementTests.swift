import AdminTestSupport
import Foundation
import IdentityOTP
import IdentityToolkit
import IdentityToolkitEmulator
import Testing

@testable import IdentityAdmin

/// The admin's user API against the emulator: create, list (pages and the
/// async sequence), update, delete, custom claims.
@Suite struct UserManagementTests {
    static let project = "demo-users"

    @Test func usersAreCreatedListedAndDeleted() async throws {
        try await EmulatorSetup.with(project: Self.project) { setup in
            let admin = setup.admin

            let chosen = try await admin.createUser(
                CreateUserRequest(
                    uid: "user-00", email: "zero@example.com", emailVerified: true,
                    password: "secret-0", displayName: "Zero", disabled: true))
            #expect(
                chosen.uid == "user-00" && chosen.email == "zero@example.com" && chosen.emailVerified && chosen.disabled
            )
            #expect(chosen.displayName == "Zero" && chosen.metadata.creationTime != nil)
            // A disabled account cannot sign in; enabled, it can, with the admin's password.
            await #expect(throws: IdentityToolkitError.self) {
                _ = try await setup.accounts.signInWithPassword(
                    SignInWithPasswordRequest(email: "zero@example.com", password: "secret-0"))
            }
            _ = try await admin.updateUser("user-00", UpdateUserRequest(disabled: false))
            _ = try await setup.accounts.signInWithPassword(
                SignInWithPasswordRequest(email: "zero@example.com", password: "secret-0"))
            // The server picks a uid when none is given.
            let picked = try await admin.createUser(CreateUserRequest())
            #expect(!picked.uid.isEmpty && picked.email == nil)
            for index in 1..<24 {
                _ = try await admin.createUser(CreateUserRequest(uid: String(format: "user-%02d", index)))
            }

            // Duplicates are refused with production's codes.
            for (request, shortCode) in [
                (CreateUserRequest(uid: "user-00"), "DUPLICATE_LOCAL_ID"),
                (CreateUserRequest(email: "zero@example.com"), "EMAIL_EXISTS"),
                (CreateUserRequest(email: "not an address"), "INVALID_EMAIL"),
                (CreateUserRequest(password: "short"), "WEAK_PASSWORD"),
                (CreateUserRequest(uid: String(repeating: "u", count: 129)), "INVALID_ARGUMENT"),
            ] {
                do {
                    _ = try await admin.createUser(request)
                    Issue.record("expected \(shortCode)")
                } catch let failure as IdentityToolkitError where failure.code == .server {
                    let error = try #require(failure.serverError)
                    #expect(error.shortCode == shortCode)
                }
            }

            // Pages in uid order, then the whole sequence.
            var pages: [[String]] = []
            var token: String?
            repeat {
                let page = try await admin.listUsers(pageSize: 10, pageToken: token)
                pages.append(page.users.map(\.uid))
                token = page.pageToken
            } while token != nil
            #expect(pages.map(\.count) == [10, 10, 5])
            let listed = pages.flatMap { $0 }
            #expect(listed == listed.sorted() && Set(listed).count == 25 && listed.contains(picked.uid))
            var streamed: [String] = []
            for try await user in admin.allUsers(pageSize: 7) { streamed.append(user.uid) }
            #expect(streamed == listed)
            await #expect(throws: AdminValidationError.self) { _ = try await admin.listUsers(pageSize: 0) }
            await #expect(throws: AdminValidationError.self) { _ = try await admin.listUsers(pageSize: 1001) }
            await #expect(throws: IdentityToolkitError.self) { _ = try await admin.listUsers(pageToken: "%%%") }

            // A deleted user's refresh token answers USER_NOT_FOUND (as production
            // documents), and a new account with the same uid does not inherit it.
            let zero = try await setup.accounts.signInWithPassword(
                SignInWithPasswordRequest(email: "zero@example.com", password: "secret-0"))
            try await admin.deleteUser(uid: "user-00")
            let tokens = SecureTokenClient(apiKey: "k", configuration: setup.configuration)
            let refresh = GrantTokenRequest(
                grantType: SecureTokenGrantType.refreshToken.rawValue, refreshToken: zero.refreshToken)
            do {
                _ = try await tokens.grantToken(refresh)
                Issue.record("expected USER_NOT_FOUND")
            } catch let failure as IdentityToolkitError where failure.code == .server {
                let error = try #require(failure.serverError)
                #expect(error.shortCode == "USER_NOT_FOUND")
            }
            _ = try await admin.createUser(CreateUserRequest(uid: "user-00"))
            await #expect(throws: IdentityToolkitError.self) { _ = try await tokens.grantToken(refresh) }

            // Deleted users are gone from lookups and lists; a second delete is USER_NOT_FOUND.
            try await admin.deleteUser(uid: "user-05")
            let deleted = await #expect(throws: AdminError.self) { _ = try await admin.getUser(uid: "user-05") }
            #expect(deleted?.code == .userNotFound)
            #expect(try await admin.listUsers().users.count == 24)
            do {
                try await admin.deleteUser(uid: "user-05")
                Issue.record("expected USER_NOT_FOUND")
            } catch let failure as IdentityToolkitError where failure.code == .server {
                let error = try #require(failure.serverError)
                #expect(error.shortCode == "USER_NOT_FOUND")
            }
        }
    }

    @Test func customClaimsReachTheNextIDTokens() async throws {
        try await EmulatorSetup.with(project: Self.project) { setup in
            let admin = setup.admin
            let user = try await admin.createUser(
                CreateUserRequest(email: "claims@example.com", password: "correct horse"))

            try await admin.setCustomUserClaims(user.uid, ["role": .string("support"), "level": .number(3)])
            #expect(
                try await admin.getUser(uid: user.uid).customClaims == [
                    "role": .string("support"), "level": .number(3),
                ])
            let signedIn = try await setup.accounts.signInWithPassword(
                SignInWithPasswordRequest(email: "claims@example.com", password: "correct horse"))
            let token = try await admin.verifyIDToken(try #require(signedIn.idToken))
            #expect(token.claims["role"] == .string("support") && token.claims["level"] == .number(3))
            // The standard claims stay the token's own.
            #expect(token.uid == user.uid && token.signInProvider == "password")

            // Checked before sending: reserved names and the size limit.
            await #expect(throws: AdminValidationError.self) {
                try await admin.setCustomUserClaims(user.uid, ["auth_time": .number(1)])
            }
            await #expect(throws: AdminValidationError.self) {
                try await admin.setCustomUserClaims(user.uid, ["firebase": .object([:])])
            }
            await #expect(throws: AdminValidationError.self) {
                try await admin.setCustomUserClaims(user.uid, ["blob": .string(String(repeating: "x", count: 1000))])
            }
            // The server applies the same rules to callers that skip the SDK.
            for (attributes, shortCode) in [
                (#"{"sub":"x"}"#, "FORBIDDEN_CLAIM"), ("[1]", "INVALID_CLAIMS"), ("{", "INVALID_CLAIMS"),
                ("{\"a\":\"" + String(repeating: "x", count: 1000) + "\"}", "CLAIMS_TOO_LARGE"),
            ] {
                do {
                    _ = try await admin.client.updateAccount(
                        targetProjectId: Self.project,
                        body: SetAccountInfoRequest(localId: user.uid, customAttributes: attributes))
                    Issue.record("expected \(shortCode)")
                } catch let failure as IdentityToolkitError where failure.code == .server {
                    let error = try #require(failure.serverError)
                    #expect(error.shortCode == shortCode)
                }
            }
            // nil clears them.
            try await admin.setCustomUserClaims(user.uid, nil)
            #expect(try await admin.getUser(uid: user.uid).customClaims == nil)
            let again = try await setup.accounts.signInWithPassword(
                SignInWithPasswordRequest(email: "claims@example.com", password: "correct horse"))
            #expect(try await admin.verifyIDToken(try #require(again.idToken)).claims["role"] == nil)
        }
    }

    @Test func requestsNeverShowPasswords() {
        let create = CreateUserRequest(uid: "u", email: "a@example.com", password: "hunter2-secret")
        let update = UpdateUserRequest(password: "hunter2-secret")
        for text in [
            create.description, create.debugDescription, String(reflecting: create), update.description,
            String(reflecting: update),
        ] {
            #expect(!text.contains("hunter2"))
        }
        var dumped = ""
        dump(create, to: &dumped)
        dump(update, to: &dumped)
        #expect(!dumped.contains("hunter2") && dumped.contains("<redacted>"))
    }
}

/// Session cookies: made from a TOTP sign-in's ID token, verified with the
/// session-cookie keys and issuer, revoked with the user's sessions.
@Suite struct SessionCookieTests {
    static let project = "demo-cookies"

    @Test func aTOTPSignInBecomesASessionCookie() async throws {
        try await EmulatorSetup.with(project: Self.project) { setup in
            let admin = setup.admin
            // Codes move the emulator's clock forward; start it back so that no token is from the verifier's future.
            setup.clock.set(Date().addingTimeInterval(-600))
            let email = "cookie@example.com"
            let password = "correct horse"
            let created = try await admin.createUser(
                CreateUserRequest(email: email, emailVerified: true, password: password))
            let first = try await setup.accounts.signInWithPassword(
                SignInWithPasswordRequest(email: email, password: password))
            let totp = try await setup.enrollTOTP(idToken: try #require(first.idToken), displayName: "Phone")
            let idToken = try #require(
                try await setup.signInWithTOTP(email: email, password: password, totp: totp).idToken)

            let cookie = try await admin.createSessionCookie(idToken, expiresIn: .seconds(3600))
            let session = try await admin.verifySessionCookie(cookie, checkRevoked: true)
            #expect(session.uid == created.uid && session.signInSecondFactor == "totp")
            #expect(session.issuer == "https://session.firebase.google.com/\(Self.project)")
            #expect(session.expiresAt.timeIntervalSince(session.issuedAt) == 3600)
            #expect(try session.requireSecondFactor() == "totp")
            // A cookie is no ID token, and an ID token no cookie: the issuers differ.
            await #expect(throws: TokenVerificationError.self) { _ = try await admin.verifyIDToken(cookie) }
            await #expect(
                throws: TokenVerificationError.wrongIssuer(
                    expected: "https://session.firebase.google.com/\(Self.project)",
                    found: "https://securetoken.google.com/\(Self.project)")
            ) {
                _ = try await admin.verifySessionCookie(idToken)
            }
            // Nor can a cookie buy another cookie.
            await #expect(throws: IdentityToolkitError.self) {
                _ = try await admin.createSessionCookie(cookie, expiresIn: .seconds(3600))
            }

            // Lifetimes outside 5 minutes to 2 weeks are refused before sending; the server refuses them too.
            for lifetime: Duration in [.seconds(299), .seconds(14 * 24 * 3600 + 1), .milliseconds(400_500)] {
                await #expect(throws: AdminValidationError.self) {
                    _ = try await admin.createSessionCookie(idToken, expiresIn: lifetime)
                }
            }
            do {
                _ = try await admin.client.createSessionCookie(
                    targetProjectId: Self.project, body: CreateSessionCookieRequest(idToken: idToken, validDuration: 60)
                )
                Issue.record("expected INVALID_DURATION")
            } catch let failure as IdentityToolkitError where failure.code == .server {
                let error = try #require(failure.serverError)
                #expect(error.shortCode == "INVALID_DURATION")
            }

            // An expired cookie (the emulator's clock is about 9 minutes back; a 5-minute cookie is already over).
            let short = try await admin.createSessionCookie(idToken, expiresIn: .seconds(300))
            setup.clock.set(Date())
            await #expect(throws: TokenVerificationError.self) { _ = try await admin.verifySessionCookie(short) }

            // Ending the user's sessions ends the cookie (with checkRevoked), and no new cookie is made from the old token.
            try await admin.revokeRefreshTokens(uid: created.uid, now: Date())
            await #expect(throws: TokenVerificationError.revoked) {
                _ = try await admin.verifySessionCookie(cookie, checkRevoked: true)
            }
            _ = try await admin.verifySessionCookie(cookie)
            do {
                _ = try await admin.createSessionCookie(idToken, expiresIn: .seconds(3600))
                Issue.record("expected TOKEN_EXPIRED")
            } catch let failure as IdentityToolkitError where failure.code == .server {
                let error = try #require(failure.serverError)
                #expect(error.shortCode == "TOKEN_EXPIRED")
            }
        }
    }
}

/// `tenantManager().authForTenant(_:)`: the same API, scoped to one tenant;
/// tenants listed a page at a time and deleted with their users.
@Suite struct TenantAwareAuthTests {
    static let project = "demo-tenant-auth"

    @Test func aTenantsAuthSeesOnlyItsUsers() async throws {
        try await EmulatorSetup.with(project: Self.project) { setup in
            let admin = setup.admin
            let tenants = admin.tenantManager()
            let tenant = try await tenants.createTenant(
                TenantRequest(
                    displayName: "Shop", multiFactorConfig: .totpEnabled(adjacentIntervals: 1),
                    emailSignInConfig: EmailSignInConfig(enabled: true)))
            let shop = tenants.authForTenant(tenant.tenantID)
            #expect(shop.tenantID == tenant.tenantID && shop.projectID == Self.project)

            let user = try await shop.createUser(
                CreateUserRequest(email: "buyer@example.com", emailVerified: true, password: "correct horse"))
            #expect(user.tenantID == tenant.tenantID)
            #expect(try await shop.getUser(email: "buyer@example.com") == user)
            let otherRealm = await #expect(throws: AdminError.self) { _ = try await admin.getUser(uid: user.uid) }
            #expect(otherRealm?.code == .userNotFound)
            #expect(try await shop.listUsers().users.map(\.uid) == [user.uid])
            #expect(try await admin.listUsers().users.isEmpty)

            // The tenant's tokens verify with its auth (cookies too), and not with another tenant's.
            let signedIn = try await setup.accounts.signInWithPassword(
                SignInWithPasswordRequest(
                    email: "buyer@example.com", password: "correct horse", tenantId: tenant.tenantID))
            let idToken = try #require(signedIn.idToken)
            #expect(try await shop.verifyIDToken(idToken, checkRevoked: true).tenant == tenant.tenantID)
            let cookie = try await shop.createSessionCookie(idToken, expiresIn: .seconds(600))
            #expect(try await shop.verifySessionCookie(cookie, checkRevoked: true).tenant == tenant.tenantID)
            await #expect(throws: TokenVerificationError.tenantMismatch(expected: "other", found: tenant.tenantID)) {
                _ = try await tenants.authForTenant("other").verifyIDToken(idToken)
            }
            try await shop.setCustomUserClaims(user.uid, ["plan": .string("gold")])
            #expect(try await shop.getUser(uid: user.uid).customClaims?["plan"] == .string("gold"))
            try await shop.revokeRefreshTokens(uid: user.uid, now: Date().addingTimeInterval(5))
            await #expect(throws: TokenVerificationError.revoked) {
                _ = try await shop.verifySessionCookie(cookie, checkRevoked: true)
            }

            // Tenants a page at a time, in creation order; a deleted one is gone with its users.
            var ids = [tenant.tenantID]
            for index in 0..<4 {
                ids.append(try await tenants.createTenant(TenantRequest(displayName: "T\(index)")).tenantID)
            }
            let first = try await tenants.listTenants(pageSize: 3)
            #expect(first.pageToken != nil)
            let second = try await tenants.listTenants(pageSize: 3, pageToken: first.pageToken)
            #expect((first.tenants + second.tenants).map(\.tenantID) == ids && second.pageToken == nil)
            try await tenants.deleteTenant(tenant.tenantID)
            await #expect(throws: IdentityToolkitError.self) { _ = try await tenants.getTenant(tenant.tenantID) }
            #expect(try await tenants.listTenants().tenants.map(\.tenantID) == Array(ids.dropFirst()))
            await #expect(throws: IdentityToolkitError.self) { try await tenants.deleteTenant(tenant.tenantID) }
            await #expect(throws: IdentityToolkitError.self) { _ = try await shop.getUser(uid: user.uid) }
        }
    }
}
