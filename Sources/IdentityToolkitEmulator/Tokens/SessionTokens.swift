#if Emulator
import Foundation
import IdentityToolkit
import IdentityToolkitJWT
import IdentitySupport

/// ID tokens and session cookies: made from a grant (outside the state's
/// store: RSA is the slow part), and checked when a client sends one back.
struct SessionTokens: Sendable {
    let key: EmulatorSigningKey
    let clock: EmulatorClock
    let project: String
    /// ``EmulatorConfiguration/googleCompatible``: ID tokens go unsigned
    /// (`alg: none`), as Google's emulator's, and unsigned ones are taken back.
    var unsigned = false

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
            name: grant.displayName?.isEmpty == false ? grant.displayName : nil,
            picture: grant.photoUrl?.isEmpty == false ? grant.photoUrl : nil,
            // As production's tokens: the phone number of a phone user, `provider_id` of an anonymous one.
            phoneNumber: grant.phoneNumber,
            providerID: grant.facts.provider == .anonymous ? ProviderID.anonymous.rawValue : nil,
            firebase: FirebaseSignInClaims(
                identities: identities, signInProvider: grant.facts.provider.rawValue,
                signInSecondFactor: grant.facts.secondFactor?.rawValue,
                secondFactorIdentifier: grant.facts.secondFactorID, tenant: grant.realm.tenant))
        let extras =
            [grant.customAttributes, grant.facts.developerClaims].compactMap(Self.object)
            + [grant.sessionClaims].compactMap { $0 }
        guard let attributes = Self.object(grant.facts.signInAttributes) else {
            return try encode(claims, extraClaims: extras)
        }
        // `firebase.sign_in_attributes` has no typed field: the claims go as
        // JSON, the attributes put inside their `firebase` object.
        var payload = try RS256.decoder.decode([String: JSONValue].self, from: CanonicalJSON.encoder.encode(claims))
        if case .object(var firebase)? = payload[Self.firebaseClaim] {
            firebase[Self.signInAttributesClaim] = .object(attributes)
            payload[Self.firebaseClaim] = .object(firebase)
        }
        return try encode(payload, extraClaims: extras)
    }

    /// A token of `claims`: signed with the emulator's key, or unsigned in
    /// Google-compatible mode.
    private func encode<Claims: Encodable>(_ claims: Claims, extraClaims: [[String: JSONValue]]) throws -> String {
        guard unsigned else { return try key.signer.sign(claims, extraClaims: extraClaims) }
        let standard = try RS256.decoder.decode([String: JSONValue].self, from: CanonicalJSON.encoder.encode(claims))
        // As the signer merges them: a later extra wins over an earlier one, none over a standard claim.
        var extras: [String: JSONValue] = [:]
        for extra in extraClaims { extras.merge(extra) { _, later in later } }
        let payload = standard.merging(extras) { standard, _ in standard }
        let header = try CanonicalJSON.encoder.encode(JOSEHeader(alg: .unsigned, typ: RS256.jwtType))
        return header.base64URLEncoded + "." + (try CanonicalJSON.encoder.encode(payload)).base64URLEncoded + "."
    }

    /// The claim of an ID token that says how the user signed in.
    static let firebaseClaim = "firebase"
    /// A SAML sign-in's attributes, inside the `firebase` claim.
    static let signInAttributesClaim = "sign_in_attributes"

    /// A session cookie made from a verified ID token: its claims, custom
    /// ones included, under the session issuer with the cookie's own
    /// `iat` and `exp`.
    func sessionCookie(from idToken: String, claims: IDTokenClaims, issuedAt: Int64, expiresAt: Int64) throws
        -> String
    {
        var cookie = claims
        cookie.iss = TokenIssuerPrefix.sessionCookie.rawValue + project
        cookie.iat = issuedAt
        cookie.exp = expiresAt
        // Every claim of the token (the caller verified it: `claims`) rides
        // along; the typed ones above win.
        let all = try Self.unverifiedClaims(of: idToken)
        return try encode(cookie, extraClaims: [all])
    }

    /// `idToken` verified now, before a rule enters the serialised state;
    /// the rule reads the result where production checks the token.
    func verify(_ idToken: String?) -> VerifiedIDToken {
        Result { try claims(of: idToken) }
    }

    /// The claims of a valid, unexpired ID token of this emulator.
    func claims(of idToken: String?) throws -> IDTokenClaims {
        guard let idToken, !idToken.isEmpty else { throw APIServerError.missingIdToken }
        let claims: IDTokenClaims
        do {
            claims = try key.verifiedIDTokenClaims(idToken)
        } catch {
            guard unsigned, let read = Self.unsignedIDTokenClaims(idToken) else {
                throw APIServerError.invalidIdToken
            }
            claims = read
        }
        do {
            try claims.verifyNotExpired(at: clock.now)
        } catch {
            throw APIServerError.tokenExpired
        }
        return claims
    }

    /// Every claim of a token this emulator made (signed, or unsigned in
    /// Google-compatible mode), read without checking it: the caller did.
    static func unverifiedClaims<Claims: Decodable>(
        of token: String, as type: Claims.Type = [String: JSONValue].self
    ) throws -> Claims {
        if let parsed = try? ParsedJWT(token) { return try parsed.unverifiedClaims(as: type) }
        guard let payload = UncheckedJWT.payload(of: token, unsigned: true) else {
            throw APIServerError.invalidIdToken
        }
        return try StrictJSONDecoder.decode(type, from: payload)
    }

    /// The claims of an unsigned ID token (`alg: none`, no signature), as
    /// Google's emulator takes them back: only in Google-compatible mode.
    static func unsignedIDTokenClaims(_ token: String) -> IDTokenClaims? {
        guard let header = UncheckedJWT.header(of: token),
            (try? StrictJSONDecoder.decode(JOSEHeader.self, from: header))?.alg == .unsigned,
            let payload = UncheckedJWT.payload(of: token, unsigned: true),
            let claims = try? StrictJSONDecoder.decode(IDTokenClaims.self, from: payload),
            claims.isIssued(as: .idToken)
        else { return nil }
        return claims
    }

    /// The tenant an ID token names, read without checking it: a request's
    /// realm is settled first (`TENANT_ID_MISMATCH`), the token itself
    /// checked after the realm's switches, in production's order.
    static func unverifiedTenant(of idToken: String?) -> String? {
        guard let idToken, !idToken.isEmpty, let claims = try? unverifiedClaims(of: idToken, as: IDTokenClaims.self)
        else { return nil }
        return claims.tenant
    }

    /// The session an ID token states.
    static func facts(of claims: IDTokenClaims) -> SessionFacts {
        SessionFacts(
            provider: ProviderID(rawValue: claims.firebase.signInProvider),
            secondFactor: claims.firebase.signInSecondFactor.map(SecondFactorID.init(rawValue:)),
            secondFactorID: claims.firebase.secondFactorIdentifier,
            authTime: Date(timeIntervalSince1970: TimeInterval(claims.authTime)))
    }

    /// A JSON object given as text, as a claim set; nil when it is none.
    static func object(_ text: String?) -> [String: JSONValue]? {
        text.flatMap { try? JSONDecoder().decode([String: JSONValue].self, from: Data($0.utf8)) }
    }
}
#endif
