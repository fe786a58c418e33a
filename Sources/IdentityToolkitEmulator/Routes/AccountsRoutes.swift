#if Emulator
import Foundation
import IdentityToolkit
import IdentityOTP

/// The end-user API (`AccountsService`, generated from
/// `Spec/identitytoolkit-accounts.yaml`): each operation settles its realm
/// (``TenantRules/requestRealm(_:project:tenant:tokenTenant:isAdmin:_:)``),
/// runs its rule on the state and answers in the spec's shape. An admin
/// (`Bearer owner`) may call them too, with the admin fields (`localId`,
/// `targetProjectId`), as production allows. Sign-in methods other than
/// the password are in `SignInMethodRoutes.swift`; second factors in
/// `MultiFactorRoutes.swift`.
struct AccountsRoutes: AccountsService {
    let services: EmulatorServices
    let customTokens: CustomTokenVerifier

    var tokens: SessionTokens { services.tokens }

    func signUp(_ body: SignUpRequest, request: APIServerRequest) async throws -> SignUpResponse {
        let isAdmin = services.isAdmin(request)
        if isAdmin {
            let project = body.targetProjectId?.isEmpty == false ? body.targetProjectId! : services.defaultProject
            return try await AdminRoutes.create(body, project: project, viaSignUp: true, services: services)
        }
        let token = tokens.verify(body.idToken)
        let (created, linked) = try await services.run { state, context in
            try AccountRules.signUp(&state, body, token: token, context)
        }
        // An email sign-up creates a user, then signs them in (as Google's
        // emulator calls the functions); linking a password signs in again.
        // An anonymous sign-up calls nothing, as in production.
        var grant = created
        if body.email?.isEmpty == false {
            grant = try await services.blockingFunctions.signIn(
                created,
                .init(
                    method: ProviderID.password.rawValue, isNewUser: linked == nil, previous: linked,
                    userAgent: BlockingFunctionCalls.userAgent(of: request)))
        }
        return SignUpResponse(
            localId: grant.uid, email: grant.email, displayName: grant.displayName,
            idToken: try tokens.idToken(for: grant),
            refreshToken: grant.refreshToken, expiresIn: IdentityPlatformLimits.idTokenLifetimeSeconds,
            kind: ResponseKind.signupNewUser.rawValue)
    }

    func signInWithPassword(_ body: SignInWithPasswordRequest, request: APIServerRequest) async throws
        -> SignInWithPasswordResponse
    {
        // Production and Google's emulator tell `email: ""` (INVALID_EMAIL)
        // from no email (MISSING_EMAIL); the decoded body cannot.
        let emptyEmailSent: Bool
        if body.email.isEmpty, case .string? = request.jsonBodyMember("email") {
            emptyEmailSent = true
        } else {
            emptyEmailSent = false
        }
        let outcome = try await services.run { state, context in
            try AccountRules.signInWithPassword(&state, body, emptyEmailSent: emptyEmailSent, context)
        }
        switch outcome {
        case .signedIn(let signedIn):
            let grant = try await services.blockingFunctions.signIn(
                signedIn,
                .init(
                    method: ProviderID.password.rawValue,
                    userAgent: BlockingFunctionCalls.userAgent(of: request)))
            return SignInWithPasswordResponse(
                localId: grant.uid, email: grant.email, displayName: grant.displayName ?? "", registered: true,
                idToken: try tokens.idToken(for: grant), refreshToken: grant.refreshToken,
                expiresIn: IdentityPlatformLimits.idTokenLifetimeSeconds,
                kind: ResponseKind.verifyPassword.rawValue)
        case .secondFactorRequired(let credential, let user):
            return SignInWithPasswordResponse(
                localId: user.localId, email: user.email, displayName: user.displayName ?? "", registered: true,
                mfaPendingCredential: credential,
                mfaInfo: AccountViews.enrollments(user.enrollments, maskPhones: true),
                kind: ResponseKind.verifyPassword.rawValue)
        }
    }

    func signInWithCustomToken(_ body: SignInWithCustomTokenRequest, request: APIServerRequest) async throws
        -> SignInWithCustomTokenResponse
    {
        // A custom token calls no blocking function, as in production.
        // Verified before the state is entered; the rule reads it after the realm's checks.
        let token = Result { try customTokens.verify(body.token) }
        let (grant, isNewUser) = try await services.run { state, context in
            try AccountRules.signInWithCustomToken(&state, body, token: token, context)
        }
        return SignInWithCustomTokenResponse(
            idToken: try tokens.idToken(for: grant), refreshToken: grant.refreshToken,
            expiresIn: IdentityPlatformLimits.idTokenLifetimeSeconds, isNewUser: isNewUser,
            kind: ResponseKind.verifyCustomToken.rawValue)
    }

