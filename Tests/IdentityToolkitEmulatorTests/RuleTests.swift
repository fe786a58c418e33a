import Foundation
import IdentityOTP
import IdentityToolkit
import Testing

@testable import IdentityToolkitEmulator

/// The rule types on a plain state value, without HTTP: each area's rules
/// are functions of (state, request, context).
@Suite struct RuleTests {
    static let project = "rules"
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func context(at date: Date = start, _ edit: (inout SecondFactorRules) -> Void = { _ in }) -> RuleContext {
        var rules = SecondFactorRules()
        edit(&rules)
        return RuleContext(now: date, defaultProject: project, secondFactors: rules)
    }

    static let realm = Realm(project: project, tenant: nil)

    /// Sets the project's multi-factor config through the config rule.
    static func setMFA(_ state: inout EmulatorState, project: String, mask: String, _ mfa: MultiFactorAuthConfig) throws
    {
        try ProjectConfigRules.update(&state, project: project, mask: mask, ProjectConfig(mfa: mfa), context())
    }

    /// Expects `body` to throw the server error `code`.
    static func expectError(
        _ code: APIServerError, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
    ) {
        do {
            try body()
            Issue.record("expected \(code.shortCode)", sourceLocation: sourceLocation)
        } catch let error as APIServerError {
            #expect(error.shortCode == code.shortCode, "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
        }
    }

    /// A state whose project has TOTP on and one verified user.
    static func stateWithVerifiedUser() throws -> (EmulatorState, EmulatedUser) {
        var state = EmulatorState()
        try RuleTests.setMFA(
            &state, project: project, mask: "mfa",
            MultiFactorAuthConfig(
                providerConfigs: [
                    MfaProviderConfig(state: .enabled, totpProviderConfig: TotpMfaProviderConfig(adjacentIntervals: 1))
                ]))
        let grant = try AccountRules.signUp(
            &state, realm: realm, email: "ada@example.com", password: "secret-pw", displayName: nil, context())
        var user = try #require(state.user(grant.uid, in: realm))
        user.emailVerified = true
        state.store(user)
        return (state, user)
    }

    // MARK: Accounts and passwords

    @Test func accountRules() throws {
        var state = EmulatorState()
        let grant = try AccountRules.signUp(
            &state, realm: Self.realm, email: "Ada@Example.com", password: "secret-pw", displayName: "Ada",
            Self.context())
        #expect(grant.facts.provider == .password && grant.uid.count == 28)
        Self.expectError(.emailExists) {
            _ = try AccountRules.signUp(
                &state, realm: Self.realm, email: "ada@example.com", password: "x-secret", displayName: nil,
                Self.context())
        }
        Self.expectError(.weakPassword) {
            _ = try AccountRules.signUp(
                &state, realm: Self.realm, email: "b@example.com", password: "short", displayName: nil, Self.context())
        }
        Self.expectError(.missingPassword) {
            _ = try AccountRules.signUp(
                &state, realm: Self.realm, email: "b@example.com", password: nil, displayName: nil, Self.context())
        }
        Self.expectError(.invalidLoginCredentials) {
            _ = try AccountRules.signInWithPassword(
                &state, realm: Self.realm, email: "ada@example.com", password: "wrong-pw", Self.context())
        }
        guard
            case .signedIn(let signedIn) = try AccountRules.signInWithPassword(
                &state, realm: Self.realm, email: "ADA@example.com", password: "secret-pw", Self.context())
        else {
            Issue.record("expected a session")
            return
        }
        #expect(signedIn.uid == grant.uid)
        let anonymous = try AccountRules.signUp(
            &state, realm: Self.realm, email: nil, password: nil, displayName: nil, Self.context())
        #expect(anonymous.facts.provider == .anonymous)
        // Passwords are kept as Google's emulator keeps them, so that exports move both ways.
        let stored = try #require(state.user(grant.uid, in: Self.realm))
        guard case .emulator(let password, let salt)? = stored.password else {
            Issue.record("expected the emulator's form")
            return
        }
        #expect(password == "secret-pw" && salt.hasPrefix("fakeSalt"))
        #expect(stored.email == "ada@example.com" && stored.initialEmail == "ada@example.com")
    }

