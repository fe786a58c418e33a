#if Emulator
import Foundation
import IdentityToolkit

/// The sign-in methods of `AccountsService` besides the password and custom
/// tokens (phone numbers, email links, identity providers, password resets
/// by code, `createAuthUri`, out-of-band codes), each one rule on the state:
/// the realm and its switches, the request's fields, the token (verified
/// before the state was entered), then the change. A sign-in also returns
/// the realm's accounts as they were, for the blocking functions' `previous`.
extension SignInMethodRules {
    /// What a sign-in reads before it changes the state: the user of an
    /// optional ID token (one to link the new method to), and the realm's
    /// accounts as they were.
    static func linkingAndBefore(
        _ state: EmulatorState, realm: Realm, idToken: String?, token: VerifiedIDToken, _ context: RuleContext
    ) throws -> (linking: EmulatedUser?, before: AccountTable?) {
        var linking: EmulatedUser?
        if let idToken, !idToken.isEmpty {
            linking = try AccountRules.user(state, for: try token.get(), requestTenant: nil, context)
        }
        return (linking, BlockingFunctionCalls.accountsBefore(state, realm))
    }

    /// A password reset by code; the factor a revert code removes, while it is enrolled.
    static func resetPassword(
        _ state: inout EmulatorState, _ body: ResetPasswordRequest, _ context: RuleContext
    ) throws -> (entry: OutOfBandCode, revertedFactor: SecondFactor?) {
        let realm = try TenantRules.requestRealm(state, tenant: body.tenantId, isAdmin: false, context)
        let entry = try OutOfBandRules.resetPassword(
            &state, code: body.oobCode, newPassword: body.newPassword, realm: realm, context)
        let factor = entry.mfaEnrollmentID.flatMap { id in
            entry.uid.flatMap { state.user($0, in: entry.realm) }?.enrollments.first { $0.id == id }
        }
        return (entry, factor)
    }

    static func createAuthUri(_ state: EmulatorState, _ body: CreateAuthUriRequest, _ context: RuleContext) throws
        -> (registered: Bool, providers: [String], methods: [String])?
    {
        let realm = try TenantRules.requestRealm(state, tenant: body.tenantId, isAdmin: false, context)
        return try authURI(
            state, realm: realm, identifier: body.identifier, continueUri: body.continueUri,
            providerId: body.providerId, context)
    }

    static func sendVerificationCode(
        _ state: inout EmulatorState, _ body: SendVerificationCodeRequest, _ context: RuleContext
    ) throws -> String {
        let realm = try TenantRules.requestRealm(state, tenant: body.tenantId, isAdmin: false, context)
        return try sendVerificationCode(&state, realm: realm, phoneNumber: body.phoneNumber, context)
    }

    static func signInWithPhoneNumber(
        _ state: inout EmulatorState, _ body: SignInWithPhoneNumberRequest, token: VerifiedIDToken,
        _ context: RuleContext
    ) throws -> (outcome: PhoneSignIn, before: AccountTable?) {
        let realm = try TenantRules.requestRealm(
            state, tenant: body.tenantId, idToken: body.idToken, isAdmin: false, context)
        let (linking, before) = try linkingAndBefore(
            state, realm: realm, idToken: body.idToken, token: token, context)
        let outcome = try signInWithPhoneNumber(
            &state, realm: realm, sessionInfo: body.sessionInfo, code: body.code,
            temporaryProof: body.temporaryProof, proofPhoneNumber: body.phoneNumber, tokenUser: linking, context)
        return (outcome, before)
    }

    static func signInWithEmailLink(
        _ state: inout EmulatorState, _ body: SignInWithEmailLinkRequest, token: VerifiedIDToken,
        _ context: RuleContext
    ) throws -> (outcome: SignIn, before: AccountTable?) {
        let realm = try TenantRules.requestRealm(
            state, tenant: body.tenantId, idToken: body.idToken, isAdmin: false, context)
        try TenantRules.checkAuthEnabled(state, realm)
        guard TenantRules.switches(state, of: realm).enableEmailLinkSignin else {
            throw APIServerError.operationNotAllowed
        }
        let (linking, before) = try linkingAndBefore(
            state, realm: realm, idToken: body.idToken, token: token, context)
        let outcome = try signInWithEmailLink(
            &state, realm: realm, email: body.email, oobCode: body.oobCode, tokenUser: linking, context)
        return (outcome, before)
    }
}

extension IdentityProviderRules {
    /// The realm's switches, checked before a credential's fields
    /// (`PROJECT_DISABLED` before `MISSING_REQUEST_URI`) when the
    /// credential cannot be read.
    static func checkRealm(_ state: EmulatorState, _ body: SignInWithIdpRequest, _ context: RuleContext) throws {
        try TenantRules.checkAuthEnabled(
            state,
            try TenantRules.requestRealm(
                state, tenant: body.tenantId, idToken: body.idToken, isAdmin: false, context))
    }

    /// A sign-in (or a link) with the provider's read credential.
    static func signIn(
        _ state: inout EmulatorState, _ body: SignInWithIdpRequest, _ assertion: Assertion, token: VerifiedIDToken,
        _ context: RuleContext
    ) throws -> (outcome: Outcome, before: AccountTable?) {
        let realm = try TenantRules.requestRealm(
            state, tenant: body.tenantId, idToken: body.idToken, isAdmin: false, context)
        let (linking, before) = try SignInMethodRules.linkingAndBefore(
            state, realm: realm, idToken: body.idToken, token: token, context)
        return (try signIn(&state, realm: realm, assertion, linking: linking, context), before)
    }
}

extension OutOfBandRules {
    /// `accounts:sendOobCode`, for a user or an admin (`project` is the
    /// admin's path project): the realm, the token a verification needs,
    /// then the code.
    static func send(
        _ state: inout EmulatorState, _ body: GetOobCodeRequest, project: String?, isAdmin: Bool,
        token: VerifiedIDToken, _ context: RuleContext
    ) throws -> (code: OutOfBandCode?, email: String) {
        let realm = try TenantRules.requestRealm(
            state, project: isAdmin ? project : body.targetProjectId, tenant: body.tenantId, idToken: body.idToken,
            isAdmin: isAdmin, context)
        var tokenUser: EmulatedUser?
        let needsToken =
            [OobRequestType.verifyEmail, .verifyAndChangeEmail].contains(body.requestType)
            && !(body.returnOobLink == true && body.idToken?.isEmpty != false)
        if needsToken {
            try TenantRules.checkAuthEnabled(state, realm)
            if body.requestType == .verifyAndChangeEmail, body.newEmail?.isEmpty != false {
                throw APIServerError.missingNewEmail
            }
            // Without a token: an address change names it missing; a
            // verification reads an empty one (INVALID_ID_TOKEN), as Google's emulator.
            guard body.idToken?.isEmpty == false else {
                throw body.requestType == .verifyAndChangeEmail
                    ? APIServerError.missingIdToken : APIServerError.invalidIdToken
            }
            tokenUser = try AccountRules.user(state, for: try token.get(), requestTenant: nil, context)
        }
        return try send(
            &state, realm: realm,
            Request(
                requestType: body.requestType, email: body.email, newEmail: body.newEmail, tokenUser: tokenUser,
                hasIDToken: body.idToken?.isEmpty == false, returnOobLink: body.returnOobLink == true,
                continueUrl: body.continueUrl, isAdmin: isAdmin), context)
    }
}
#endif
