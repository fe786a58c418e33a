#if Emulator
import Foundation
import IdentityToolkit
import IdentityOTP

/// The v2 multi-factor operations of `AccountsService`: enrollment, sign-in
/// and withdrawal, TOTP (production's rules, `MultiFactorRules`) and SMS,
/// each checked in production's order (the realm's switches, then the
/// request's fields, then the token).
extension AccountsRoutes {
    /// The first factors production does not pair with a second one.
    static let ineligibleFirstFactors: Set<ProviderID> = [.anonymous, .phone]

    /// The user of an enrollment's ID token, eligible for a second factor.
    private func enrollingUser(_ state: EmulatorState, idToken: String, _ context: RuleContext) throws -> (
        EmulatedUser, IDTokenClaims
    ) {
        guard !idToken.isEmpty else { throw APIServerError.missingIdToken }
        let claims = try tokens.claims(of: idToken)
        let user = try AccountRules.user(state, for: claims, requestTenant: nil, context)
        if Self.ineligibleFirstFactors.contains(ProviderID(rawValue: claims.firebase.signInProvider)) {
            throw APIServerError.unsupportedFirstFactor("MFA is not available for the given first factor.")
        }
        return (user, claims)
    }

    func startMfaEnrollment(_ body: StartMfaEnrollmentRequest, request: APIServerRequest) async throws
        -> StartMfaEnrollmentResponse
    {
        if body.totpEnrollmentInfo != nil {
            let session = try await services.run { state, context in
                let realm = try Self.realm(
                    state, tenant: body.tenantId, idToken: body.idToken, isAdmin: false, context)
                try TenantRules.checkAuthEnabled(state, realm)
                let (user, claims) = try enrollingUser(state, idToken: body.idToken, context)
                return try MultiFactorRules.startTotpEnrollment(
                    &state, user: user, authTime: SessionTokens.facts(of: claims).authTime, context)
            }
            return StartMfaEnrollmentResponse(
                totpSessionInfo: StartTotpMfaEnrollmentResponseInfo(
                    sharedSecretKey: Base32.encode(session.secret),
                    verificationCodeLength: Int32(IdentityPlatformLimits.totpDigits),
                    hashingAlgorithm: HashAlgorithm.sha1.rawValue,
                    periodSec: Int32(IdentityPlatformLimits.totpPeriodSeconds),
                    sessionInfo: session.sessionInfo, finalizeEnrollmentTime: session.deadline))
        }
        let sessionInfo = try await services.run { state, context in
            let realm = try Self.realm(state, tenant: body.tenantId, idToken: body.idToken, isAdmin: false, context)
            try TenantRules.checkAuthEnabled(state, realm)
            try TenantRules.checkSMSFactorsEnabled(state, realm)
            let (user, claims) = try enrollingUser(state, idToken: body.idToken, context)
            guard user.emailVerified else {
                throw APIServerError.unverifiedEmail("Need to verify email first before enrolling second factors.")
            }
            guard let phone = body.phoneEnrollmentInfo else {
                throw APIServerError.invalidArgument("((Missing phoneEnrollmentInfo.))")
            }
            return try MultiFactorRules.startPhoneEnrollment(
                &state, user: user, phoneNumber: phone.phoneNumber ?? "",
                authTime: SessionTokens.facts(of: claims).authTime, context)
        }
        return StartMfaEnrollmentResponse(phoneSessionInfo: StartMfaPhoneResponseInfo(sessionInfo: sessionInfo))
    }

    func finalizeMfaEnrollment(_ body: FinalizeMfaEnrollmentRequest, request: APIServerRequest) async throws
        -> FinalizeMfaEnrollmentResponse
    {
        let grant = try await services.run { state, context in
            let realm = try Self.realm(state, tenant: body.tenantId, idToken: body.idToken, isAdmin: false, context)
            try TenantRules.checkAuthEnabled(state, realm)
            if let totp = body.totpVerificationInfo {
                let (user, claims) = try enrollingUser(state, idToken: body.idToken, context)
                return try MultiFactorRules.finalizeTotpEnrollment(
                    &state, user: user, sessionInfo: totp.sessionInfo, code: totp.verificationCode,
                    displayName: body.displayName, facts: SessionTokens.facts(of: claims), context)
            }
            try TenantRules.checkSMSFactorsEnabled(state, realm)
            let (user, claims) = try enrollingUser(state, idToken: body.idToken, context)
            guard let phone = body.phoneVerificationInfo else {
                throw APIServerError.invalidArgument("((Missing phoneVerificationInfo.))")
            }
            guard let code = phone.code, !code.isEmpty else { throw APIServerError.missingCode }
            guard let sessionInfo = phone.sessionInfo, !sessionInfo.isEmpty else {
                throw APIServerError.missingSessionInfo
            }
            return try MultiFactorRules.finalizePhoneEnrollment(
                &state, user: user, sessionInfo: sessionInfo, code: code,
                displayName: body.displayName, facts: SessionTokens.facts(of: claims), context)
        }
        return FinalizeMfaEnrollmentResponse(
            idToken: try tokens.idToken(for: grant), refreshToken: grant.refreshToken)
    }

