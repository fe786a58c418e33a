#if Emulator
import Foundation
import IdentityToolkit

/// The account operations of `AccountsService` (sign-up, the password and
/// custom-token sign-ins, lookup, update, delete), each one rule on the
/// state: the realm's switches, the request's fields, then the token
/// (verified before the state was entered, read here where production
/// checks it), then the change.
extension AccountRules {
    /// A custom token's sign-in, verified before the state was entered.
    typealias VerifiedCustomToken = Result<CustomTokenVerifier.SignIn, any Error>

    /// A sign-up, linking a password to the user of `body.idToken` if it names one.
    static func signUp(
        _ state: inout EmulatorState, _ body: SignUpRequest, token: VerifiedIDToken, _ context: RuleContext
    ) throws -> (grant: SessionGrant, linked: EmulatedUser?) {
        // A user may not name the uid (an admin may).
        if body.localId != nil { throw APIServerError.unexpectedParameter("User ID") }
        let realm = try TenantRules.requestRealm(
            state, project: body.targetProjectId, tenant: body.tenantId, idToken: body.idToken, context)
        try TenantRules.checkAuthEnabled(state, realm)
        let linking = try body.idToken.flatMap {
            $0.isEmpty ? nil : try user(state, for: try token.get(), requestTenant: nil, context)
        }
        let grant = try signUp(
            &state, realm: realm, email: body.email, password: body.password, displayName: body.displayName,
            linking: linking, factors: body.mfaInfo ?? [], context)
        return (grant, linking)
    }

    static func signInWithPassword(
        _ state: inout EmulatorState, _ body: SignInWithPasswordRequest, emptyEmailSent: Bool,
        _ context: RuleContext
    ) throws -> PasswordSignIn {
        let realm = try TenantRules.requestRealm(state, tenant: body.tenantId, context)
        return try signInWithPassword(
            &state, realm: realm, email: body.email, password: body.password, emptyEmailSent: emptyEmailSent,
            context)
    }

    static func signInWithCustomToken(
        _ state: inout EmulatorState, _ body: SignInWithCustomTokenRequest, token: VerifiedCustomToken,
        _ context: RuleContext
    ) throws -> (grant: SessionGrant, isNewUser: Bool) {
        // The tenant the token names, read before its signature, against the request's.
        if let named = CustomTokenVerifier.namedTenant(body.token), let requested = body.tenantId,
            !requested.isEmpty, named != requested
        {
            throw APIServerError.tenantIdMismatch
        }
        let realm = try TenantRules.requestRealm(state, tenant: body.tenantId, context)
        try TenantRules.checkAuthEnabled(state, realm)
        guard !body.token.isEmpty else { throw APIServerError.missingCustomToken }
        let signIn = try token.get()
        if let named = signIn.tenantID, named != realm.tenant { throw APIServerError.tenantIdMismatch }
        return try signInWithCustomToken(
            &state, realm: realm, uid: signIn.uid, developerClaims: signIn.developerClaims, context)
    }

    /// The users a lookup finds: an admin's by its fields, else the ID token's user.
    static func lookup(
        _ state: EmulatorState, _ body: GetAccountInfoRequest, isAdmin: Bool, token: VerifiedIDToken,
        _ context: RuleContext
    ) throws -> [EmulatedUser] {
        let realm = try TenantRules.requestRealm(
            state, project: body.targetProjectId, tenant: body.tenantId, idToken: body.idToken, isAdmin: isAdmin,
            context)
        try TenantRules.checkAuthEnabled(state, realm)
        if isAdmin && body.idToken?.isEmpty != false {
            return AdminAccountRules.lookup(state, realm: realm, body)
        }
        return [try user(state, for: try token.get(), requestTenant: nil, context)]
    }

    /// An end user's (or an admin's) `accounts:update`.
    static func update(
        _ state: inout EmulatorState, _ body: SetAccountInfoRequest, isAdmin: Bool, token: VerifiedIDToken?,
        _ context: RuleContext
    ) throws -> AccountUpdateRules.Outcome {
        let realm = try TenantRules.requestRealm(
            state, project: body.targetProjectId, tenant: body.tenantId, idToken: body.idToken, isAdmin: isAdmin,
            context)
        try TenantRules.checkAuthEnabled(state, realm)
        return try AccountUpdateRules.update(
            &state, realm: realm, body, claims: try token?.get(), isAdmin: isAdmin, context)
    }

    /// `accounts:delete`: the user of an ID token deletes their account; an
    /// admin deletes the account `localId`.
    static func delete(
        _ state: inout EmulatorState, _ body: DeleteAccountRequest, isAdmin: Bool, token: VerifiedIDToken,
        _ context: RuleContext
    ) throws {
        let realm = try TenantRules.requestRealm(
            state, project: body.targetProjectId, tenant: body.tenantId, idToken: body.idToken, isAdmin: isAdmin,
            context)
        try TenantRules.checkAuthEnabled(state, realm)
        if isAdmin {
            guard let uid = body.localId, !uid.isEmpty else { throw APIServerError.missingLocalId }
            try AdminAccountRules.delete(&state, realm: realm, localId: uid)
        } else {
            let user = try user(state, for: try token.get(), requestTenant: nil, context)
            try AdminAccountRules.delete(&state, realm: user.realm, localId: user.localId)
        }
    }
}
#endif