    /// The project's settings: sign-in errors with and without improved
    /// email privacy; several accounts per address when allowed.
    @Test func emailPrivacyAndDuplicateAddresses() throws {
        var state = EmulatorState()
        _ = try AccountRules.signUp(
            &state, realm: Self.realm, email: "ada@example.com", password: "secret-pw", displayName: nil, Self.context()
        )
        func signIn(_ email: String, _ password: String, _ context: RuleContext = Self.context()) throws {
            _ = try AccountRules.signInWithPassword(
                &state, realm: Self.realm, email: email, password: password, context)
        }
        Self.expectError(.invalidLoginCredentials) { try signIn("nobody@example.com", "secret-pw") }
        Self.expectError(.invalidLoginCredentials) { try signIn("ada@example.com", "wrong-pw") }
        state.projects[Self.project]?.improvedEmailPrivacy = false
        Self.expectError(.emailNotFound) { try signIn("nobody@example.com", "secret-pw") }
        Self.expectError(.invalidPassword) { try signIn("ada@example.com", "wrong-pw") }
        // The emulator's default applies until the project chooses.
        var legacy = Self.context()
        legacy.improvedEmailPrivacyByDefault = false
        var fresh = EmulatorState()
        Self.expectError(.emailNotFound) {
            _ = try AccountRules.signInWithPassword(
                &fresh, realm: Self.realm, email: "a@example.com", password: "secret-pw", legacy)
        }

        Self.expectError(.emailExists) {
            _ = try AccountRules.signUp(
                &state, realm: Self.realm, email: "ADA@example.com", password: "other-pw", displayName: nil,
                Self.context())
        }
        state.projects[Self.project]?.allowDuplicateEmails = true
        let second = try AccountRules.signUp(
            &state, realm: Self.realm, email: "ADA@example.com", password: "other-pw", displayName: nil, Self.context())
        #expect(state.accounts(in: Self.realm).users(email: "ada@example.com").count == 2)
        // Each password finds its own account.
        guard
            case .signedIn(let grant) = try AccountRules.signInWithPassword(
                &state, realm: Self.realm, email: "ada@example.com", password: "other-pw", Self.context())
        else {
            Issue.record("expected a session")
            return
        }
        #expect(grant.uid == second.uid)
    }

