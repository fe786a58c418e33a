public import Foundation
import IdentitySupport
import IdentityToolkit

/// Why an ID token or session cookie was refused, or why a protected route
/// refused a request: the one error of a refused credential, whether it
/// comes from ``BaseAuth/verifyIDToken(_:checkRevoked:)`` or from a route's
/// middleware (which answers it with ``statusCode``, ``responseHeaders`` and
/// ``jsonBody``). Each refusal names the claim or the step that failed; no
/// message ever includes the token, and values read from an unverified token
/// (`kid`, `alg`, `aud`, …) are escaped and bounded before they reach a
/// message (``description`` is safe to log).
///
/// A struct over a private enum, as async-http-client's `HTTPClientError`,
/// so that a later release can add a refusal without breaking a `switch`.
/// Compare with `==`, match in a `catch` by value or by ``Code``:
///
/// ```swift
/// catch TokenVerificationError.revoked { … }                       // one refusal
/// catch let error as TokenVerificationError where error.code == .expired { … }
/// catch TokenVerificationError.Code.tenantMismatch { … }           // any details
/// ```
public struct TokenVerificationError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Storage: Sendable, Hashable {
        case malformed(String)
        case unsupportedAlgorithm(String)
        case unknownKey(kid: String)
        case badSignature
        case wrongAudience(expected: String, found: String)
        case wrongIssuer(expected: String, found: String)
        case expired(at: Date)
        case issuedInTheFuture(at: Date)
        case authenticatedInTheFuture(at: Date)
        case invalidSubject
        case tenantMismatch(expected: String, found: String?)
        case keysUnavailable(reason: String)
        case revoked
        case userDisabled
        case userNotFound
        case revocationCheckFailed(reason: String)
        case secondFactorRequired
        case authenticationTooOld(authTime: Date, maximumAge: Duration)
        case secondFactorEnrollmentRequired(deadline: Date?)
        case missingCredential
    }

    /// How a protected route presents the refusal; not part of equality
    /// (a refusal is the same whichever route answers it).
    struct RouteAnswer: Sendable {
        /// Whether the answer names the Bearer scheme in `WWW-Authenticate`.
        var namesBearerScheme = false
        /// Whether a step-up challenge asks for the second factor (the refusal
        /// is for its absence, or the stale sign-in had used one).
        var secondFactorForStepUp = false
    }

    private let storage: Storage
    /// Set by ``FirebaseRouteProtection``; a refusal of a direct call answers
    /// without a challenge.
    var routeAnswer = RouteAnswer()

    private init(_ storage: Storage) {
        self.storage = storage
    }

    /// Equal when the refusals are, however a route would present them.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.storage == rhs.storage }

    /// Hashes the refusal alone.
    public func hash(into hasher: inout Hasher) { hasher.combine(storage) }

    /// The project a ``wrongAudience`` refusal expected and the one the token
    /// named (escaped and bounded), for the refusal's debug line.
    package var audienceMismatch: (expected: String, found: String)? {
        if case .wrongAudience(let expected, let found) = storage { return (expected, found) }
        return nil
    }

    /// The kind of refusal, without its details.
    public var code: Code {
        switch storage {
        case .malformed: return .malformed
        case .unsupportedAlgorithm: return .unsupportedAlgorithm
        case .unknownKey: return .unknownKey
        case .badSignature: return .badSignature
        case .wrongAudience: return .wrongAudience
        case .wrongIssuer: return .wrongIssuer
        case .expired: return .expired
        case .issuedInTheFuture: return .issuedInTheFuture
        case .authenticatedInTheFuture: return .authenticatedInTheFuture
        case .invalidSubject: return .invalidSubject
        case .tenantMismatch: return .tenantMismatch
        case .keysUnavailable: return .keysUnavailable
        case .revoked: return .revoked
        case .userDisabled: return .userDisabled
        case .userNotFound: return .userNotFound
        case .revocationCheckFailed: return .revocationCheckFailed
        case .secondFactorRequired: return .secondFactorRequired
        case .authenticationTooOld: return .authenticationTooOld
        case .secondFactorEnrollmentRequired: return .secondFactorEnrollmentRequired
        case .missingCredential: return .missingCredential
        }
    }

    /// Not a JWT, or a header or claims that do not decode (the reason says which).
    public static func malformed(_ reason: String) -> Self {
        Self(.malformed(LogSafeText.escaping(reason, limit: 256)))
    }
    /// The header's `alg` is not `RS256`.
    public static func unsupportedAlgorithm(_ algorithm: String) -> Self {
        Self(.unsupportedAlgorithm(LogSafeText.escaping(algorithm, limit: 20)))
    }
    /// The header's `kid` is not among the current public keys.
    public static func unknownKey(kid: String) -> Self { Self(.unknownKey(kid: LogSafeText.escaping(kid, limit: 64))) }
    /// The RS256 signature does not verify with the key the header names.
    public static let badSignature = Self(.badSignature)
    /// `aud` is not this project.
    public static func wrongAudience(expected: String, found: String) -> Self {
        Self(.wrongAudience(expected: expected, found: LogSafeText.escaping(found)))
    }
    /// `iss` is not `https://securetoken.google.com/<project>` (for a session
    /// cookie, `https://session.firebase.google.com/<project>`).
    public static func wrongIssuer(expected: String, found: String) -> Self {
        Self(.wrongIssuer(expected: expected, found: LogSafeText.escaping(found)))
    }
    /// `exp` has passed.
    public static func expired(at date: Date) -> Self { Self(.expired(at: date)) }
    /// `iat` is in the future (beyond the clock-skew allowance).
    public static func issuedInTheFuture(at date: Date) -> Self { Self(.issuedInTheFuture(at: date)) }
    /// `auth_time` is in the future (beyond the clock-skew allowance).
    public static func authenticatedInTheFuture(at date: Date) -> Self { Self(.authenticatedInTheFuture(at: date)) }
    /// `sub` is empty or longer than 128 characters.
    public static let invalidSubject = Self(.invalidSubject)
    /// `firebase.tenant` is not the tenant required (a tenant-scoped
    /// verifier's, or ``DecodedIDToken/requireTenant(_:)``'s).
    public static func tenantMismatch(expected: String, found: String?) -> Self {
        Self(.tenantMismatch(expected: expected, found: found.map { LogSafeText.escaping($0) }))
    }
    /// The public keys could not be fetched and no usable copy is cached.
    public static func keysUnavailable(reason: String) -> Self {
        Self(.keysUnavailable(reason: LogSafeText.escaping(reason, limit: 256)))
    }
    /// The user's sessions were revoked after this sign-in (`auth_time`
    /// before the account's `validSince`); asked for with `checkRevoked`.
    public static let revoked = Self(.revoked)
    /// The account is disabled (`checkRevoked`).
    public static let userDisabled = Self(.userDisabled)
    /// The account no longer exists (`checkRevoked`).
    public static let userNotFound = Self(.userNotFound)
    /// The account could not be looked up for `checkRevoked`.
    public static func revocationCheckFailed(reason: String) -> Self {
        Self(.revocationCheckFailed(reason: LogSafeText.escaping(reason, limit: 256)))
    }
    /// The sign-in used no second factor, and the policy requires one.
    public static let secondFactorRequired = Self(.secondFactorRequired)
    /// The sign-in (`auth_time`) is older than the policy allows.
    public static func authenticationTooOld(authTime: Date, maximumAge: Duration) -> Self {
        Self(.authenticationTooOld(authTime: authTime, maximumAge: maximumAge))
    }

    /// The user has enrolled no second factor and the policy's deadline
    /// (nil: none was given) has passed: the way out is enrolment.
    public static func secondFactorEnrollmentRequired(deadline: Date?) -> Self {
        Self(.secondFactorEnrollmentRequired(deadline: deadline))
    }

    /// A protected route found no credential where it reads one.
    public static let missingCredential = Self(.missingCredential)

    /// The maximum authentication age of an ``authenticationTooOld(authTime:maximumAge:)`` refusal.
    var maximumAuthenticationAge: Duration? {
        if case .authenticationTooOld(_, let maximumAge) = storage { return maximumAge }
        return nil
    }

    /// Matches an error equal to `pattern`: `catch TokenVerificationError.revoked`.
    public static func ~= (pattern: Self, error: any Error) -> Bool {
        (error as? Self) == pattern
    }

    /// Names the failed claim or step; never includes the token, and every
    /// value from the token is escaped and bounded.
    public var description: String {
        switch storage {
        case .malformed(let reason): return "the token is malformed: \(reason)"
        case .unsupportedAlgorithm(let alg): return "the token's header has alg \"\(alg)\"; only RS256 is accepted"
        case .unknownKey(let kid):
            return "the token's header names kid \"\(kid)\", which is not among the current public keys"
        case .badSignature: return "the token's signature does not verify"
        case .wrongAudience(let expected, let found):
            return "the token's aud is \"\(found)\", not the project \"\(expected)\""
        case .wrongIssuer(let expected, let found): return "the token's iss is \"\(found)\", not \"\(expected)\""
        case .expired(let at): return "the token expired at \(at) (exp)"
        case .issuedInTheFuture(let at): return "the token's iat (\(at)) is in the future"
        case .authenticatedInTheFuture(let at): return "the token's auth_time (\(at)) is in the future"
        case .invalidSubject: return "the token's sub must be a non-empty uid of at most 128 characters"
        case .tenantMismatch(let expected, let found):
            return
                "the token's firebase.tenant is \(found.map { "\"\($0)\"" } ?? "absent"), not the tenant \"\(expected)\""
        case .keysUnavailable(let reason): return "the public keys are unavailable: \(reason)"
        case .revoked:
            return "the user's sessions were revoked after this sign-in (auth_time is before the account's validSince)"
        case .userDisabled: return "the user's account is disabled"
        case .userNotFound: return "the token's user (sub) no longer exists"
        case .revocationCheckFailed(let reason):
            return "the account could not be looked up (revocation or sign-in policy): \(reason)"
        case .secondFactorRequired:
            return "the sign-in used no second factor (firebase.sign_in_second_factor is absent)"
        case .authenticationTooOld(let authTime, let maximumAge):
            return "the sign-in (auth_time \(authTime)) is older than \(maximumAge.components.seconds) seconds"
        case .secondFactorEnrollmentRequired(let deadline):
            return "the user has enrolled no second factor, which is required" + (deadline.map { " since \($0)" } ?? "")
                + ": enrol one (TOTP) to go on"
        case .missingCredential: return "no credential"
        }
    }
}
