import Foundation
import IdentityToolkit
import OTP

/// Shared by the services: ID token issuing and checking.
struct SessionTokens: Sendable {
    let issuer: TokenIssuer
    let clock: EmulatorClock
    let project: String

    /// Signs the ID token of a grant (outside the store actor: RSA is the slow part).
    func idToken(for grant: SessionGrant) throws -> String {
        let now = Int64(clock.now.timeIntervalSince1970)
        var identities: [String: [String]] = [:]
        if let email = grant.email { identities["email"] = [email] }
        let claims = TokenIssuer.Claims(
            iss: TokenIssuerPrefix.idToken.rawValue + project, aud: project,
            authTime: Int64(grant.facts.authTime.timeIntervalSince1970), userID: grant.uid, sub: grant.uid,
            iat: now, exp: now + TokenIssuer.lifetime, email: grant.email, emailVerified: grant.email == nil ? nil : grant.emailVerified,
            firebase: FirebaseSignInClaims(identities: identities, signInProvider: grant.facts.provider, signInSecondFactor: grant.facts.secondFactor,
                                           secondFactorIdentifier: grant.facts.secondFactorID, tenant: grant.realm.tenant)
        )
        return try issuer.sign(claims, extraClaims: [grant.customAttributes, grant.facts.developerClaims].compactMap { $0 })
    }

    /// The claims of a valid, unexpired ID token.
    func claims(of idToken: String?) throws -> TokenIssuer.Claims {
        guard let idToken, !idToken.isEmpty else { throw APIServerError("MISSING_ID_TOKEN") }
        let claims: TokenIssuer.Claims
        do {
            claims = try issuer.verify(idToken)
        } catch {
            throw APIServerError("INVALID_ID_TOKEN")
        }
        guard Int64(clock.now.timeIntervalSince1970) < claims.exp else { throw APIServerError("TOKEN_EXPIRED") }
        return claims
    }

    static func facts(of claims: TokenIssuer.Claims) -> SessionFacts {
        SessionFacts(provider: claims.firebase.signInProvider, secondFactor: claims.firebase.signInSecondFactor,
                     secondFactorID: claims.firebase.secondFactorIdentifier, authTime: Date(timeIntervalSince1970: TimeInterval(claims.authTime)))
    }
}

/// Where out-of-band links point (the emulator's own address, known once
/// it listens), and the one place that builds them.
final class LinkBase: Sendable {
    private let base = Locked("http://127.0.0.1:9099")
    var value: String {
        get { base.current }
        set { base.withLock { $0 = newValue } }
    }

    /// The action link of a code, in Google's emulator's form:
    /// `/emulator/action?mode=…&lang=en&oobCode=…&apiKey=…[&tenantId=…]`.
    func actionLink(for code: OutOfBandCode) -> String {
        "\(value)/emulator/action?mode=\(Self.mode(code.requestType))&lang=en&oobCode=\(code.code)&apiKey=fake-api-key"
            + (code.realm.tenant.map { "&tenantId=\($0)" } ?? "")
    }

    /// Each kind of code and the `mode` of its action link (the Firebase
    /// action-URL parameter), read both ways.
    static let modes: [(requestType: OobRequestType, mode: EmailActionMode)] = [
        (.verifyEmail, .verifyEmail), (.passwordReset, .resetPassword), (.emailSignin, .signIn), (.verifyAndChangeEmail, .verifyAndChangeEmail),
    ]

    /// The `mode` of a code's action link.
    static func mode(_ requestType: OobRequestType) -> EmailActionMode {
        modes.first { $0.requestType == requestType }?.mode ?? .verifyAndChangeEmail
    }

    /// The kind of code an action link's `mode` is for; nil for an unknown mode.
    static func requestType(_ mode: EmailActionMode) -> OobRequestType? {
        modes.first { $0.mode == mode }?.requestType
    }
}

/// The end-user API (`AccountsService`, generated from the spec).
struct AccountsEmulation: AccountsService {
    let store: EmulatorStore
    let tokens: SessionTokens
    let links: LinkBase
    let customTokens: CustomTokenVerifier

