public import Foundation

/// Why an ID token was refused. Each case names the claim or the step that
/// failed; no message ever includes the token.
public enum TokenVerificationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not a JWT, or a header or claims that do not decode (the reason says which).
    case malformed(String)
    /// The header's `alg` is not `RS256`.
    case unsupportedAlgorithm(String)
    /// The header's `kid` is not among the current public keys.
    case unknownKey(kid: String)
    /// The RS256 signature does not verify with the key the header names.
    case badSignature
    /// `aud` is not this project.
    case wrongAudience(expected: String, found: String)
    /// `iss` is not `https://securetoken.google.com/<project>` (for a session
    /// cookie, `https://session.firebase.google.com/<project>`).
    case wrongIssuer(expected: String, found: String)
    /// `exp` has passed.
    case expired(at: Date)
    /// `iat` is in the future (beyond the clock-skew allowance).
    case issuedInTheFuture(at: Date)
    /// `auth_time` is in the future (beyond the clock-skew allowance).
    case authenticatedInTheFuture(at: Date)
    /// `sub` is empty or longer than 128 characters.
    case invalidSubject
    /// `firebase.tenant` is not the tenant of a tenant-scoped verifier.
    case tenantMismatch(expected: String, found: String?)
    /// The public keys could not be fetched and no usable copy is cached.
    case keysUnavailable(reason: String)
    /// The user's sessions were revoked after this sign-in (`auth_time`
    /// before the account's `validSince`); asked for with `checkRevoked`.
    case revoked
    /// The account is disabled (`checkRevoked`).
    case userDisabled
    /// The account no longer exists (`checkRevoked`).
    case userNotFound
    /// The account could not be looked up for `checkRevoked`.
    case revocationCheckFailed(reason: String)
    /// The sign-in used no second factor, and the policy requires one.
    case secondFactorRequired
    /// The sign-in (`auth_time`) is older than the policy allows.
    case authenticationTooOld(authTime: Date, maximumAge: Duration)

    /// Names the failed claim or step; never includes the token.
    public var description: String {
        switch self {
        case .malformed(let reason): return "the token is malformed: \(reason)"
        case .unsupportedAlgorithm(let alg): return "the token's header has alg \"\(alg.prefix(20))\"; only RS256 is accepted"
        case .unknownKey(let kid): return "the token's header names kid \"\(kid.prefix(64))\", which is not among the current public keys"
        case .badSignature: return "the token's signature does not verify"
        case .wrongAudience(let expected, let found): return "the token's aud is \"\(found.prefix(128))\", not the project \"\(expected)\""
        case .wrongIssuer(let expected, let found): return "the token's iss is \"\(found.prefix(128))\", not \"\(expected)\""
        case .expired(let at): return "the token expired at \(at) (exp)"
        case .issuedInTheFuture(let at): return "the token's iat (\(at)) is in the future"
        case .authenticatedInTheFuture(let at): return "the token's auth_time (\(at)) is in the future"
        case .invalidSubject: return "the token's sub must be a non-empty uid of at most 128 characters"
        case .tenantMismatch(let expected, let found):
            return "the token's firebase.tenant is \(found.map { "\"\($0.prefix(128))\"" } ?? "absent"), not the tenant \"\(expected)\""
        case .keysUnavailable(let reason): return "the public keys are unavailable: \(reason)"
        case .revoked: return "the user's sessions were revoked after this sign-in (auth_time is before the account's validSince)"
        case .userDisabled: return "the user's account is disabled"
        case .userNotFound: return "the token's user (sub) no longer exists"
        case .revocationCheckFailed(let reason): return "the account could not be looked up to check revocation: \(reason)"
        case .secondFactorRequired: return "the sign-in used no second factor (firebase.sign_in_second_factor is absent)"
        case .authenticationTooOld(let authTime, let maximumAge):
            return "the sign-in (auth_time \(authTime)) is older than \(maximumAge.components.seconds) seconds"
        }
    }
}
