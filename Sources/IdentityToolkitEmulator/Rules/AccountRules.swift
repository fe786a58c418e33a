#if Emulator
import Crypto
import Foundation
import IdentityToolkit

/// Accounts and passwords as an end user meets them: signing up, signing in
/// with a password or a custom token, changing the profile; the tenant
/// switches that refuse them; how passwords are kept.
enum AccountRules {
    /// An enabled account of `realm` (`USER_NOT_FOUND`, `USER_DISABLED`).
    static func activeUser(_ state: EmulatorState, _ uid: String, in realm: Realm) throws -> EmulatedUser {
        guard let user = state.user(uid, in: realm) else { throw APIServerError.userNotFound }
        if user.disabled { throw APIServerError.userDisabled }
        return user
    }

    /// The account an ID token names, checked against the request's
    /// tenant: it must exist and be enabled, and the token must be issued
    /// after the account's sessions were last revoked (`TOKEN_EXPIRED`: a
    /// password change, for one, ends earlier tokens).
    static func user(
        _ state: EmulatorState, for claims: IDTokenClaims, requestTenant: String?, _ context: RuleContext
    ) throws -> EmulatedUser {
        if let requestTenant, !requestTenant.isEmpty, requestTenant != claims.tenant {
            throw APIServerError.tenantIdMismatch
        }
        guard claims.audience == context.defaultProject else {
            throw APIServerError.invalidIdToken("the token is for another project")
        }
        guard let user = state.user(claims.sub, in: Realm(project: context.defaultProject, tenant: claims.tenant))
        else {
            throw APIServerError.userNotFound
        }
        guard claims.isIssued(notBefore: user.validSince) else { throw APIServerError.tokenExpired }
        if user.disabled { throw APIServerError.userDisabled }
        return user
    }

