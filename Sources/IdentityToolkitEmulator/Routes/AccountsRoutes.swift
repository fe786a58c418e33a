import Foundation
import IdentityToolkit
import OTP

/// The end-user API (`AccountsService`, generated from
/// `Spec/identitytoolkit-accounts.yaml`): each operation runs its rule on
/// the state and answers in the spec's shape.
struct AccountsRoutes: AccountsService {
    let services: EmulatorServices
    let customTokens: CustomTokenVerifier

    private var tokens: SessionTokens { services.tokens }

    func signUp(_ body: SignUpRequest, request: APIServerRequest) async throws -> SignUpResponse {
        let grant = try await services.run { state, context in
            let realm = try TenantRules.realm(state, tenant: body.tenantId, context)
            return try AccountRules.signUp(&state, realm: realm, email: body.email, password: body.password, displayName: body.displayName, context)
        }
        return SignUpResponse(localId: grant.uid, email: grant.email, displayName: grant.displayName, idToken: try tokens.idToken(for: grant),
                              refreshToken: grant.refreshToken, expiresIn: IdentityPlatformLimits.idTokenLifetimeSeconds,
                              kind: ResponseKind.signupNewUser.rawValue)
    }

    func signInWithPassword(_ body: SignInWithPasswordRequest, request: APIServerRequest) async throws -> SignInWithPasswordResponse {
        let outcome = try await services.run { state, context in
            let realm = try TenantRules.realm(state, tenant: body.tenantId, context)
            return try AccountRules.signInWithPassword(&state, realm: realm, email: body.email, password: body.password, context)
        }
        switch outcome {
        case .signedIn(let grant):
            return SignInWithPasswordResponse(
                localId: grant.uid, email: grant.email, displayName: grant.displayName ?? "", registered: true,
                idToken: try tokens.idToken(for: grant), refreshToken: grant.refreshToken, expiresIn: IdentityPlatformLimits.idTokenLifetimeSeconds,
                kind: ResponseKind.verifyPassword.rawValue)
        case .secondFactorRequired(let credential, let user):
            return SignInWithPasswordResponse(
                localId: user.localId, email: user.email, displayName: user.displayName ?? "", registered: true, mfaPendingCredential: credential,
                mfaInfo: AccountViews.enrollments(user.enrollments, maskPhones: true), kind: ResponseKind.verifyPassword.rawValue)
        }
    }

    func signInWithCustomToken(_ body: SignInWithCustomTokenRequest, request: APIServerRequest) async throws -> SignInWithCustomTokenResponse {
        let signIn = try customTokens.verify(body.token)
        if let requested = body.tenantId, !requested.isEmpty, let named = signIn.tenantID, requested != named {
            throw APIServerError.tenantIdMismatch
        }
        let (grant, isNewUser) = try await services.run { state, context in
            let realm = try TenantRules.realm(state, tenant: body.tenantId ?? signIn.tenantID, context)
            return try AccountRules.signInWithCustomToken(&state, realm: realm, uid: signIn.uid, developerClaims: signIn.developerClaims, context)
        }
        return SignInWithCustomTokenResponse(idToken: try tokens.idToken(for: grant), refreshToken: grant.refreshToken,
                                             expiresIn: IdentityPlatformLimits.idTokenLifetimeSeconds, isNewUser: isNewUser,
                                             kind: ResponseKind.verifyCustomToken.rawValue)
    }

    func lookup(_ body: GetAccountInfoRequest, request: APIServerRequest) async throws -> GetAccountInfoResponse {
        let claims = try tokens.claims(of: body.idToken)
        let user = try await services.run { state, context in try AccountRules.user(state, for: claims, requestTenant: body.tenantId, context) }
        return GetAccountInfoResponse(users: [AccountViews.userInfo(user)], kind: ResponseKind.getAccountInfo.rawValue)
    }

