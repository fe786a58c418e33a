import Foundation
import IdentityToolkit

/// What every token Identity Platform signs for a project states (an ID
/// token, a session cookie, a blocking function's event), with the rules
/// on it: the claim rules live on the claims types, as jwt-kit's
/// `JWTPayload.verify(using:)` does, so that ``IDTokenVerifier`` and
/// ``BlockingFunctionHandler`` apply the same ones after the one signature
/// sequence (`RS256JWT.verified(with:)`).
protocol FirebaseTokenClaims {
    /// `iss`.
    var issuer: String { get }
    /// `aud`.
    var audience: String { get }
    /// `iat`.
    var issuedAt: Date { get }
    /// `exp`.
    var expiresAt: Date { get }
    /// The tenant the token is for; nil for the project's own users.
    var tenant: String? { get }
}

extension FirebaseTokenClaims {
    /// The token is for `audience` (checked first, as firebase-admin does),
    /// from `issuer`.
    func verifyIssuer(_ issuer: String, audience: String) throws(TokenVerificationError) {
        guard self.audience == audience else { throw .wrongAudience(expected: audience, found: self.audience) }
        guard self.issuer == issuer else { throw .wrongIssuer(expected: issuer, found: self.issuer) }
    }

    /// Unexpired at `now`, and issued no later than `clockSkew` ahead of
    /// it. Checked on every use, a remembered token's too: a clock set back
    /// makes a remembered token's `iat` lie in the future again.
    func verifyLifetime(at now: Date, clockSkew: Duration) throws(TokenVerificationError) {
        guard now < expiresAt else { throw .expired(at: expiresAt) }
        guard issuedAt <= now.addingTimeInterval(clockSkew.timeInterval) else { throw .issuedInTheFuture(at: issuedAt) }
    }

    /// For `requiredTenant`, when a verifier serves one tenant (nil: any).
    func verifyTenant(_ requiredTenant: String?) throws(TokenVerificationError) {
        if let requiredTenant, tenant != requiredTenant { throw .tenantMismatch(expected: requiredTenant, found: tenant) }
    }
}

extension DecodedIDToken: FirebaseTokenClaims {
    /// The checks that depend on the time and on the verifier's tenant,
    /// made on every call (a cached token's too): the lifetime, the sign-in
    /// (`auth_time`) no later than `clockSkew` ahead of `now`, the tenant.
    func verifyTimesAndTenant(at now: Date, clockSkew: Duration, tenant requiredTenant: String?) throws(TokenVerificationError) {
        try verifyLifetime(at: now, clockSkew: clockSkew)
        guard authTime <= now.addingTimeInterval(clockSkew.timeInterval) else { throw .authenticatedInTheFuture(at: authTime) }
        try verifyTenant(requiredTenant)
    }
}

extension BlockingEventClaims: FirebaseTokenClaims {
    var issuer: String { iss }
    var audience: String { aud }
    var issuedAt: Date { Date(timeIntervalSince1970: TimeInterval(iat)) }
    var expiresAt: Date { Date(timeIntervalSince1970: TimeInterval(exp)) }
    var tenant: String? { tenantID }
}
