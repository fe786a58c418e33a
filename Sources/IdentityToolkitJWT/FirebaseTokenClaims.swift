package import Foundation
import IdentitySupport
package import IdentityToolkit

// The claim rules of every token Identity Platform signs for a project (an
// ID token, a session cookie, a blocking function's event), on the claims
// types, as jwt-kit's `JWTPayload.verify(using:)` and
// `ExpirationClaim.verifyNotExpired` are: IdentityAdmin's verifier, its
// blocking-function handler and the emulator's checks of its own tokens
// apply these and no copy of them. Each caller turns a `ClaimFailure` into
// its own error (a `TokenVerificationError`, the emulator's API error).

/// Which claim rule a token failed, with what it expected and found.
package enum ClaimFailure: Error, Sendable, Hashable {
    /// `aud` is not the audience required.
    case wrongAudience(expected: String, found: String)
    /// `iss` is not the issuer required.
    case wrongIssuer(expected: String, found: String)
    /// `exp` has passed.
    case expired(at: Date)
    /// `iat` is later than the clock-skew allowance.
    case issuedInTheFuture(at: Date)
    /// `auth_time` is later than the clock-skew allowance.
    case authenticatedInTheFuture(at: Date)
    /// `firebase.tenant` is not the tenant required.
    case tenantMismatch(expected: String, found: String?)
}

/// What every token Identity Platform signs for a project states.
package protocol FirebaseTokenClaims {
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
    package func verifyIssuer(_ issuer: String, audience: String) throws(ClaimFailure) {
        guard self.audience == audience else { throw .wrongAudience(expected: audience, found: self.audience) }
        guard self.issuer == issuer else { throw .wrongIssuer(expected: issuer, found: self.issuer) }
    }

    /// Whether `iss` is of `kind` (an ID token, a session cookie), for any
    /// project: a session cookie has an ID token's claims under another
    /// issuer, and is no ID token.
    package func isIssued(as kind: TokenIssuerPrefix) -> Bool { issuer.hasPrefix(kind.rawValue) }

    /// Whether the token was issued at or after `validSince` (in whole
    /// seconds, as `iat` is): one issued before the account's sessions
    /// were revoked is revoked.
    package func isIssued(notBefore validSince: Date) -> Bool {
        issuedAt >= Date(timeIntervalSince1970: validSince.timeIntervalSince1970.rounded(.down))
    }

    /// Unexpired at `now`.
    package func verifyNotExpired(at now: Date) throws(ClaimFailure) {
        guard now < expiresAt else { throw .expired(at: expiresAt) }
    }

    /// Unexpired at `now`, and issued no later than `clockSkew` ahead of
    /// it. Checked on every use, a remembered token's too: a clock set back
    /// makes a remembered token's `iat` lie in the future again.
    package func verifyLifetime(at now: Date, clockSkew: Duration) throws(ClaimFailure) {
        try verifyNotExpired(at: now)
        guard issuedAt <= now.addingTimeInterval(clockSkew.timeInterval) else { throw .issuedInTheFuture(at: issuedAt) }
    }

    /// For `requiredTenant`, when a verifier serves one tenant (nil: any).
    package func verifyTenant(_ requiredTenant: String?) throws(ClaimFailure) {
        if let requiredTenant, tenant != requiredTenant {
            throw .tenantMismatch(expected: requiredTenant, found: tenant)
        }
    }
}

/// The claims of a signed-in session (an ID token, a session cookie): a
/// token that also says when the user signed in.
package protocol FirebaseSessionClaims: FirebaseTokenClaims {
    /// `auth_time`.
    var authenticatedAt: Date { get }
}

extension FirebaseSessionClaims {
    /// The checks that depend on the time and on the verifier's tenant,
    /// made on every use (a remembered token's too): the lifetime, the
    /// sign-in no later than `clockSkew` ahead of `now`, the tenant.
    package func verifyTimesAndTenant(at now: Date, clockSkew: Duration, tenant requiredTenant: String?)
        throws(ClaimFailure)
    {
        try verifyLifetime(at: now, clockSkew: clockSkew)
        guard authenticatedAt <= now.addingTimeInterval(clockSkew.timeInterval) else {
            throw .authenticatedInTheFuture(at: authenticatedAt)
        }
        try verifyTenant(requiredTenant)
    }
}

extension IDTokenClaims: FirebaseSessionClaims {
    package var issuer: String { iss }
    package var audience: String { aud }
    package var issuedAt: Date { Date(timeIntervalSince1970: TimeInterval(iat)) }
    package var expiresAt: Date { Date(timeIntervalSince1970: TimeInterval(exp)) }
    package var tenant: String? { firebase.tenant }
    package var authenticatedAt: Date { Date(timeIntervalSince1970: TimeInterval(authTime)) }
}

extension BlockingEventClaims: FirebaseTokenClaims {
    package var issuer: String { iss }
    package var audience: String { aud }
    package var issuedAt: Date { Date(timeIntervalSince1970: TimeInterval(iat)) }
    package var expiresAt: Date { Date(timeIntervalSince1970: TimeInterval(exp)) }
    package var tenant: String? { tenantID }
}
