#if Emulator
import Foundation
import IdentityToolkit

/// The sign-in methods of `AccountsService` besides the password and
/// custom tokens: phone numbers, email links, password resets by code,
/// and `createAuthUri`.
extension AccountsRoutes {
    func resetPassword(_ body: ResetPasswordRequest, request: APIServerRequest) async throws
        -> ResetPasswordResponse
    {
        let (entry, factor) = try await services.run { state, context in
            try SignInMethodRules.resetPassword(&state, body, context)
        }
        // An email sign-in code does not name its address: the app asks the user.
        let isSignIn = entry.requestType == .emailSignin
        return ResetPasswordResponse(
            email: isSignIn ? nil : entry.email, newEmail: entry.newEmail, requestType: entry.requestType,
            kind: ResponseKind.resetPassword.rawValue,
            mfaInfo: factor.flatMap { AccountViews.enrollments([$0], maskPhones: true).first })
    }

    func createAuthUri(_ body: CreateAuthUriRequest, request: APIServerRequest) async throws
        -> CreateAuthUriResponse
    {
        let found = try await services.run { state, context in
            try SignInMethodRules.createAuthUri(state, body, context)
        }
        // The caller's session id, else a new one (as production).
        let session = body.sessionId?.isEmpty == false ? body.sessionId! : Data.randomToken(bytes: 20)
        guard let found else {
            return CreateAuthUriResponse(sessionId: session, kind: ResponseKind.createAuthUri.rawValue)
        }
        return CreateAuthUriResponse(
            registered: found.registered, allProviders: found.providers, signinMethods: found.methods,
            sessionId: session, kind: ResponseKind.createAuthUri.rawValue)
    }

    /// Fake reCAPTCHA parameters, as Google's emulator answers: the
    /// emulator never checks a reCAPTCHA token, so these only let a web
    /// client's phone sign-in reach `sendVerificationCode`.
    func getRecaptchaParams(request: APIServerRequest) async throws -> GetRecaptchaParamResponse {
        GetRecaptchaParamResponse(
            kind: ResponseKind.getRecaptchaParam.rawValue, recaptchaSiteKey: Self.fakeRecaptchaSiteKey,
            recaptchaStoken: Self.fakeRecaptchaToken)
    }

    static let fakeRecaptchaSiteKey = "fake-recaptcha-site-key__the-auth-emulator-does-not-check-recaptcha"
    static let fakeRecaptchaToken = "fake-recaptcha-token__do-not-send-to-recaptcha"

    func sendVerificationCode(_ body: SendVerificationCodeRequest, request: APIServerRequest) async throws
        -> SendVerificationCodeResponse
    {
        let sessionInfo = try await services.run { state, context in
            try SignInMethodRules.sendVerificationCode(&state, body, context)
        }
        return SendVerificationCodeResponse(sessionInfo: sessionInfo)
    }

    func signInWithPhoneNumber(_ body: SignInWithPhoneNumberRequest, request: APIServerRequest) async throws
        -> SignInWithPhoneNumberResponse
    {
        let token = tokens.verify(body.idToken)
        let (outcome, before) = try await services.run { state, context in
            try SignInMethodRules.signInWithPhoneNumber(&state, body, token: token, context)
        }
        let signIn: SignInMethodRules.SignIn
        switch outcome {
        case .numberTaken(let proof, let phoneNumber):
            return SignInWithPhoneNumberResponse(phoneNumber: phoneNumber, temporaryProof: proof)
        case .signIn(let result):
            signIn = result
        }
        switch signIn {
        case .signedIn(let signedIn, let user, let isNewUser):
            let grant = try await services.blockingFunctions.signIn(
                signedIn,
                .init(
                    method: ProviderID.phone.rawValue, isNewUser: isNewUser, previous: before?[user.localId],
                    userAgent: BlockingFunctionCalls.userAgent(of: request)))
            return SignInWithPhoneNumberResponse(
                idToken: try tokens.idToken(for: grant), refreshToken: grant.refreshToken,
                expiresIn: IdentityPlatformLimits.idTokenLifetimeSeconds, localId: user.localId,
                isNewUser: isNewUser, phoneNumber: user.phoneNumber)
        case .secondFactorRequired(let credential, let user):
            return SignInWithPhoneNumberResponse(
                localId: user.localId, phoneNumber: user.phoneNumber, mfaPendingCredential: credential,
                mfaInfo: AccountViews.enrollments(user.enrollments, maskPhones: true))
        }
    }

