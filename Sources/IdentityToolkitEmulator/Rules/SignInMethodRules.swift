#if Emulator
import Foundation
import IdentityToolkit

/// First factors besides the password and custom tokens: phone numbers
/// (SMS codes the emulator lists instead of sending) and email links, and
/// what `createAuthUri` tells about an address. Production's checks, in
/// its order.
enum SignInMethodRules {
    /// The outcome of a sign-in that may need a second factor.
    enum SignIn: Sendable {
        case signedIn(SessionGrant, user: EmulatedUser, isNewUser: Bool)
        case secondFactorRequired(pendingCredential: String, user: EmulatedUser)
    }

    /// "Sends" a sign-in code to a phone number (not in a tenant, as production).
    static func sendVerificationCode(
        _ state: inout EmulatorState, realm: Realm, phoneNumber: String?, _ context: RuleContext
    ) throws -> String {
        try TenantRules.checkAuthEnabled(state, realm)
        guard realm.tenant == nil else { throw APIServerError.unsupportedTenantOperation }
        // Production answers INVALID_PHONE_NUMBER for a missing number too.
        guard let phoneNumber, MultiFactorRules.isPhoneNumber(phoneNumber) else {
            throw APIServerError.invalidPhoneNumber("Invalid format.")
        }
        if let user = state.user(phoneNumber: phoneNumber, in: realm), !user.enrollments.isEmpty {
            throw APIServerError.unsupportedFirstFactor(
                "A phone number cannot be set as a first factor on an SMS based MFA user.")
        }
        return MultiFactorRules.sendCode(&state, to: phoneNumber, realm: realm, purpose: .firstFactor, context)
    }

    /// What a phone sign-in gives: a sign-in, or, when the number belongs
    /// to another account than the one it was to be linked to, a
    /// `temporaryProof` that it was verified (production answers 200 with
    /// it, so that the client can use the number elsewhere without a new code).
    enum PhoneSignIn: Sendable {
        case signIn(SignIn)
        case numberTaken(temporaryProof: String, phoneNumber: String)
    }

    /// Signs in (or up, or links to `tokenUser`) with a verified phone
    /// number: an SMS code and its session, or a `temporaryProof` (once)
    /// with the number it proves.
    static func signInWithPhoneNumber(
        _ state: inout EmulatorState, realm: Realm, sessionInfo: String?, code: String?, temporaryProof: String?,
        proofPhoneNumber: String?, tokenUser: EmulatedUser?, _ context: RuleContext
    ) throws -> PhoneSignIn {
        try TenantRules.checkAuthEnabled(state, realm)
        guard realm.tenant == nil else { throw APIServerError.unsupportedTenantOperation }
        let phoneNumber: String
        let proven = temporaryProof?.isEmpty == false
        if let temporaryProof, proven {
            guard let proof = state.outOfBand.phoneVerifications[temporaryProof],
                case .temporaryProof = proof.purpose, proof.realm == realm,
                context.now < proof.expiresAt, proof.phoneNumber == proofPhoneNumber
            else { throw APIServerError.invalidTemporaryProof }
            state.outOfBand.phoneVerifications.remove(temporaryProof)
            phoneNumber = proof.phoneNumber
        } else {
            guard let sessionInfo, !sessionInfo.isEmpty else { throw APIServerError.missingSessionInfo }
            guard let code, !code.isEmpty else { throw APIServerError.missingCode }
            guard let pending = state.outOfBand.phoneVerifications[sessionInfo], case .firstFactor = pending.purpose
            else {
                throw APIServerError.invalidSessionInfo
            }
            phoneNumber = try MultiFactorRules.takeVerification(&state, sessionInfo, code: code, context)
                .phoneNumber
        }
        let owner = state.user(phoneNumber: phoneNumber, in: realm)
        if let owner, let tokenUser, owner.localId != tokenUser.localId {
            if proven { throw APIServerError.phoneNumberExists }
            let proof = Data.randomToken(bytes: 32)
            state.outOfBand.phoneVerifications.append(
                PhoneVerification(
                    sessionInfo: proof, phoneNumber: phoneNumber, code: "", realm: realm, purpose: .temporaryProof,
                    expiresAt: context.now.addingTimeInterval(EmulatorRules.enrollmentDeadline)),
                key: proof)
            return .numberTaken(temporaryProof: proof, phoneNumber: phoneNumber)
        }
        let now = context.now
        var user: EmulatedUser
        let isNewUser: Bool
        if let existing = tokenUser ?? owner {
            if existing.disabled { throw APIServerError.userDisabled }
            if !existing.enrollments.isEmpty {
                throw APIServerError.unsupportedFirstFactor(
                    "A phone number cannot be set as a first factor on an SMS based MFA user.")
            }
            user = existing
            isNewUser = false
        } else {
            user = EmulatedUser(
                localId: AccountRules.newUID(), realm: realm, createdAt: now, isAnonymous: false, validSince: now)
            SessionRules.forgetSessions(&state, of: user.key)
            isNewUser = true
        }
        user.phoneNumber = phoneNumber
        user.isAnonymous = false
        user.lastLoginAt = now
        state.store(user)
        return .signIn(
            .signedIn(
                SessionRules.grant(
                    &state, for: user, facts: SessionFacts(provider: .phone, authTime: now), context),
                user: user, isNewUser: isNewUser))
    }