    /// `+15555550100` → `+*******0100`, as sign-in hints show it.
    private static func mask(_ phoneNumber: String) -> String {
        phoneNumber.prefix(1) + String(repeating: "*", count: max(0, phoneNumber.count - 5)) + phoneNumber.suffix(4)
    }

    static func enrollments(_ factors: [SecondFactor], maskPhones: Bool) -> [MfaEnrollment] {
        factors.map { factor in
            MfaEnrollment(
                mfaEnrollmentId: factor.id, displayName: factor.displayName, enrolledAt: factor.enrolledAt,
                phoneInfo: factor.phoneNumber.map { maskPhones ? mask($0) : $0 }, totpInfo: factor.isTOTP ? TotpInfo() : nil
            )
        }
    }

    func signUp(_ body: SignUpRequest, request: APIServerRequest) async throws -> SignUpResponse {
        let realm = try await store.realm(tenant: body.tenantId)
        let grant = try await store.signUp(realm: realm, email: body.email, password: body.password, displayName: body.displayName)
        return SignUpResponse(localId: grant.uid, email: grant.email, displayName: grant.displayName, idToken: try tokens.idToken(for: grant),
                              refreshToken: grant.refreshToken, expiresIn: TokenIssuer.lifetime, kind: "identitytoolkit#SignupNewUserResponse")
    }

    func signInWithPassword(_ body: SignInWithPasswordRequest, request: APIServerRequest) async throws -> SignInWithPasswordResponse {
        let realm = try await store.realm(tenant: body.tenantId)
        switch try await store.signInWithPassword(realm: realm, email: body.email, password: body.password) {
        case .signedIn(let grant):
            return SignInWithPasswordResponse(
                localId: grant.uid, email: grant.email, displayName: grant.displayName ?? "", registered: true,
                idToken: try tokens.idToken(for: grant), refreshToken: grant.refreshToken, expiresIn: TokenIssuer.lifetime,
                kind: "identitytoolkit#VerifyPasswordResponse")
        case .secondFactorRequired(let credential, let uid, let email, let displayName, let factors):
            return SignInWithPasswordResponse(
                localId: uid, email: email, displayName: displayName ?? "", registered: true, mfaPendingCredential: credential,
                mfaInfo: Self.enrollments(factors, maskPhones: true), kind: "identitytoolkit#VerifyPasswordResponse")
        }
    }

    func signInWithCustomToken(_ body: SignInWithCustomTokenRequest, request: APIServerRequest) async throws -> SignInWithCustomTokenResponse {
        let signIn = try customTokens.verify(body.token)
        if let requested = body.tenantId, !requested.isEmpty, let named = signIn.tenantID, requested != named {
            throw APIServerError("TENANT_ID_MISMATCH")
        }
        let realm = try await store.realm(tenant: body.tenantId ?? signIn.tenantID)
        let (grant, isNewUser) = try await store.signInWithCustomToken(realm: realm, uid: signIn.uid, developerClaims: signIn.developerClaims)
        return SignInWithCustomTokenResponse(idToken: try tokens.idToken(for: grant), refreshToken: grant.refreshToken, expiresIn: TokenIssuer.lifetime,
                                             isNewUser: isNewUser, kind: "identitytoolkit#VerifyCustomTokenResponse")
    }

    func lookup(_ body: GetAccountInfoRequest, request: APIServerRequest) async throws -> GetAccountInfoResponse {
        let claims = try tokens.claims(of: body.idToken)
        let user = try await store.user(for: claims, requestTenant: body.tenantId)
        return GetAccountInfoResponse(users: [Self.userInfo(user)], kind: "identitytoolkit#GetAccountInfoResponse")
    }

    static func userInfo(_ user: EmulatedUser) -> UserInfo {
        UserInfo(
            localId: user.localId, email: user.email, emailVerified: user.emailVerified, displayName: user.displayName,
            disabled: user.disabled, createdAt: Int64(user.createdAt.timeIntervalSince1970 * 1000),
            lastLoginAt: user.lastLoginAt.map { Int64($0.timeIntervalSince1970 * 1000) },
            passwordUpdatedAt: user.passwordUpdatedAt.map { ($0.timeIntervalSince1970 * 1000).rounded() },
            validSince: Int64(user.validSince.timeIntervalSince1970), tenantId: user.realm.tenant, customAttributes: user.customAttributes,
            providerUserInfo: user.email.map { [ProviderUserInfo(providerId: "password", rawId: $0, federatedId: $0, email: $0, displayName: user.displayName)] } ?? [],
            mfaInfo: user.enrollments.isEmpty ? nil : enrollments(user.enrollments, maskPhones: false)
        )
    }