    func sendOobCode(_ body: GetOobCodeRequest, request: APIServerRequest) async throws -> GetOobCodeResponse {
        let claims: IDTokenClaims? = [.verifyEmail, .verifyAndChangeEmail].contains(body.requestType) ? try tokens.claims(of: body.idToken) : nil
        let code = try await services.run { state, context in
            switch body.requestType {
            case .verifyEmail:
                let user = try AccountRules.user(state, for: try claims.orThrow(), requestTenant: body.tenantId, context)
                return try OutOfBandRules.create(&state, requestType: body.requestType, uid: user.localId, email: nil, realm: user.realm)
            case .verifyAndChangeEmail:
                // The code goes to the new address; the account keeps the old one until it is applied.
                guard let newEmail = body.newEmail else { throw APIServerError.missingNewEmail }
                guard InputRules.isValidEmail(newEmail) else { throw APIServerError.invalidEmail }
                let user = try AccountRules.user(state, for: try claims.orThrow(), requestTenant: body.tenantId, context)
                if let owner = state.accounts(in: user.realm).user(email: newEmail), owner.localId != user.localId { throw APIServerError.emailExists }
                return try OutOfBandRules.create(&state, requestType: body.requestType, uid: user.localId, email: newEmail, realm: user.realm)
            case .passwordReset, .emailSignin:
                guard let email = body.email else { throw APIServerError.missingEmail }
                let realm = try TenantRules.realm(state, tenant: body.tenantId, context)
                return try OutOfBandRules.create(&state, requestType: body.requestType, uid: nil, email: email, realm: realm)
            default:
                throw APIServerError.invalidArgument("unsupported requestType \(body.requestType.rawValue)")
            }
        }
        return GetOobCodeResponse(email: code.email, kind: ResponseKind.getOobConfirmationCode.rawValue)
    }

    func update(_ body: SetAccountInfoRequest, request: APIServerRequest) async throws -> SetAccountInfoResponse {
        let user: EmulatedUser
        if let oobCode = body.oobCode {
            user = try await services.run { state, _ in try OutOfBandRules.apply(&state, code: oobCode) }
        } else {
            let claims = try tokens.claims(of: body.idToken)
            user = try await services.run { state, context in
                let current = try AccountRules.user(state, for: claims, requestTenant: body.tenantId, context)
                return try AccountRules.updateProfile(&state, current.localId, realm: current.realm, email: body.email, password: body.password,
                                                      displayName: body.displayName, context)
            }
        }
        return SetAccountInfoResponse(localId: user.localId, email: user.email, emailVerified: user.emailVerified,
                                      displayName: user.displayName, kind: ResponseKind.setAccountInfo.rawValue)
    }

    func startMfaEnrollment(_ body: StartMfaEnrollmentRequest, request: APIServerRequest) async throws -> StartMfaEnrollmentResponse {
        let claims = try tokens.claims(of: body.idToken)
        let authTime = SessionTokens.facts(of: claims).authTime
        if let phone = body.phoneEnrollmentInfo {
            guard let number = phone.phoneNumber else { throw APIServerError.missingPhoneNumber }
            let sessionInfo = try await services.run { state, context in
                let user = try AccountRules.user(state, for: claims, requestTenant: body.tenantId, context)
                return try MultiFactorRules.startPhoneEnrollment(&state, user: user, phoneNumber: number, authTime: authTime, context)
            }
            return StartMfaEnrollmentResponse(phoneSessionInfo: StartMfaPhoneResponseInfo(sessionInfo: sessionInfo))
        }
        guard body.totpEnrollmentInfo != nil else { throw APIServerError.invalidArgument("set totpEnrollmentInfo (or phoneEnrollmentInfo)") }
        let session = try await services.run { state, context in
            let user = try AccountRules.user(state, for: claims, requestTenant: body.tenantId, context)
            return try MultiFactorRules.startTotpEnrollment(&state, user: user, authTime: authTime, context)
        }
        return StartMfaEnrollmentResponse(totpSessionInfo: StartTotpMfaEnrollmentResponseInfo(
            sharedSecretKey: Base32.encode(session.secret), verificationCodeLength: Int32(IdentityPlatformLimits.totpDigits),
            hashingAlgorithm: "SHA1", periodSec: Int32(IdentityPlatformLimits.totpPeriodSeconds), sessionInfo: session.sessionInfo,
            finalizeEnrollmentTime: session.deadline))
    }