    func withdrawMfa(_ body: WithdrawMfaRequest, request: APIServerRequest) async throws -> WithdrawMfaResponse {
        let grant = try await services.run { state, context in
            let realm = try Self.realm(state, tenant: body.tenantId, idToken: body.idToken, isAdmin: false, context)
            try TenantRules.checkAuthEnabled(state, realm)
            guard !body.idToken.isEmpty else { throw APIServerError.missingIdToken }
            let claims = try tokens.claims(of: body.idToken)
            let user = try AccountRules.user(state, for: claims, requestTenant: nil, context)
            return try MultiFactorRules.withdraw(
                &state, user: user, enrollmentID: body.mfaEnrollmentId, facts: SessionTokens.facts(of: claims),
                context)
        }
        // No grant: every session ended, the caller's too; the response has no tokens.
        guard let grant else { return WithdrawMfaResponse() }
        return WithdrawMfaResponse(idToken: try tokens.idToken(for: grant), refreshToken: grant.refreshToken)
    }

    func startMfaSignIn(_ body: StartMfaSignInRequest, request: APIServerRequest) async throws
        -> StartMfaSignInResponse
    {
        let sessionInfo = try await services.run { state, context in
            let realm = try Self.realm(state, tenant: body.tenantId, isAdmin: false, context)
            try TenantRules.checkAuthEnabled(state, realm)
            try TenantRules.checkSMSFactorsEnabled(state, realm)
            guard !body.mfaPendingCredential.isEmpty else {
                throw APIServerError.missingMfaPendingCredential("Request does not have MFA pending credential.")
            }
            guard !body.mfaEnrollmentId.isEmpty else {
                throw APIServerError.missingMfaEnrollmentId("No second factor identifier is provided.")
            }
            return try MultiFactorRules.startPhoneSignIn(
                &state, pendingCredential: body.mfaPendingCredential, enrollmentID: body.mfaEnrollmentId, context)
        }
        return StartMfaSignInResponse(phoneResponseInfo: StartMfaPhoneResponseInfo(sessionInfo: sessionInfo))
    }

    func finalizeMfaSignIn(_ body: FinalizeMfaSignInRequest, request: APIServerRequest) async throws
        -> FinalizeMfaSignInResponse
    {
        let grant = try await services.run { state, context in
            let realm = try Self.realm(state, tenant: body.tenantId, isAdmin: false, context)
            try TenantRules.checkAuthEnabled(state, realm)
            if let totp = body.totpVerificationInfo {
                guard !body.mfaPendingCredential.isEmpty else { throw APIServerError.missingMfaPendingCredential }
                guard let enrollmentID = body.mfaEnrollmentId, !enrollmentID.isEmpty else {
                    throw APIServerError.missingMfaEnrollmentId
                }
                return try MultiFactorRules.finalizeTotpSignIn(
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
            guard let code = phone.code, !code.isEmpty else { throw APIServerError.missingCode }
            guard let sessionInfo = phone.sessionInfo, !sessionInfo.isEmpty else {
                throw APIServerError.missingSessionInfo
            }
            return try MultiFactorRules.finalizePhoneSignIn(
                &state, pendingCredential: body.mfaPendingCredential, sessionInfo: sessionInfo,
                code: code, context)
        }
        // The second factor finishes the sign-in: production calls beforeSignIn now.
        let signedIn = try await services.blockingFunctions.signIn(
            grant,
            .init(
                method: grant.facts.provider.rawValue,
                userAgent: BlockingFunctionCalls.userAgent(of: request)))
        return FinalizeMfaSignInResponse(
            idToken: try tokens.idToken(for: signedIn), refreshToken: signedIn.refreshToken)
    }
}
#endif