    func signInWithEmailLink(_ body: SignInWithEmailLinkRequest, request: APIServerRequest) async throws
        -> SignInWithEmailLinkResponse
    {
        let token = tokens.verify(body.idToken)
        let (outcome, before) = try await services.run { state, context in
            try SignInMethodRules.signInWithEmailLink(&state, body, token: token, context)
        }
        switch outcome {
        case .signedIn(let signedIn, let user, let isNewUser):
            let grant = try await services.blockingFunctions.signIn(
                signedIn,
                .init(
                    method: SignInMethod.emailLink.rawValue, isNewUser: isNewUser, previous: before?[user.localId],
                    userAgent: BlockingFunctionCalls.userAgent(of: request)))
            return SignInWithEmailLinkResponse(
                idToken: try tokens.idToken(for: grant), refreshToken: grant.refreshToken,
                expiresIn: IdentityPlatformLimits.idTokenLifetimeSeconds, localId: user.localId, email: user.email,
                isNewUser: isNewUser, kind: ResponseKind.emailLinkSignin.rawValue)
        case .secondFactorRequired(let credential, let user):
            return SignInWithEmailLinkResponse(
                localId: user.localId, email: user.email, mfaPendingCredential: credential,
                mfaInfo: AccountViews.enrollments(user.enrollments, maskPhones: true),
                kind: ResponseKind.emailLinkSignin.rawValue)
        }
    }

    func signInWithIdp(_ body: SignInWithIdpRequest, request: APIServerRequest) async throws
        -> SignInWithIdpResponse
    {
        let assertion: IdentityProviderRules.Assertion
        do {
            assertion = try IdentityProviderRules.assertion(requestUri: body.requestUri, postBody: body.postBody)
        } catch {
            try await services.run { state, context in try IdentityProviderRules.checkRealm(state, body, context) }
            throw error
        }
        var response = SignInWithIdpResponse(
            kind: ResponseKind.verifyAssertion.rawValue, providerId: assertion.providerId,
            federatedId: IdentityProviderRules.federatedId(
                providerId: assertion.providerId, rawId: assertion.rawId), email: assertion.email,
            emailVerified: assertion.emailVerified, displayName: assertion.displayName,
            photoUrl: assertion.photoUrl,
            rawUserInfo: assertion.rawUserInfo, oauthIdToken: assertion.idToken,
            oauthAccessToken: Self.fakeAccessToken(assertion.providerId),
            tenantId: body.tenantId)
        response.fullName = assertion.displayName
        response.firstName = assertion.firstName
        response.lastName = assertion.lastName
        response.screenName = assertion.screenName
        let outcome: IdentityProviderRules.Outcome
        let before: AccountTable?
        let token = tokens.verify(body.idToken)
        do {
            (outcome, before) = try await services.run { state, context in
                try IdentityProviderRules.signIn(&state, body, assertion, token: token, context)
            }
        } catch let error as APIServerError
            where body.returnIdpCredential == true
            && IdentityProviderRules.linkingConflicts.contains(error.shortCode)
        {
            // With returnIdpCredential, a linking conflict comes back in the
            // response (with the IdP's credential, to link elsewhere); every
            // other refusal stays an error, as in production.
            response.errorMessage = error.message
            return response
        }
        switch outcome {
        case .signedIn(let signedIn, let user, let isNewUser):
            // Linking a provider signs in again: beforeSignIn, as production.
            let grant = try await services.blockingFunctions.signIn(
                signedIn,
                .init(
                    method: assertion.providerId, isNewUser: isNewUser, previous: before?[user.localId],
                    rawUserInfo: assertion.rawUserInfo,
                    providerTokens: .init(idToken: assertion.idToken, accessToken: response.oauthAccessToken),
                    userAgent: BlockingFunctionCalls.userAgent(of: request)))
            response.localId = user.localId
            response.isNewUser = isNewUser
            if user.email == assertion.email { response.emailVerified = user.emailVerified }
            response.idToken = try tokens.idToken(for: grant)
            response.refreshToken = grant.refreshToken
            response.expiresIn = IdentityPlatformLimits.idTokenLifetimeSeconds
        case .secondFactorRequired(let credential, let user):
            response.localId = user.localId
            response.mfaPendingCredential = credential
            response.mfaInfo = AccountViews.enrollments(user.enrollments, maskPhones: true)
        case .needConfirmation(let localId, let providers):
            response.localId = localId
            response.needConfirmation = true
            response.verifiedProvider = providers
        }
        return response
    }

    /// The access token Google's emulator makes up for a provider, so that
    /// clients that want one get one.
    static func fakeAccessToken(_ providerId: String) -> String {
        "FirebaseAuthEmulatorFakeAccessToken_\(providerId)"
    }
}
#endif
