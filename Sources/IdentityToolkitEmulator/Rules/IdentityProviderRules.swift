#if Emulator
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
        var screenName: String?
        var firstName: String?
        var lastName: String?
        var idToken: String?
        var rawUserInfo: String
        /// A SAML response's attribute statements (a JSON object as text),
        /// which the session's ID tokens carry as `firebase.sign_in_attributes`.
        var signInAttributes: String? = nil
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
        guard var components = URLComponents(string: requestUri), components.scheme != nil, components.host != nil
        else {
            throw APIServerError.invalidRequestUri
        }
        var parameters: [String: String] = [:]
        for item in components.queryItems ?? [] { parameters[item.name] = item.value }
        if let postBody, !postBody.isEmpty {
            for (name, value) in APIServerRequest.formFields(postBody) { parameters[name] = value }
        }
        components.queryItems = nil
        guard let providerId = parameters[IdpCredentialField.providerId.rawValue]?.lowercased(), !providerId.isEmpty
        else {
            throw APIServerError.invalidCredentialOrProviderId(
                "Invalid IdP response/credential: \(LogSafeText.escaping(requestUri, limit: 80))")
        }
        guard let token = parameters[IdpCredentialField.idToken.rawValue], !token.isEmpty else {
            throw APIServerError.notImplemented(
                "The Auth Emulator only supports sign-in with credentials (id_token required).")
        }
        let claims = try readClaims(token)
        guard let sub = claims.sub, !sub.isEmpty else {
            throw APIServerError.invalidIdpResponse(
                "Invalid Idp Response: id_token missing required fields. ((Missing \"sub\" field.))")
        }
        try InputRules.checkProfile(displayName: claims.name, photoURL: claims.picture)
        try InputRules.checkDisplayName(claims.screenName, field: "screen_name")
        try InputRules.checkDisplayName(claims.givenName, field: "given_name")
        try InputRules.checkDisplayName(claims.familyName, field: "family_name")
        var assertion = Assertion(
            providerId: providerId, rawId: sub, email: claims.email.map(InputRules.emailKey),
            emailVerified: claims.emailVerified ?? false, displayName: claims.name, photoUrl: claims.picture,
            screenName: claims.screenName, firstName: claims.givenName, lastName: claims.familyName, idToken: token,
            rawUserInfo: rawUserInfo(of: claims, providerId: providerId))
        if providerId.hasPrefix(samlProviderPrefix), let saml = parameters[IdpCredentialField.samlResponse.rawValue] {
            let response = try samlAssertion(saml)
            assertion.email = response.nameId
            assertion.rawUserInfo = response.attributes
            assertion.signInAttributes = response.attributes
        }
        return assertion
    }

    /// The providers whose ids start so are SAML providers, whose
    /// credential may carry a `SAMLResponse`.
    static let samlProviderPrefix = "saml."

    /// Google's OpenID issuer: google.com's `federatedId` is the user's id below it.
    static let googleFederatedIdPrefix = "https://accounts.google.com/"

    /// The scopes a Google sign-in grants: the email scope only when the
    /// token carries an address, as Google's userinfo answers.
    static let googleProfileScopes = ["openid", "https://www.googleapis.com/auth/userinfo.profile"]
    static let googleEmailScope = "https://www.googleapis.com/auth/userinfo.email"

    /// The provider's profile as `rawUserInfo` carries it: Google's
    /// userinfo shape for google.com (as production and Google's emulator
    /// answer), the ID token's claims for any other provider.
    static func rawUserInfo(of claims: IdpTokenClaims, providerId: String) -> String {
        var profile: [String: JSONValue]
        if providerId == ProviderID.google.rawValue {
            let scopes = googleProfileScopes + (claims.email == nil ? [] : [googleEmailScope])
            profile = [
                "id": .string(claims.sub ?? ""), "locale": .string("en"),
                "granted_scopes": .string(scopes.joined(separator: " ")),
            ]
            if let email = claims.email { profile["email"] = .string(email) }
            if let verified = claims.emailVerified { profile["verified_email"] = .bool(verified) }
            if let name = claims.name { profile["name"] = .string(name) }
            if let given = claims.givenName { profile["given_name"] = .string(given) }
            if let family = claims.familyName { profile["family_name"] = .string(family) }
            if let picture = claims.picture { profile["picture"] = .string(picture) }
        } else {
            guard let encoded = try? CanonicalJSON.encoder.encode(claims) else { return "{}" }
            return String(decoding: encoded, as: UTF8.self)
        }
        guard let encoded = try? CanonicalJSON.encoder.encode(profile) else { return "{}" }
        return String(decoding: encoded, as: UTF8.self)
    }

    /// A provider's federated id: Google's issuer URL and the user's id for
    /// google.com, the user's id for any other.
    static func federatedId(providerId: String, rawId: String) -> String {
        providerId == ProviderID.google.rawValue ? googleFederatedIdPrefix + rawId : rawId
    }

    /// A fake SAML response (JSON, as Google's emulator takes it): the
    /// subject's `nameId` is the user's address, the attribute statements
    /// the user's profile (`rawUserInfo`). A response without an assertion,
    /// a subject or a name id is `INVALID_IDP_RESPONSE`.
    static func samlAssertion(_ text: String) throws -> (nameId: String, attributes: String) {
        func refused(_ missing: String) -> APIServerError {
            APIServerError.invalidIdpResponse("Unable to parse SAML token: \(missing) is missing")
        }
        guard let response = try? StrictJSONDecoder.decode([String: JSONValue].self, from: Data(text.utf8)) else {
            throw APIServerError.invalidIdpResponse(
                "Unable to parse SAML token: the SAMLResponse is not a JSON object")
        }
        guard case .object(let assertion)? = response["assertion"] else { throw refused("assertion") }
        guard case .object(let subject)? = assertion["subject"] else { throw refused("assertion.subject") }
        guard case .string(let nameId)? = subject["nameId"], !nameId.isEmpty else {
            throw refused("assertion.subject.nameId")
        }
        guard InputRules.isValidEmail(nameId) else {
            throw APIServerError.invalidIdpResponse("Unable to parse SAML token: nameId is not an email address")
        }
        var attributes = "{}"
        if case .object(let statements)? = assertion["attributeStatements"],
            let encoded = try? CanonicalJSON.encoder.encode(statements)
        {
            attributes = String(decoding: encoded, as: UTF8.self)
        }
        return (nameId, attributes)
    }

    /// The claims of a fake ID token: JSON, or a JWT whose payload is read
    /// and whose signature is never looked at (the emulator checks none, so
    /// a real token with its signature blanked out is as good as any).
    private static func readClaims(_ token: String) throws -> IdpTokenClaims {
        if token.hasPrefix("{") {
            guard let claims = try? JSONDecoder().decode(IdpTokenClaims.self, from: Data(token.utf8)) else {
                throw APIServerError.invalidIdpResponse(
                    "Unable to parse id_token ((Auth Emulator failed to parse fake id_token as strict JSON.))")
            }
            return claims
        }
        guard let payload = UncheckedJWT.payload(of: token),
            let claims = try? StrictJSONDecoder.decode(IdpTokenClaims.self, from: payload)
        else {
            throw APIServerError.invalidIdpResponse(
                "Unable to parse id_token ((Auth Emulator only accepts strict JSON or JWTs as fake id_tokens.))")
        }
        return claims
    }

    /// Signs in (or up, or links) the provider's user.
    static func signIn(
        _ state: inout EmulatorState, realm: Realm, _ assertion: Assertion, linking: EmulatedUser?,
        _ context: RuleContext
    ) throws -> Outcome {
        try TenantRules.checkAuthEnabled(state, realm)
        let now = context.now
        let linked = state.user(linkedTo: assertion.providerId, rawId: assertion.rawId, in: realm)
        let oneAccountPerEmail = state.projects[realm.project]?.allowDuplicateEmails != true
        var user: EmulatedUser
        var isNewUser = false
        if let linking {
            if linked != nil { throw APIServerError.federatedUserIdAlreadyLinked }
            if oneAccountPerEmail, let email = assertion.email,
                let owner = state.accounts(in: realm).user(email: email),
                owner.localId != linking.localId
            {
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
        } else if oneAccountPerEmail, let email = assertion.email,
            let owner = state.accounts(in: realm).user(email: email)
        {
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
            user.screenName = assertion.screenName
            user.emailVerified = true
        } else {
            user = EmulatedUser(
                localId: AccountRules.newUID(), realm: realm, createdAt: now, isAnonymous: false, validSince: now)
            SessionRules.forgetSessions(&state, of: user.key)
            user.displayName = assertion.displayName
            user.photoUrl = assertion.photoUrl
            user.screenName = assertion.screenName
            if oneAccountPerEmail, let email = assertion.email {
                user.email = email
                user.emailVerified = assertion.emailVerified
                user.initialEmail = email
            }
            isNewUser = true
        }
        if user.disabled { throw APIServerError.userDisabled }
        user.linkedProviders.removeAll { $0.providerId == assertion.providerId }
        user.linkedProviders.append(
            LinkedProvider(
                providerId: assertion.providerId, rawId: assertion.rawId,
                federatedId: federatedId(providerId: assertion.providerId, rawId: assertion.rawId),
                email: assertion.email, displayName: assertion.displayName, photoUrl: assertion.photoUrl,
                screenName: assertion.screenName))
        user.isAnonymous = false
        if !user.enrollments.isEmpty {
            state.store(user)
            let credential = SessionRules.pendingCredential(
                &state, for: user, provider: ProviderID(rawValue: assertion.providerId), context)
            return .secondFactorRequired(pendingCredential: credential, user: user)
        }
        user.lastLoginAt = now
        state.store(user)
        let grant = SessionRules.grant(
            &state, for: user,
            facts: SessionFacts(
                provider: ProviderID(rawValue: assertion.providerId), authTime: now,
                signInAttributes: assertion.signInAttributes), context)
        return .signedIn(grant, user: user, isNewUser: isNewUser)
    }
}
#endif