    func finalizeMfaEnrollment(_ body: FinalizeMfaEnrollmentRequest, request: APIServerRequest) async throws -> FinalizeMfaEnrollmentResponse {
        let claims = try tokens.claims(of: body.idToken)
        let facts = SessionTokens.facts(of: claims)
        let grant = try await services.run { state, context in
            let user = try AccountRules.user(state, for: claims, requestTenant: body.tenantId, context)
            if let totp = body.totpVerificationInfo {
                return try MultiFactorRules.finalizeTotpEnrollment(&state, user: user, sessionInfo: totp.sessionInfo, code: totp.verificationCode,
                                                                   displayName: body.displayName, facts: facts, context)
            }
            if let phone = body.phoneVerificationInfo {
                guard let sessionInfo = phone.sessionInfo, let code = phone.code else { throw APIServerError.missingCode }
                return try MultiFactorRules.finalizePhoneEnrollment(&state, user: user, sessionInfo: sessionInfo, code: code,
                                                                    displayName: body.displayName, facts: facts, context)
            }
            throw APIServerError.invalidArgument("set totpVerificationInfo (or phoneVerificationInfo)")
        }
        return FinalizeMfaEnrollmentResponse(idToken: try tokens.idToken(for: grant), refreshToken: grant.refreshToken)
    }

    func withdrawMfa(_ body: WithdrawMfaRequest, request: APIServerRequest) async throws -> WithdrawMfaResponse {
        let claims = try tokens.claims(of: body.idToken)
        let grant = try await services.run { state, context in
            let user = try AccountRules.user(state, for: claims, requestTenant: body.tenantId, context)
            return try MultiFactorRules.withdraw(&state, user: user, enrollmentID: body.mfaEnrollmentId, facts: SessionTokens.facts(of: claims), context)
        }
        // No grant: every session ended, the caller's too; the response has no tokens.
        guard let grant else { return WithdrawMfaResponse() }
        return WithdrawMfaResponse(idToken: try tokens.idToken(for: grant), refreshToken: grant.refreshToken)
    }

    func startMfaSignIn(_ body: StartMfaSignInRequest, request: APIServerRequest) async throws -> StartMfaSignInResponse {
        let sessionInfo = try await services.run { state, context in
            try MultiFactorRules.startPhoneSignIn(&state, pendingCredential: body.mfaPendingCredential, enrollmentID: body.mfaEnrollmentId, context)
        }
        return StartMfaSignInResponse(phoneResponseInfo: StartMfaPhoneResponseInfo(sessionInfo: sessionInfo))
    }

    func finalizeMfaSignIn(_ body: FinalizeMfaSignInRequest, request: APIServerRequest) async throws -> FinalizeMfaSignInResponse {
        guard !body.mfaPendingCredential.isEmpty else { throw APIServerError.missingMfaPendingCredential }
        let grant = try await services.run { state, context in
            if let totp = body.totpVerificationInfo {
                guard let enrollmentID = body.mfaEnrollmentId, !enrollmentID.isEmpty else { throw APIServerError.missingMfaEnrollmentId }
                return try MultiFactorRules.finalizeTotpSignIn(&state, pendingCredential: body.mfaPendingCredential, enrollmentID: enrollmentID,
                                                               code: totp.verificationCode, requestTenant: body.tenantId, context)
            }
            if let phone = body.phoneVerificationInfo {
                guard let sessionInfo = phone.sessionInfo, let code = phone.code else { throw APIServerError.missingCode }
                return try MultiFactorRules.finalizePhoneSignIn(&state, pendingCredential: body.mfaPendingCredential, sessionInfo: sessionInfo,
                                                                code: code, context)
            }
            throw APIServerError.invalidArgument("set totpVerificationInfo (or phoneVerificationInfo)")
        }
        return FinalizeMfaSignInResponse(idToken: try tokens.idToken(for: grant), refreshToken: grant.refreshToken)
    }
}

extension Optional where Wrapped == IDTokenClaims {
    /// The claims checked before the rule ran (`MISSING_ID_TOKEN` when there were none).
    func orThrow() throws -> IDTokenClaims {
        guard let self else { throw APIServerError.missingIdToken }
        return self
    }
}