    func sendOobCode(_ body: GetOobCodeRequest, request: APIServerRequest) async throws -> GetOobCodeResponse {
        let code: OutOfBandCode
        switch body.requestType {
        case .verifyEmail:
            let claims = try tokens.claims(of: body.idToken)
            let user = try await store.user(for: claims, requestTenant: body.tenantId)
            code = try await store.createOobCode(requestType: body.requestType, uid: user.localId, email: nil, realm: user.realm)
        case .verifyAndChangeEmail:
            // The code goes to the new address; the account keeps the old one until it is applied.
            guard let newEmail = body.newEmail else { throw APIServerError("MISSING_NEW_EMAIL") }
            guard InputRules.isValidEmail(newEmail) else { throw APIServerError("INVALID_EMAIL") }
            let claims = try tokens.claims(of: body.idToken)
            let user = try await store.user(for: claims, requestTenant: body.tenantId)
            guard !(await store.adminLookup(realm: user.realm, localIds: [], emails: [newEmail])).contains(where: { $0.localId != user.localId }) else {
                throw APIServerError("EMAIL_EXISTS")
            }
            code = try await store.createOobCode(requestType: body.requestType, uid: user.localId, email: newEmail, realm: user.realm)
        case .passwordReset, .emailSignin:
            guard let email = body.email else { throw APIServerError("MISSING_EMAIL") }
            let realm = try await store.realm(tenant: body.tenantId)
            code = try await store.createOobCode(requestType: body.requestType, uid: nil, email: email, realm: realm)
        default:
            throw APIServerError.invalidArgument("unsupported requestType \(body.requestType.rawValue)")
        }
        return GetOobCodeResponse(email: code.email, kind: "identitytoolkit#GetOobConfirmationCodeResponse")
    }

    func update(_ body: SetAccountInfoRequest, request: APIServerRequest) async throws -> SetAccountInfoResponse {
        if let oobCode = body.oobCode {
            let user = try await store.applyOobCode(oobCode)
            return SetAccountInfoResponse(localId: user.localId, email: user.email, emailVerified: user.emailVerified,
                                          displayName: user.displayName, kind: "identitytoolkit#SetAccountInfoResponse")
        }
        let claims = try tokens.claims(of: body.idToken)
        let current = try await store.user(for: claims, requestTenant: body.tenantId)
        let user = try await store.updateProfile(current.localId, realm: current.realm, email: body.email, password: body.password,
                                                 displayName: body.displayName)
        return SetAccountInfoResponse(localId: user.localId, email: user.email, emailVerified: user.emailVerified,
                                      displayName: user.displayName, kind: "identitytoolkit#SetAccountInfoResponse")
    }

    func startMfaEnrollment(_ body: StartMfaEnrollmentRequest, request: APIServerRequest) async throws -> StartMfaEnrollmentResponse {
        let claims = try tokens.claims(of: body.idToken)
        let user = try await store.user(for: claims, requestTenant: body.tenantId)
        if let phone = body.phoneEnrollmentInfo {
            guard let number = phone.phoneNumber else { throw APIServerError("MISSING_PHONE_NUMBER") }
            let sessionInfo = try await store.startPhoneEnrollment(uid: user.localId, realm: user.realm, phoneNumber: number,
                                                                   authTime: SessionTokens.facts(of: claims).authTime)
            return StartMfaEnrollmentResponse(phoneSessionInfo: StartMfaPhoneResponseInfo(sessionInfo: sessionInfo))
        }
        guard body.totpEnrollmentInfo != nil else {
            throw APIServerError.invalidArgument("set totpEnrollmentInfo (or phoneEnrollmentInfo)")
        }
        let session = try await store.startTotpEnrollment(uid: user.localId, realm: user.realm, authTime: SessionTokens.facts(of: claims).authTime)
        return StartMfaEnrollmentResponse(totpSessionInfo: StartTotpMfaEnrollmentResponseInfo(
            sharedSecretKey: Base32.encode(session.secret), verificationCodeLength: Int32(EmulatorRules.totpDigits),
            hashingAlgorithm: "SHA1", periodSec: Int32(EmulatorRules.totpPeriod), sessionInfo: session.sessionInfo,
            finalizeEnrollmentTime: session.deadline))
    }

