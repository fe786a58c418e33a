import Foundation
import IdentityToolkit
import IdentityToolkitJWT
import IdentitySupport

/// Sign-in with an identity provider (`accounts:signInWithIdp`) as Google's
/// emulator fakes it: the provider's ID token is read, not verified (an
/// unsigned JWT or its claims as JSON), so that tests can sign anyone in
/// with Google or any OIDC provider. Then production's account rules: the
/// provider's user signs in to the account linked to it, takes over an
/// account of the same verified address (or is asked to confirm an
/// unverified one), or gets a new account; with an ID token it is linked.
enum IdentityProviderRules {
    /// What the provider said about the user.
    struct Assertion: Sendable {
        var providerId: String
        var rawId: String
        var email: String?
        var emailVerified: Bool
        var displayName: String?
        var photoUrl: String?
        var idToken: String?
        var rawUserInfo: String
    }

    /// The refusals that `returnIdpCredential` turns into a 200 with
    /// `errorMessage` (the provider is linked elsewhere, or its address is
    /// another account's), as production does; any other stays an error.
    static let linkingConflicts: Set<String> = [
        APIServerError.federatedUserIdAlreadyLinked.shortCode, APIServerError.emailExists.shortCode,
    ]

    /// The outcome of an IdP sign-in.
    enum Outcome: Sendable {
        case signedIn(SessionGrant, user: EmulatedUser, isNewUser: Bool)
        case secondFactorRequired(pendingCredential: String, user: EmulatedUser)
        /// Another account has the (unverified) address: the user must sign
        /// in to it first and link.
        case needConfirmation(localId: String, providers: [String])
    }

    /// The provider's credential in `postBody` or `requestUri` (`providerId`,
    /// `id_token`), read as Google's emulator reads it.
    static func assertion(requestUri: String?, postBody: String?) throws -> Assertion {
        guard let requestUri, !requestUri.isEmpty else { throw APIServerError.missingRequestUri }
        guard var components = URLComponents(string: requestUri), components.scheme != nil, components.host != nil else {
            throw APIServerError.invalidRequestUri
        }
        var parameters: [String: String] = [:]
        for item in components.queryItems ?? [] { parameters[item.name] = item.value }
        if let postBody, !postBody.isEmpty {
            for (name, value) in APIServerRequest.formFields(postBody) { parameters[name] = value }
        }
        components.queryItems = nil
        guard let providerId = parameters[IdpCredentialField.providerId.rawValue]?.lowercased(), !providerId.isEmpty else {
            throw APIServerError.invalidCredentialOrProviderId("Invalid IdP response/credential: \(LogSafeText.escaping(requestUri, limit: 80))")
        }
        guard let token = parameters[IdpCredentialField.idToken.rawValue], !token.isEmpty else {
            throw APIServerError.notImplemented("The Auth Emulator only supports sign-in with credentials (id_token required).")
        }
        let claims = try readClaims(token)
        guard let sub = claims.sub, !sub.isEmpty else {
            throw APIServerError.invalidIdpResponse("Invalid Idp Response: id_token missing required fields. ((Missing \"sub\" field.))")
        }
        try InputRules.checkProfile(displayName: claims.name, photoURL: claims.picture)
        let rawUserInfo = (try? JSONEncoder().encode(claims)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return Assertion(providerId: providerId, rawId: sub, email: claims.email.map(InputRules.emailKey), emailVerified: claims.emailVerified ?? false,
                         displayName: claims.name, photoUrl: claims.picture, idToken: token, rawUserInfo: rawUserInfo)
    }

    /// The claims of a fake ID token: JSON, or a JWT read without its signature.
    private static func readClaims(_ token: String) throws -> IdpTokenClaims {
        if token.hasPrefix("{") {
            guard let claims = try? JSONDecoder().decode(IdpTokenClaims.self, from: Data(token.utf8)) else {
                throw APIServerError.invalidIdpResponse("Unable to parse id_token ((Auth Emulator failed to parse fake id_token as strict JSON.))")
            }
            return claims
        }
        guard let claims = try? ParsedJWT(token).unverifiedClaims(as: IdpTokenClaims.self) else {
            throw APIServerError.invalidIdpResponse("Unable to parse id_token ((Auth Emulator only accepts strict JSON or JWTs as fake id_tokens.))")
        }
        return claims
    }

    /// Signs in (or up, or links) the provider's user.
    static func signIn(_ state: inout EmulatorState, realm: Realm, _ assertion: Assertion, linking: EmulatedUser?,
                       _ context: RuleContext) throws -> Outcome {
        try TenantRules.checkAuthEnabled(state, realm)
        let now = context.now
        let linked = state.user(linkedTo: assertion.providerId, rawId: assertion.rawId, in: realm)
        let oneAccountPerEmail = state.projects[realm.project]?.allowDuplicateEmails != true
        var user: EmulatedUser
        var isNewUser = false
        if let linking {
            if linked != nil { throw APIServerError.federatedUserIdAlreadyLinked }
            if oneAccountPerEmail, let email = assertion.email, let owner = state.accounts(in: realm).user(email: email),
               owner.localId != linking.localId {
                throw APIServerError.emailExists
            }
            user = linking
            if oneAccountPerEmail, user.email == nil, let email = assertion.email {
                user.email = email
                user.emailVerified = assertion.emailVerified
            }
            if assertion.emailVerified, user.email == assertion.email { user.emailVerified = true }
        } else if let linked {
            user = linked
        } else if oneAccountPerEmail, let email = assertion.email, let owner = state.accounts(in: realm).user(email: email) {
            guard assertion.emailVerified else {
                let providers = owner.linkedProviders.map(\.providerId)
                return .needConfirmation(localId: owner.localId, providers: providers)
            }
            user = owner
            if !owner.emailVerified {
                // An unverified address's other ways in go: the provider proved the address.
                user.password = nil
                user.phoneNumber = nil
                user.linkedProviders = []
                SessionRules.revokeSessions(of: &user, at: now)
            }
            user.displayName = assertion.displayName
            user.photoUrl = assertion.photoUrl
            user.emailVerified = true
        } else {
            user = EmulatedUser(localId: AccountRules.newUID(), realm: realm, createdAt: now, isAnonymous: false, validSince: now)
            SessionRules.forgetSessions(&state, of: user.key)
            user.displayName = assertion.displayName
            user.photoUrl = assertion.photoUrl
            if oneAccountPerEmail, let email = assertion.email {
                user.email = email
                user.emailVerified = assertion.emailVerified
                user.initialEmail = email
            }
            isNewUser = true
        }
        if user.disabled { throw APIServerError.userDisabled }
        user.linkedProviders.removeAll { $0.providerId == assertion.providerId }
        user.linkedProviders.append(LinkedProvider(providerId: assertion.providerId, rawId: assertion.rawId, federatedId: assertion.rawId,
                                                   email: assertion.email, displayName: assertion.displayName, photoUrl: assertion.photoUrl))
        user.isAnonymous = false
        if !user.enrollments.isEmpty {
            state.store(user)
            let credential = SessionRules.pendingCredential(&state, for: user, provider: ProviderID(rawValue: assertion.providerId), context)
            return .secondFactorRequired(pendingCredential: credential, user: user)
        }
        user.lastLoginAt = now
        state.store(user)
        let grant = SessionRules.grant(&state, for: user, facts: SessionFacts(provider: ProviderID(rawValue: assertion.providerId), authTime: now))
        return .signedIn(grant, user: user, isNewUser: isNewUser)
    }
}