    @Test func adminAccountRules() throws {
        var state = EmulatorState()
        let created = try AdminAccountRules.create(
            &state, realm: Self.realm, .init(localId: "u-1", email: "a@example.com", password: "secret-pw"),
            Self.context())
        Self.expectError(.duplicateLocalId) {
            _ = try AdminAccountRules.create(&state, realm: Self.realm, .init(localId: "u-1"), Self.context())
        }
        let disabled = try AccountUpdateRules.update(
            &state, realm: Self.realm,
            SetAccountInfoRequest(
                localId: created.localId, disableUser: true,
                validSince: 1_900_000_000),
            claims: nil, isAdmin: true, Self.context()
        ).user
        #expect(disabled.disabled && disabled.tokenGeneration == 1)
        // Only an admin names an account by uid.
        Self.expectError(.invalidReqType) {
            _ = try AccountUpdateRules.update(
                &state, realm: Self.realm, SetAccountInfoRequest(localId: created.localId), claims: nil, isAdmin: false,
                Self.context())
        }
        Self.expectError(.userDisabled) { _ = try AccountRules.activeUser(state, created.localId, in: Self.realm) }
        for index in 0..<5 {
            _ = try AdminAccountRules.create(&state, realm: Self.realm, .init(localId: "v-\(index)"), Self.context())
        }
        let page = AdminAccountRules.list(state, realm: Self.realm, pageSize: 4, after: nil)
        #expect(page.users.map(\.localId) == ["u-1", "v-0", "v-1", "v-2"] && page.lastUID == "v-2")
        try AdminAccountRules.delete(&state, realm: Self.realm, localId: "u-1")
        #expect(
            AdminAccountRules.lookup(state, realm: Self.realm, localIds: ["u-1"], emails: ["a@example.com"]).isEmpty)
    }

    // MARK: Second factors

    @Test func multiFactorRules() throws {
        var (state, user) = try Self.stateWithVerifiedUser()
        let facts = SessionFacts(provider: .password, authTime: Self.start)
        let started = try MultiFactorRules.startTotpEnrollment(&state, user: user, authTime: Self.start, Self.context())
        let totp = try TOTP(key: started.secret)
        let code = try totp.code(at: Self.start)
        let wrong = code == "000000" ? "111111" : "000000"
        Self.expectError(.invalidCode) {
            _ = try MultiFactorRules.finalizeTotpEnrollment(
                &state, user: user, sessionInfo: started.sessionInfo, code: wrong, displayName: "App", facts: facts,
                Self.context())
        }
        #expect(state.sessions.enrollmentSessions[started.sessionInfo]?.failedAttempts == 1)
        let enrolled = try MultiFactorRules.finalizeTotpEnrollment(
            &state, user: user, sessionInfo: started.sessionInfo, code: code, displayName: "App",
            facts: facts, Self.context())
        #expect(enrolled.facts.secondFactor == .totp && enrolled.facts.provider == .password)
        user = try #require(state.user(user.localId, in: Self.realm))
        Self.expectError(.secondFactorExists) { try MultiFactorRules.checkCanEnroll(state, user) }
        // A sign-in challenge: five wrong codes, then every code is refused.
        guard
            case .secondFactorRequired(let pending, _) = try AccountRules.signInWithPassword(
                &state, realm: Self.realm, email: "ada@example.com",
                password: "secret-pw", Self.context())
        else {
            Issue.record("expected a challenge")
            return
        }
        let enrollmentID = try #require(user.enrollments.first?.id)
        for _ in 0..<5 {
            Self.expectError(.invalidCode) {
                _ = try MultiFactorRules.finalizeTotpSignIn(
                    &state, pendingCredential: pending, enrollmentID: enrollmentID, code: wrong, requestTenant: nil,
                    Self.context())
            }
        }
        Self.expectError(.tooManyAttemptsTryLater) {
            _ = try MultiFactorRules.finalizeTotpSignIn(
                &state, pendingCredential: pending, enrollmentID: enrollmentID,
                code: try totp.code(at: Self.start.addingTimeInterval(30)), requestTenant: nil, Self.context())
        }
        #expect(state.sessions.pendingCredentials[pending] == nil)
        // Too old a sign-in cannot withdraw the factor.
        Self.expectError(.credentialTooOldLoginAgain) {
            _ = try MultiFactorRules.withdraw(
                &state, user: user, enrollmentID: enrollmentID, facts: facts,
                Self.context(at: Self.start.addingTimeInterval(301)))
        }
        let withdrawn = try MultiFactorRules.withdraw(
            &state, user: user, enrollmentID: enrollmentID, facts: facts,
            Self.context(at: Self.start.addingTimeInterval(60)))
        #expect(withdrawn?.facts.authTime == Self.start.addingTimeInterval(60))
    }

    @Test func phoneFactorRules() throws {
        var (state, user) = try Self.stateWithVerifiedUser()
        Self.expectError(.operationNotAllowed) {
            _ = try MultiFactorRules.startPhoneEnrollment(
                &state, user: user, phoneNumber: "+15555550100", authTime: Self.start, Self.context())
        }
        try RuleTests.setMFA(
            &state, project: Self.project, mask: "mfa.enabledProviders",
            MultiFactorAuthConfig(enabledProviders: [.phoneSms]))
        Self.expectError(.invalidPhoneNumber) {
            _ = try MultiFactorRules.startPhoneEnrollment(
                &state, user: user, phoneNumber: "5555550100", authTime: Self.start, Self.context())
        }
        let sessionInfo = try MultiFactorRules.startPhoneEnrollment(
            &state, user: user, phoneNumber: "+15555550100", authTime: Self.start, Self.context())
        let sent = try #require(MultiFactorRules.listVerificationCodes(state, realm: Self.realm).first)
        let grant = try MultiFactorRules.finalizePhoneEnrollment(
            &state, user: user, sessionInfo: sessionInfo, code: sent.code, displayName: "Phone",
            facts: SessionFacts(provider: .password, authTime: Self.start), Self.context())
        #expect(grant.facts.secondFactor == .phone)
        user = try #require(state.user(user.localId, in: Self.realm))
        #expect(user.enrollments.first?.phoneNumber == "+15555550100")
    }

    // MARK: Out-of-band codes

    @Test func outOfBandRules() throws {
        var (state, user) = try Self.stateWithVerifiedUser()
        func send(_ email: String, _ context: RuleContext = Self.context()) throws -> OutOfBandCode? {
            try OutOfBandRules.send(
                &state, realm: Self.realm, OutOfBandRules.Request(requestType: .passwordReset, email: email), context
            ).code
        }
        // An unknown address: nothing sent and nothing said under improved email privacy, EMAIL_NOT_FOUND without it.
        #expect(try send("nobody@example.com") == nil)
        var legacy = Self.context()
        legacy.improvedEmailPrivacyByDefault = false
        Self.expectError(.emailNotFound) { _ = try send("nobody@example.com", legacy) }
        Self.expectError(.missingReqType) {
            _ = try OutOfBandRules.send(&state, realm: Self.realm, OutOfBandRules.Request(), Self.context())
        }
        let reset = try #require(try send("ada@example.com"))
        Self.expectError(.invalidOobCode) {
            _ = try OutOfBandRules.applyActionLink(
                &state, code: reset.code, requestType: .verifyEmail, newPassword: nil, Self.context())
        }
        Self.expectError(.weakPassword) {
            _ = try OutOfBandRules.applyActionLink(
                &state, code: reset.code, requestType: .passwordReset, newPassword: "x", Self.context())
        }
        #expect(
            try OutOfBandRules.applyActionLink(
                &state, code: reset.code, requestType: .passwordReset, newPassword: "new-secret", Self.context())
                == "ada@example.com")
        user = try #require(state.user(user.localId, in: Self.realm))
        #expect(user.tokenGeneration == 1)
        Self.expectError(.invalidOobCode) {
            _ = try OutOfBandRules.applyToAccount(&state, code: reset.code, Self.context())
        }
        #expect(OutOfBandRules.list(state, realm: Self.realm).isEmpty)
    }

    // MARK: Sessions and tokens

    /// In Google-compatible mode a refresh token reads as Google's
    /// emulator's (base64 JSON naming the user), yet only the token the
    /// emulator issued works: one edited to name another user names no session.
    @Test func readableRefreshTokensAreStillOnlyKeys() throws {
        var (state, user) = try Self.stateWithVerifiedUser()
        var compatible = Self.context()
        compatible.googleCompatible = true
        let grant = SessionRules.grant(
            &state, for: user, facts: SessionFacts(provider: .password, authTime: Self.start), compatible)
        let record = try JSONDecoder().decode(
            ReadableRefreshToken.self, from: try #require(Data(base64Encoded: grant.refreshToken)))
        #expect(
            record.localId == user.localId && record.provider == "password" && record.marker == "DO NOT MODIFY"
                && record.token.count > 20)
        #expect(try SessionRules.refresh(state, token: grant.refreshToken).uid == user.localId)
        var edited = record
        edited.localId = "someone-else"
        let forged = try JSONEncoder().encode(edited).base64EncodedString()
        Self.expectError(.invalidRefreshToken) { _ = try SessionRules.refresh(state, token: forged) }
    }

    @Test func sessionRules() throws {
        var (state, user) = try Self.stateWithVerifiedUser()
        let grant = SessionRules.grant(
            &state, for: user, facts: SessionFacts(provider: .password, authTime: Self.start), Self.context())
        #expect(try SessionRules.refresh(state, token: grant.refreshToken).uid == user.localId)
        SessionRules.revokeSessions(of: &user, at: Self.start.addingTimeInterval(10))
        state.store(user)
        Self.expectError(.tokenExpired) { _ = try SessionRules.refresh(state, token: grant.refreshToken) }
        Self.expectError(.invalidRefreshToken) { _ = try SessionRules.refresh(state, token: "nope") }
        Self.expectError(.credentialTooOldLoginAgain) {
            try SessionRules.checkRecentSignIn(Self.start, Self.context(at: Self.start.addingTimeInterval(301)))
        }
        try SessionRules.checkRecentSignIn(
            Self.start, Self.context(at: Self.start.addingTimeInterval(120)) { $0.recentSignIn = .seconds(200) })
        // A sweep forgets the revoked session's token.
        SessionRules.sweepExpiredState(&state, now: Self.start.addingTimeInterval(3600))
        #expect(state.sessions.refreshTokens[grant.refreshToken] == nil)
    }

    // MARK: Tenants and config

    @Test func tenantRules() throws {
        var state = EmulatorState()
        Self.expectError(.tenantNotFound) { _ = try TenantRules.realm(state, tenant: "nope", Self.context()) }
        let tenant = try TenantRules.createTenant(
            &state, project: Self.project, Tenant(displayName: "Shop", allowPasswordSignup: false))
        let id = try #require(tenant.name?.split(separator: "/").last.map(String.init))
        let realm = try TenantRules.realm(state, tenant: id, Self.context())
        Self.expectError(.operationNotAllowed) {
            _ = try AccountRules.signUp(
                &state, realm: realm, email: "a@example.com", password: "secret-pw", displayName: nil, Self.context())
        }
        let updated = try TenantRules.updateTenant(
            &state, project: Self.project, id: id, mask: "allowPasswordSignup", Tenant(allowPasswordSignup: true))
        #expect(updated.allowPasswordSignup == true && updated.displayName == "Shop")
        Self.expectError(.invalidArgument) {
            _ = try TenantRules.updateTenant(&state, project: Self.project, id: id, mask: "nope", Tenant())
        }
        Self.expectError(.invalidArgument) {
            try RuleTests.setMFA(
                &state, project: Self.project, mask: "mfa",
                MultiFactorAuthConfig(
                    providerConfigs: [
                        MfaProviderConfig(
                            state: .enabled, totpProviderConfig: TotpMfaProviderConfig(adjacentIntervals: 11))
                    ]))
        }
        #expect(TenantRules.totpWindow(state, of: realm) == nil)
        try TenantRules.deleteTenant(&state, project: Self.project, id: id)
        #expect(!state.exists(realm))
    }

    /// The state is a plain Codable value: it survives a JSON round trip whole.
    @Test func theStateIsCodable() throws {
        var (state, user) = try Self.stateWithVerifiedUser()
        _ = try MultiFactorRules.startTotpEnrollment(&state, user: user, authTime: Self.start, Self.context())
        _ = try TenantRules.createTenant(&state, project: Self.project, Tenant(displayName: "Shop"))
        let data = try JSONEncoder().encode(state)
        let decoded = try JSONDecoder().decode(EmulatorState.self, from: data)
        #expect(try JSONEncoder().encode(decoded).count == data.count)
        #expect(decoded.user(user.localId, in: Self.realm)?.email == "ada@example.com")
        #expect(decoded.sessions.enrollmentSessions.count == 1 && decoded.projects[Self.project]?.tenants.count == 1)
    }
}