    /// Signs in (or up, or links to `tokenUser`) the address of an
    /// `EMAIL_SIGNIN` code; the address becomes verified.
    static func signInWithEmailLink(
        _ state: inout EmulatorState, realm: Realm, email: String?, oobCode: String?, tokenUser: EmulatedUser?,
        _ context: RuleContext
    ) throws -> SignIn {
        guard let email, !email.isEmpty else { throw APIServerError.missingEmail }
        let canonical = InputRules.emailKey(email)
        guard let oobCode, !oobCode.isEmpty else { throw APIServerError.missingOobCode }
        guard let entry = state.outOfBand.oobCodes[oobCode], entry.requestType == .emailSignin, entry.realm == realm
        else {
            throw APIServerError.invalidOobCode
        }
        guard entry.email == canonical else {
            throw APIServerError.invalidEmail("The email provided does not match the sign-in email address.")
        }
        state.outOfBand.oobCodes.remove(oobCode)
        let owner = state.accounts(in: realm).user(email: canonical)
        if let owner, let tokenUser, owner.localId != tokenUser.localId { throw APIServerError.emailExists }
        let now = context.now
        var user: EmulatedUser
        let isNewUser: Bool
        if let existing = tokenUser ?? owner {
            if existing.disabled { throw APIServerError.userDisabled }
            user = existing
            isNewUser = false
        } else {
            user = EmulatedUser(
                localId: AccountRules.newUID(), realm: realm, createdAt: now, isAnonymous: false, validSince: now)
            SessionRules.forgetSessions(&state, of: user.key)
            isNewUser = true
        }
        if user.initialEmail == nil { user.initialEmail = canonical }
        user.email = canonical
        user.emailVerified = true
        user.emailLinkSignin = true
        user.isAnonymous = false
        if !user.enrollments.isEmpty {
            state.store(user)
            return .secondFactorRequired(
                pendingCredential: SessionRules.pendingCredential(&state, for: user, provider: .password, context),
                user: user)
        }
        user.lastLoginAt = now
        state.store(user)
        return .signedIn(
            SessionRules.grant(&state, for: user, facts: SessionFacts(provider: .password, authTime: now), context),
            user: user, isNewUser: isNewUser)
    }

    /// Whether an address has an account and how it signs in; under
    /// improved email privacy production tells neither (nil).
    static func authURI(
        _ state: EmulatorState, realm: Realm, identifier: String?, continueUri: String?, providerId: String?,
        _ context: RuleContext
    ) throws -> (registered: Bool, providers: [String], methods: [String])? {
        try TenantRules.checkAuthEnabled(state, realm)
        if providerId?.isEmpty == false {
            throw APIServerError.notImplemented("Sign-in with IDP is not yet supported.")
        }
        guard let identifier, !identifier.isEmpty else { throw APIServerError.missingIdentifier }
        guard let continueUri, !continueUri.isEmpty else { throw APIServerError.missingContinueUri }
        guard InputRules.isValidEmail(identifier) else { throw APIServerError.invalidIdentifier }
        guard InputRules.isAbsoluteURI(continueUri) else { throw APIServerError.invalidContinueUri }
        guard !state.improvedEmailPrivacy(of: realm.project, context) else { return nil }
        // The account of the address, else one a linked provider's address belongs to.
        let accounts = state.accounts(in: realm)
        guard let user = accounts.user(email: identifier) ?? accounts.user(providerEmail: identifier) else {
            return (false, [], [])
        }
        var providers: [String] = []
        var methods: [String] = []
        if user.password != nil || user.emailLinkSignin {
            providers.append(ProviderID.password.rawValue)
            if user.password != nil { methods.append(ProviderID.password.rawValue) }
            if user.emailLinkSignin { methods.append(SignInMethod.emailLink.rawValue) }
        }
        // Where several accounts may share an address, an IdP's sign-in
        // does not lead to this one: its methods are not offered.
        if state.projects[realm.project]?.allowDuplicateEmails != true {
            for linked in user.linkedProviders {
                providers.append(linked.providerId)
                methods.append(linked.providerId)
            }
        }
        return (true, providers, methods)
    }
}
#endif
