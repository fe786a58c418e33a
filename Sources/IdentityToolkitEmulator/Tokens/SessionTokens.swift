import Foundation
import IdentityToolkit
import IdentityToolkitJWT

/// ID tokens and session cookies: made from a grant (outside the state's
/// store: RSA is the slow part), and checked when a client sends one back.
struct SessionTokens: Sendable {
    let key: EmulatorSigningKey
    let clock: EmulatorClock
    let project: String

    /// The signed ID token of a grant, with the user's custom claims and a
    /// custom token's developer claims beside the standard ones.
    func idToken(for grant: SessionGrant) throws -> String {
        let now = Int64(clock.now.timeIntervalSince1970)
        var identities: [String: [String]] = [:]
        if let email = grant.email { identities["email"] = [email] }
        if let phone = grant.phoneNumber { identities[ProviderID.phone.rawValue] = [phone] }
        for linked in grant.linkedProviders { identities[linked.providerId, default: []].append(linked.rawId) }
        let claims = IDTokenClaims(
            iss: TokenIssuerPrefix.idToken.rawValue + project, aud: project,
            authTime: Int64(grant.facts.authTime.timeIntervalSince1970), userID: grant.uid, sub: grant.uid,
            iat: now, exp: now + IdentityPlatformLimits.idTokenLifetimeSeconds, email: grant.email,
            // Without an address only a verified flag set by hand (an admin, a blocking function) shows.
            emailVerified: grant.email == nil && !grant.emailVerified ? nil : grant.emailVerified,
            name: grant.displayName?.isEmpty == false ? grant.displayName : nil, picture: grant.photoUrl?.isEmpty == false ? grant.photoUrl : nil,
            firebase: FirebaseSignInClaims(identities: identities, signInProvider: grant.facts.provider.rawValue,
                                           signInSecondFactor: grant.facts.secondFactor?.rawValue,
                                           secondFactorIdentifier: grant.facts.secondFactorID, tenant: grant.realm.tenant))
        let extras = [grant.customAttributes, grant.facts.developerClaims].compactMap(Self.object) + [grant.sessionClaims].compactMap { $0 }
        guard let attributes = Self.object(grant.facts.signInAttributes) else { return try key.signer.sign(claims, extraClaims: extras) }
        // `firebase.sign_in_attributes` has no typed field: the claims go as
        // JSON, the attributes put inside their `firebase` object.
        var payload = try RS256.decoder.decode([String: JSONValue].self, from: RS256.encoder.encode(claims))
        if case .object(var firebase)? = payload[Self.firebaseClaim] {
            firebase[Self.signInAttributesClaim] = .object(attributes)
            payload[Self.firebaseClaim] = .object(firebase)
        }
        return try key.signer.sign(payload, extraClaims: extras)
    }

    /// The claim of an ID token that says how the user signed in.
    static let firebaseClaim = "firebase"
    /// A SAML sign-in's attributes, inside the `firebase` claim.
    static let signInAttributesClaim = "sign_in_attributes"

    /// A session cookie made from a verified ID token: its claims, custom
    /// ones included, under the session issuer with the cookie's own
    /// `iat` and `exp`.
    func sessionCookie(from idToken: String, claims: IDTokenClaims, issuedAt: Int64, expiresAt: Int64) throws -> String {
        var cookie = claims
        cookie.iss = TokenIssuerPrefix.sessionCookie.rawValue + project
        cookie.iat = issuedAt
        cookie.exp = expiresAt
        // Every claim of the token (the caller verified it: `claims`) rides
        // along; the typed ones above win.
        let all = try ParsedJWT(idToken).unverifiedClaims(as: [String: JSONValue].self)
        return try key.signer.sign(cookie, extraClaims: [all])
    }

    /// The claims of a valid, unexpired ID token of this emulator.
    func claims(of idToken: String?) throws -> IDTokenClaims {
        guard let idToken, !idToken.isEmpty else { throw APIServerError.missingIdToken }
        let claims: IDTokenClaims
        do {
            claims = try key.verifiedIDTokenClaims(idToken)
        } catch {
            throw APIServerError.invalidIdToken
        }
        guard Int64(clock.now.timeIntervalSince1970) < claims.exp else { throw APIServerError.tokenExpired }
        return claims
    }

    /// The tenant an ID token names, read without checking it: a request's
    /// realm is settled first (`TENANT_ID_MISMATCH`), the token itself
    /// checked after the realm's switches, in production's order.
    static func unverifiedTenant(of idToken: String?) -> String? {
        guard let idToken, !idToken.isEmpty, let parsed = try? ParsedJWT(idToken),
              let claims = try? parsed.unverifiedClaims(as: IDTokenClaims.self) else { return nil }
        return claims.firebase.tenant
    }

    /// The session an ID token states.
    static func facts(of claims: IDTokenClaims) -> SessionFacts {
        SessionFacts(provider: ProviderID(rawValue: claims.firebase.signInProvider),
                     secondFactor: claims.firebase.signInSecondFactor.map(SecondFactorID.init(rawValue:)),
                     secondFactorID: claims.firebase.secondFactorIdentifier,
                     authTime: Date(timeIntervalSince1970: TimeInterval(claims.authTime)))
    }

    /// A JSON object given as text, as a claim set; nil when it is none.
    static func object(_ text: String?) -> [String: JSONValue]? {
        text.flatMap { try? JSONDecoder().decode([String: JSONValue].self, from: Data($0.utf8)) }
    }
}