    func lookup(_ body: GetAccountInfoRequest, request: APIServerRequest) async throws -> GetAccountInfoResponse {
        let isAdmin = services.isAdmin(request)
        let token = tokens.verify(body.idToken)
        let found = try await services.run { state, context in
            try AccountRules.lookup(state, body, isAdmin: isAdmin, token: token, context)
        }
        // No match is the absence of `users`, not an error.
        // Google-compatible mode shows password hashes in lookups, as Google's emulator does.
        let detail: AccountViews.Detail = services.googleCompatible ? .download : .lookup
        return GetAccountInfoResponse(
            users: found.isEmpty ? nil : found.map { AccountViews.userInfo($0, detail: detail) },
            kind: ResponseKind.getAccountInfo.rawValue)
    }

    func sendOobCode(_ body: GetOobCodeRequest, request: APIServerRequest) async throws -> GetOobCodeResponse {
        try await Self.sendOobCode(
            body, project: body.targetProjectId, isAdmin: services.isAdmin(request), services: services)
    }

    /// `accounts:sendOobCode`, for a user or an admin (who may ask for the
    /// link itself: `returnOobLink`).
    static func sendOobCode(_ body: GetOobCodeRequest, project: String?, isAdmin: Bool, services: EmulatorServices)
        async throws -> GetOobCodeResponse
    {
        let token = services.tokens.verify(body.idToken)
        let (code, email) = try await services.run { state, context in
            try OutOfBandRules.send(&state, body, project: project, isAdmin: isAdmin, token: token, context)
        }
        let returned = body.returnOobLink == true
        return GetOobCodeResponse(
            email: email, oobCode: returned ? code?.code : nil,
            oobLink: returned ? code.map(services.links.link) : nil,
            kind: ResponseKind.getOobConfirmationCode.rawValue)
    }

    func update(_ body: SetAccountInfoRequest, request: APIServerRequest) async throws -> SetAccountInfoResponse {
        let isAdmin = services.isAdmin(request)
        let tokens = self.tokens
        let token = body.idToken.flatMap { $0.isEmpty ? nil : tokens.verify($0) }
        let outcome = try await services.run { state, context in
            try AccountRules.update(&state, body, isAdmin: isAdmin, token: token, context)
        }
        return try Self.response(outcome, tokens: tokens)
    }

    /// An update's answer: the account, and new tokens when it started a session.
    static func response(_ outcome: AccountUpdateRules.Outcome, tokens: SessionTokens) throws
        -> SetAccountInfoResponse
    {
        let user = outcome.user
        let view = AccountViews.userInfo(user)
        return SetAccountInfoResponse(
            localId: user.localId, email: user.email, emailVerified: user.emailVerified,
            displayName: user.displayName,
            idToken: try outcome.grant.map(tokens.idToken), refreshToken: outcome.grant?.refreshToken,
            expiresIn: outcome.grant.map { _ in IdentityPlatformLimits.idTokenLifetimeSeconds },
            kind: ResponseKind.setAccountInfo.rawValue,
            photoUrl: user.photoUrl, newEmail: outcome.newEmail, providerUserInfo: view.providerUserInfo)
    }

    /// `accounts:delete`: the user of an ID token deletes their account; an
    /// admin deletes the account `localId`.
    func deleteOwnAccount(_ body: DeleteAccountRequest, request: APIServerRequest) async throws
        -> DeleteAccountResponse
    {
        let isAdmin = services.isAdmin(request)
        let token = tokens.verify(body.idToken)
        try await services.run { state, context in
            try AccountRules.delete(&state, body, isAdmin: isAdmin, token: token, context)
        }
        return DeleteAccountResponse(kind: ResponseKind.deleteAccount.rawValue)
    }
}

extension Optional where Wrapped == IDTokenClaims {
    /// The claims checked before the rule ran (`MISSING_ID_TOKEN` when there were none).
    func orThrow() throws -> IDTokenClaims {
        guard let self else { throw APIServerError.missingIdToken }
        return self
    }
}
#endif
