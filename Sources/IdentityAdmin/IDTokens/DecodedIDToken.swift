public import Foundation
import IdentitySupport
public import IdentityToolkit

/// A verified Firebase ID token: who signed in, how, and when. Made only by
/// ``IDTokenVerifier`` (``BaseAuth/verifyIDToken(_:checkRevoked:)``) after every
/// check passed; holds no copy of the token.
public struct DecodedIDToken: Sendable, Hashable {
    /// The user's uid (`sub`).
    public let uid: String
    /// The first factor of the sign-in (`firebase.sign_in_provider`): `password`, `custom`, …
    public let signInProvider: String
    /// The second factor of the sign-in (`firebase.sign_in_second_factor`):
    /// `"totp"` or `"phone"`; nil when the sign-in used none.
    public let signInSecondFactor: String?
    /// The enrollment id of that second factor (`firebase.second_factor_identifier`).
    public let secondFactorIdentifier: String?
    /// The user's tenant (`firebase.tenant`); nil for the project's own users.
    public let tenant: String?
    /// When the user signed in (`auth_time`); refreshed tokens keep it.
    public let authTime: Date
    /// When this token was issued (`iat`).
    public let issuedAt: Date
    /// When it expires (`exp`).
    public let expiresAt: Date
    /// The user's email address, if the token carries one.
    public let email: String?
    /// Whether that address is verified.
    public let emailVerified: Bool?
    /// The project the token is for (`aud`).
    public let audience: String
    /// Who issued it (`iss`).
    public let issuer: String
    /// When a ``FirebaseSignInPolicy`` that requires a second factor stops
    /// letting this user in without one (the user has enrolled none yet);
    /// nil otherwise. Set by ``BaseAuth/enforce(_:on:now:)``: an app shows
    /// "enrolment due" while it is set.
    public internal(set) var secondFactorEnrollmentDue: Date?
    /// Every claim of the token, custom claims included. Decoded from the
    /// verified payload on each access (most servers read only the typed
    /// properties, and this decoding was a third of a verification): keep
    /// the result when reading several claims.
    public var claims: [String: JSONValue] {
        (try? JSONDecoder().decode([String: JSONValue].self, from: payload)) ?? [:]
    }

    /// The verified payload (JSON): a slice of the buffer the token's three
    /// parts were decoded into (`JWTCompactForm`), not a copy.
    private let payload: Data

    init(_ wire: IDTokenClaims, payload: Data) {
        uid = wire.sub
        signInProvider = wire.firebase.signInProvider
        signInSecondFactor = wire.firebase.signInSecondFactor
        secondFactorIdentifier = wire.firebase.secondFactorIdentifier
        tenant = wire.firebase.tenant
        authTime = Date(timeIntervalSince1970: TimeInterval(wire.authTime))
        issuedAt = Date(timeIntervalSince1970: TimeInterval(wire.iat))
        expiresAt = Date(timeIntervalSince1970: TimeInterval(wire.exp))
        email = wire.email
        emailVerified = wire.emailVerified
        audience = wire.aud
        issuer = wire.iss
        self.payload = payload
    }

    /// The policy most MFA apps enforce: the sign-in used a second factor
    /// and, for a step-up check, happened at most `maximumAuthenticationAge` ago.
    /// - Parameters:
    ///   - maximumAuthenticationAge: The oldest `auth_time` accepted; nil for any.
    ///   - now: The current time (for tests).
    /// - Returns: The second factor used (`"totp"` or `"phone"`).
    /// - Throws: ``TokenVerificationError/secondFactorRequired`` or
    ///   ``TokenVerificationError/authenticationTooOld(authTime:maximumAge:)``.
    @discardableResult
    public func requireSecondFactor(maximumAuthenticationAge: Duration? = nil, now: Date = Date())
        throws(TokenVerificationError) -> String
    {
        guard let factor = signInSecondFactor, !factor.isEmpty else { throw .secondFactorRequired }
        try requireSignIn(notOlderThan: maximumAuthenticationAge, now: now)
        return factor
    }

    /// Whether the sign-in used a second factor.
    var usedSecondFactor: Bool { signInSecondFactor?.isEmpty == false }

    /// The one age rule of ``requireSecondFactor(maximumAuthenticationAge:now:)``
    /// and ``FirebaseSignInPolicy``: `auth_time` at most `maximumAge` ago (nil: any age).
    func requireSignIn(notOlderThan maximumAge: Duration?, now: Date) throws(TokenVerificationError) {
        guard let maximumAge, now.timeIntervalSince(authTime) > maximumAge.timeInterval else { return }
        throw .authenticationTooOld(authTime: authTime, maximumAge: maximumAge)
    }

    /// Refuses a token of another tenant (or of the project's own users)
    /// than `tenantID`. A project-level verifier (``IdentityAdmin``'s)
    /// accepts the tokens of every tenant of the project, as firebase-admin
    /// does; a server that serves one tenant calls this after verifying, or
    /// verifies with that tenant's ``TenantAwareAuth`` instead.
    ///
    /// ```swift
    /// let token = try await admin.verifyIDToken(idToken).requireTenant("shop-1a2b3")
    /// ```
    /// - Parameter tenantID: The tenant the token must belong to.
    /// - Returns: This token, for chaining.
    /// - Throws: ``TokenVerificationError/tenantMismatch(expected:found:)``.
    @discardableResult
    public func requireTenant(_ tenantID: String) throws(TokenVerificationError) -> DecodedIDToken {
        guard tenant == tenantID else { throw .tenantMismatch(expected: tenantID, found: tenant) }
        return self
    }
}