    /// 28 letters and digits, as production's generated uids: no `-` or `_`,
    /// so a uid never reads as an option on a command line (`--uid -x…`).
    static func newUID() -> String {
        var generator = SystemRandomNumberGenerator()
        let alphabet = EmulatorRules.uidAlphabet
        return String(
            (0..<EmulatorRules.uidLength).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)]
            })
    }

    /// Signs a new user up: anonymous (no email or password) or with both,
    /// or gives an email and password to the signed-in `linking` user (an
    /// anonymous or phone user), checked in production's order: the realm's
    /// switches (`PROJECT_DISABLED`, `MISSING_EMAIL`, `MISSING_PASSWORD`,
    /// `OPERATION_NOT_ALLOWED`, `ADMIN_ONLY_OPERATION`), then the address
    /// and the password. An anonymous sign-up takes no profile; `factors`
    /// (phone) are enrolled as Google's emulator does.
    static func signUp(
        _ state: inout EmulatorState, realm: Realm, email: String?, password: String?, displayName: String?,
        linking: EmulatedUser? = nil, factors: [MfaFactor] = [], _ context: RuleContext
    ) throws -> SessionGrant {
        try TenantRules.checkAuthEnabled(state, realm)
        let switches = TenantRules.switches(state, of: realm)
        let sentEmail = email
        let email = email?.isEmpty == false ? email : nil
        let password = password?.isEmpty == false ? password : nil
        let isAnonymous = linking == nil && email == nil && password == nil
        if isAnonymous {
            guard switches.enableAnonymousUser else { throw APIServerError.adminOnlyOperation }
            // An empty address is no address: refused, not anonymous.
            if sentEmail == "" { throw APIServerError.invalidEmail }
        } else {
            guard email != nil else { throw APIServerError.missingEmail }
            guard password != nil else { throw APIServerError.missingPassword }
            guard switches.allowPasswordSignup else { throw APIServerError.operationNotAllowed }
        }
        if !isAnonymous { try InputRules.checkDisplayName(displayName) }
        try InputRules.checkPasswordLength(password)
        SessionRules.sweepExpiredState(&state, now: context.now)
        let now = context.now
        var user =
            linking
            ?? EmulatedUser(
                localId: newUID(), realm: realm, createdAt: now, isAnonymous: isAnonymous, validSince: now)
        user.lastLoginAt = now
        if !isAnonymous, let displayName { user.displayName = displayName }
        if let email, let password {
            guard InputRules.isValidEmail(email) else { throw APIServerError.invalidEmail }
            try state.checkEmailAvailable(email, for: linking?.localId, in: realm)
            try InputRules.checkNewPassword(password)
            user.email = InputRules.emailKey(email)
            if user.initialEmail == nil { user.initialEmail = user.email }
            user.password = .emulator(password)
            user.passwordUpdatedAt = now
            user.isAnonymous = false
            if linking != nil { SessionRules.revokeSessions(of: &user, at: now) }
        }
        if !factors.isEmpty {
            user.enrollments = try AdminAccountRules.newFactors(factors, of: user, context)
        }
        state.store(user)
        return SessionRules.grant(
            &state, for: user,
            facts: SessionFacts(provider: user.isAnonymous ? .anonymous : .password, authTime: now), context)
    }

    /// The outcome of a password sign-in: a session, or the pending
    /// credential of a sign-in that needs a second factor.
    enum PasswordSignIn: Sendable {
        case signedIn(SessionGrant)
        case secondFactorRequired(pendingCredential: String, user: EmulatedUser)
    }

    /// Checks the password; a user with second factors gets a pending
    /// credential that lasts ``SecondFactorRules/challengeLifetime``.
    /// `emptyEmailSent`: the body had `email: ""`, which production refuses
    /// as `INVALID_EMAIL` rather than `MISSING_EMAIL` (firebase-tools #5254
    /// shows production's answer).
    static func signInWithPassword(
        _ state: inout EmulatorState, realm: Realm, email: String, password: String,
        emptyEmailSent: Bool = false, _ context: RuleContext
    ) throws -> PasswordSignIn {
        try TenantRules.checkAuthEnabled(state, realm)
        guard TenantRules.switches(state, of: realm).allowPasswordSignup else {
            throw APIServerError.passwordLoginDisabled
        }
        guard !email.isEmpty || emptyEmailSent else { throw APIServerError.missingEmail }
        guard InputRules.isValidEmail(email) else { throw APIServerError.invalidEmail }
        guard !password.isEmpty else { throw APIServerError.missingPassword }
        try InputRules.checkPasswordLength(password)
        SessionRules.sweepExpiredState(&state, now: context.now)
        var user = try checkPassword(state, realm: realm, email: email, password: password, context)
        if user.disabled { throw APIServerError.userDisabled }
        let now = context.now
        if !user.enrollments.isEmpty {
            return .secondFactorRequired(
                pendingCredential: SessionRules.pendingCredential(&state, for: user, provider: .password, context),
                user: user)
        }
        user.lastLoginAt = now
        state.store(user)
        return .signedIn(
            SessionRules.grant(&state, for: user, facts: SessionFacts(provider: .password, authTime: now), context))
    }

    /// The account `email` names whose password is `password`. A failure
    /// is `INVALID_LOGIN_CREDENTIALS` either way under improved email
    /// privacy, `EMAIL_NOT_FOUND` or `INVALID_PASSWORD` otherwise; a hash
    /// the emulator cannot check is `UNSUPPORTED_PASSWORD_HASH` with why.
    static func checkPassword(
        _ state: EmulatorState, realm: Realm, email: String, password: String,
        _ context: RuleContext
    ) throws -> EmulatedUser {
        let private_ = state.improvedEmailPrivacy(of: realm.project, context)
        let candidates = state.accounts(in: realm).users(email: email)
        guard !candidates.isEmpty else {
            throw private_ ? APIServerError.invalidLoginCredentials : APIServerError.emailNotFound
        }
        var unverifiable: String?
        for user in candidates {
            guard let stored = user.password else { continue }
            switch PasswordRules.check(password, against: stored) {
            case .matches: return user
            case .doesNotMatch: continue
            case .cannotVerify(let reason): unverifiable = reason
            }
        }
        if let unverifiable { throw APIServerError.unsupportedPasswordHash(unverifiable) }
        throw private_ ? APIServerError.invalidLoginCredentials : APIServerError.invalidPassword
    }

    /// A custom-token sign-in: the user `uid`, created on first use (with no
    /// email or password); a disabled one is refused.
    static func signInWithCustomToken(
        _ state: inout EmulatorState, realm: Realm, uid: String, developerClaims: String?,
        _ context: RuleContext
    ) throws -> (grant: SessionGrant, isNewUser: Bool) {
        try TenantRules.checkAuthEnabled(state, realm)
        SessionRules.sweepExpiredState(&state, now: context.now)
        let now = context.now
        var user: EmulatedUser
        let isNewUser: Bool
        if let existing = state.user(uid, in: realm) {
            guard !existing.disabled else { throw APIServerError.userDisabled }
            user = existing
            isNewUser = false
        } else {
            SessionRules.forgetSessions(&state, of: UserKey(realm: realm, uid: uid))
            user = EmulatedUser(localId: uid, realm: realm, createdAt: now, isAnonymous: false, validSince: now)
            isNewUser = true
        }
        user.lastLoginAt = now
        state.store(user)
        let facts = SessionFacts(provider: .custom, authTime: now, developerClaims: developerClaims)
        return (SessionRules.grant(&state, for: user, facts: facts, context), isNewUser)
    }

    /// Changes email, password or display name; `byAdmin` also reaches a
    /// disabled account (a user's own token cannot).
    static func updateProfile(
        _ state: inout EmulatorState, _ uid: String, realm: Realm, email: String?, password: String?,
        displayName: String?, byAdmin: Bool = false, _ context: RuleContext
    ) throws -> EmulatedUser {
        try InputRules.checkDisplayName(displayName)
        try InputRules.checkPasswordLength(password)
        guard let found = state.user(uid, in: realm) else { throw APIServerError.userNotFound }
        var user = byAdmin ? found : try activeUser(state, uid, in: realm)
        if let email {
            guard InputRules.isValidEmail(email) else { throw APIServerError.invalidEmail }
            try state.checkEmailAvailable(email, for: uid, in: realm)
            if user.initialEmail == nil { user.initialEmail = user.email ?? InputRules.emailKey(email) }
            user.email = InputRules.emailKey(email)
            user.emailVerified = false
        }
        if let password {
            try InputRules.checkNewPassword(password)
            user.password = .emulator(password)
            user.passwordUpdatedAt = context.now
        }
        if let displayName { user.displayName = displayName }
        state.store(user)
        return user
    }

    /// Makes `email` the user's (a `VERIFY_AND_CHANGE_EMAIL` code applied):
    /// refused when another account took the address meanwhile.
    static func changeEmail(_ state: EmulatorState, of user: inout EmulatedUser, to email: String) throws {
        try state.checkEmailAvailable(email, for: user.localId, in: user.realm)
        if user.initialEmail == nil { user.initialEmail = user.email }
        user.email = InputRules.emailKey(email)
    }
}
#endif
