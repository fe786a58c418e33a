#if Emulator
import Foundation
import IdentityToolkit

/// An ID token's claims, verified before the serialised state is entered
/// (the RSA signature is the dearest part of a request): a rule reads the
/// result where production checks the token, so the order of its errors
/// stays production's.
typealias VerifiedIDToken = Result<IDTokenClaims, any Error>

/// The v2 multi-factor operations of `AccountsService`, each one rule on the
/// state: the realm's switches, then the request's fields, then the token,
/// in production's order, then the change. The route decodes, verifies the
/// token outside the state, runs the rule, and encodes.
extension MultiFactorRules {
    /// The first factors production does not pair with a second one.
    static let ineligibleFirstFactors: Set<ProviderID> = [.anonymous, .phone]

    /// What starting an enrollment made: a TOTP secret, or an SMS session.
    enum EnrollmentStart: Sendable {
        case totp(sessionInfo: String, secret: [UInt8], deadline: Date)
        case phone(sessionInfo: String)
    }

    static func startEnrollment(
        _ state: inout EmulatorState, _ body: StartMfaEnrollmentRequest, token: VerifiedIDToken,
        _ context: RuleContext
    ) throws -> EnrollmentStart {
        let realm = try TenantRules.requestRealm(state, tenant: body.tenantId, idToken: body.idToken, context)
        try TenantRules.checkAuthEnabled(state, realm)
        if body.totpEnrollmentInfo != nil {
            let (user, claims) = try enrollingUser(state, idToken: body.idToken, token: token, context)
            let started = try startTotpEnrollment(
                &state, user: user, authTime: SessionTokens.facts(of: claims).authTime, context)
            return .totp(sessionInfo: started.sessionInfo, secret: started.secret, deadline: started.deadline)
        }
        try TenantRules.checkSMSFactorsEnabled(state, realm)
        let (user, claims) = try enrollingUser(state, idToken: body.idToken, token: token, context)
        guard user.emailVerified else {
            throw APIServerError.unverifiedEmail("Need to verify email first before enrolling second factors.")
        }
        guard let phone = body.phoneEnrollmentInfo else {
            throw APIServerError.invalidArgument("((Missing phoneEnrollmentInfo.))")
        }
        return .phone(
            sessionInfo: try startPhoneEnrollment(
                &state, user: user, phoneNumber: phone.phoneNumber ?? "",
                authTime: SessionTokens.facts(of: claims).authTime, context))
    }

    static func finalizeEnrollment(
        _ state: inout EmulatorState, _ body: FinalizeMfaEnrollmentRequest, token: VerifiedIDToken,
        _ context: RuleContext
    ) throws -> SessionGrant {
        let realm = try TenantRules.requestRealm(state, tenant: body.tenantId, idToken: body.idToken, context)
        try TenantRules.checkAuthEnabled(state, realm)
        if let totp = body.totpVerificationInfo {
            let (user, claims) = try enrollingUser(state, idToken: body.idToken, token: token, context)
            return try finalizeTotpEnrollment(
                &state, user: user, sessionInfo: totp.sessionInfo, code: totp.verificationCode,
                displayName: body.displayName, facts: SessionTokens.facts(of: claims), context)
        }
        try TenantRules.checkSMSFactorsEnabled(state, realm)
        let (user, claims) = try enrollingUser(state, idToken: body.idToken, token: token, context)
        guard let phone = body.phoneVerificationInfo else {
            throw APIServerError.invalidArgument("((Missing phoneVerificationInfo.))")
        }
        let (code, sessionInfo) = try smsProof(phone)
        return try finalizePhoneEnrollment(
            &state, user: user, sessionInfo: sessionInfo, code: code, displayName: body.displayName,
            facts: SessionTokens.facts(of: claims), context)
    }