    func finalizeMfaEnrollment(_ body: FinalizeMfaEnrollmentRequest, request: APIServerRequest) async throws -> FinalizeMfaEnrollmentResponse {
        let claims = try tokens.claims(of: body.idToken)
        let user = try await store.user(for: claims, requestTenant: body.tenantId)
        let grant: SessionGrant
        if let totp = body.totpVerificationInfo {
            grant = try await store.finalizeTotpEnrollment(uid: user.localId, realm: user.realm, sessionInfo: totp.sessionInfo,
                                                           code: totp.verificationCode, displayName: body.displayName,
                                                           authTime: SessionTokens.facts(of: claims).authTime)
        } else if let phone = body.phoneVerificationInfo {
            guard let sessionInfo = phone.sessionInfo, let code = phone.code else { throw APIServerError("MISSING_CODE") }
            grant = try await store.finalizePhoneEnrollment(uid: user.localId, realm: user.realm, sessionInfo: sessionInfo, code: code,
                                                            displayName: body.displayName, facts: SessionTokens.facts(of: claims))
        } else {
            throw APIServerError.invalidArgument("set totpVerificationInfo (or phoneVerificationInfo)")
        }
        return FinalizeMfaEnrollmentResponse(idToken: try tokens.idToken(for: grant), refreshToken: grant.refreshToken)
    }

    func withdrawMfa(_ body: WithdrawMfaRequest, request: APIServerRequest) async throws -> WithdrawMfaResponse {
        let claims = try tokens.claims(of: body.idToken)
        let user = try await store.user(for: claims, requestTenant: body.tenantId)
        // No grant: every session ended, the caller's too; the response has no tokens.
        guard let grant = try await store.withdraw(uid: user.localId, realm: user.realm, enrollmentID: body.mfaEnrollmentId,
                                                   facts: SessionTokens.facts(of: claims)) else { return WithdrawMfaResponse() }
        return WithdrawMfaResponse(idToken: try tokens.idToken(for: grant), refreshToken: grant.refreshToken)
    }

    func startMfaSignIn(_ body: StartMfaSignInRequest, request: APIServerRequest) async throws -> StartMfaSignInResponse {
        let sessionInfo = try await store.startPhoneSignIn(pendingCredential: body.mfaPendingCredential, enrollmentID: body.mfaEnrollmentId)
        return StartMfaSignInResponse(phoneResponseInfo: StartMfaPhoneResponseInfo(sessionInfo: sessionInfo))
    }

    func finalizeMfaSignIn(_ body: FinalizeMfaSignInRequest, request: APIServerRequest) async throws -> FinalizeMfaSignInResponse {
        guard !body.mfaPendingCredential.isEmpty else { throw APIServerError("MISSING_MFA_PENDING_CREDENTIAL") }
        let grant: SessionGrant
        if let totp = body.totpVerificationInfo {
            guard let enrollmentID = body.mfaEnrollmentId, !enrollmentID.isEmpty else { throw APIServerError("MISSING_MFA_ENROLLMENT_ID") }
            grant = try await store.finalizeTotpSignIn(pendingCredential: body.mfaPendingCredential, enrollmentID: enrollmentID,
                                                       code: totp.verificationCode, requestTenant: body.tenantId)
        } else if let phone = body.phoneVerificationInfo {
            guard let sessionInfo = phone.sessionInfo, let code = phone.code else { throw APIServerError("MISSING_CODE") }
            grant = try await store.finalizePhoneSignIn(pendingCredential: body.mfaPendingCredential, sessionInfo: sessionInfo, code: code)
        } else {
            throw APIServerError.invalidArgument("set totpVerificationInfo (or phoneVerificationInfo)")
        }
        return FinalizeMfaSignInResponse(idToken: try tokens.idToken(for: grant), refreshToken: grant.refreshToken)
    }
}