    /// No grant: every session ended, the caller's too.
    static func withdraw(
        _ state: inout EmulatorState, _ body: WithdrawMfaRequest, token: VerifiedIDToken, _ context: RuleContext
    ) throws -> SessionGrant? {
        let realm = try TenantRules.requestRealm(state, tenant: body.tenantId, idToken: body.idToken, context)
        try TenantRules.checkAuthEnabled(state, realm)
        guard !body.idToken.isEmpty else { throw APIServerError.missingIdToken }
        let claims = try token.get()
        let user = try AccountRules.user(state, for: claims, requestTenant: nil, context)
        return try withdraw(
            &state, user: user, enrollmentID: body.mfaEnrollmentId, facts: SessionTokens.facts(of: claims), context)
    }

    static func startSignIn(_ state: inout EmulatorState, _ body: StartMfaSignInRequest, _ context: RuleContext)
        throws -> String
    {
        let realm = try TenantRules.requestRealm(state, tenant: body.tenantId, idToken: nil, context)
        try TenantRules.checkAuthEnabled(state, realm)
        try TenantRules.checkSMSFactorsEnabled(state, realm)
        guard !body.mfaPendingCredential.isEmpty else {
            throw APIServerError.missingMfaPendingCredential("Request does not have MFA pending credential.")
        }
        guard !body.mfaEnrollmentId.isEmpty else {
            throw APIServerError.missingMfaEnrollmentId("No second factor identifier is provided.")
        }
        return try startPhoneSignIn(
            &state, pendingCredential: body.mfaPendingCredential, enrollmentID: body.mfaEnrollmentId, context)
    }

    static func finalizeSignIn(_ state: inout EmulatorState, _ body: FinalizeMfaSignInRequest, _ context: RuleContext)
        throws -> SessionGrant
    {
        let realm = try TenantRules.requestRealm(state, tenant: body.tenantId, idToken: nil, context)
        try TenantRules.checkAuthEnabled(state, realm)
        if let totp = body.totpVerificationInfo {
            guard !body.mfaPendingCredential.isEmpty else { throw APIServerError.missingMfaPendingCredential }
            guard let enrollmentID = body.mfaEnrollmentId, !enrollmentID.isEmpty else {
                throw APIServerError.missingMfaEnrollmentId
            }
            return try finalizeTotpSignIn(
                &state, pendingCredential: body.mfaPendingCredential, enrollmentID: enrollmentID,
                code: totp.verificationCode, requestTenant: body.tenantId, context)
        }
        try TenantRules.checkSMSFactorsEnabled(state, realm)
        guard !body.mfaPendingCredential.isEmpty else {
            throw APIServerError.missingCredential("Please set MFA Pending Credential.")
        }
        guard let phone = body.phoneVerificationInfo else {
            throw APIServerError.invalidArgument("MFA provider not supported!")
        }
        let (code, sessionInfo) = try smsProof(phone)
        return try finalizePhoneSignIn(
            &state, pendingCredential: body.mfaPendingCredential, sessionInfo: sessionInfo, code: code, context)
    }

    /// An SMS step's code and session, both required.
    private static func smsProof(_ phone: FinalizeMfaPhoneRequestInfo) throws -> (code: String, sessionInfo: String) {
        guard let code = phone.code, !code.isEmpty else { throw APIServerError.missingCode }
        guard let sessionInfo = phone.sessionInfo, !sessionInfo.isEmpty else {
            throw APIServerError.missingSessionInfo
        }
        return (code, sessionInfo)
    }

    /// The user of an enrollment's ID token, eligible for a second factor.
    private static func enrollingUser(
        _ state: EmulatorState, idToken: String, token: VerifiedIDToken, _ context: RuleContext
    ) throws -> (EmulatedUser, IDTokenClaims) {
        guard !idToken.isEmpty else { throw APIServerError.missingIdToken }
        let claims = try token.get()
        let user = try AccountRules.user(state, for: claims, requestTenant: nil, context)
        if ineligibleFirstFactors.contains(ProviderID(rawValue: claims.firebase.signInProvider)) {
            throw APIServerError.unsupportedFirstFactor("MFA is not available for the given first factor.")
        }
        return (user, claims)
    }
}
#endif
