extension TokenVerificationError {
    /// The kind of a refusal without its details: what a server switches on
    /// (a 401 or a 403, the reason it names).
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        fileprivate enum Base: String, Sendable, Hashable {
            case malformed, unsupportedAlgorithm, unknownKey, badSignature, wrongAudience, wrongIssuer, expired
            case issuedInTheFuture, authenticatedInTheFuture, invalidSubject, tenantMismatch, keysUnavailable, revoked
            case userDisabled, userNotFound, revocationCheckFailed, secondFactorRequired, authenticationTooOld
            case secondFactorEnrollmentRequired
            case missingCredential = "missing"
        }

        fileprivate let base: Base

        /// Not a JWT, or a header or claims that do not decode.
        public static let malformed = Code(base: .malformed)
        /// The header's `alg` is not `RS256`.
        public static let unsupportedAlgorithm = Code(base: .unsupportedAlgorithm)
        /// The header's `kid` is not among the current public keys.
        public static let unknownKey = Code(base: .unknownKey)
        /// The signature does not verify.
        public static let badSignature = Code(base: .badSignature)
        /// `aud` is not this project.
        public static let wrongAudience = Code(base: .wrongAudience)
        /// `iss` is not this project's issuer.
        public static let wrongIssuer = Code(base: .wrongIssuer)
        /// `exp` has passed.
        public static let expired = Code(base: .expired)
        /// `iat` is in the future.
        public static let issuedInTheFuture = Code(base: .issuedInTheFuture)
        /// `auth_time` is in the future.
        public static let authenticatedInTheFuture = Code(base: .authenticatedInTheFuture)
        /// `sub` is not a uid.
        public static let invalidSubject = Code(base: .invalidSubject)
        /// `firebase.tenant` is not the required tenant.
        public static let tenantMismatch = Code(base: .tenantMismatch)
        /// No usable public keys.
        public static let keysUnavailable = Code(base: .keysUnavailable)
        /// The user's sessions were revoked after this sign-in.
        public static let revoked = Code(base: .revoked)
        /// The account is disabled.
        public static let userDisabled = Code(base: .userDisabled)
        /// The account no longer exists.
        public static let userNotFound = Code(base: .userNotFound)
        /// The account could not be looked up.
        public static let revocationCheckFailed = Code(base: .revocationCheckFailed)
        /// The sign-in used no second factor.
        public static let secondFactorRequired = Code(base: .secondFactorRequired)
        /// The sign-in is older than the policy allows.
        public static let authenticationTooOld = Code(base: .authenticationTooOld)
        /// The policy requires a second factor, the user has enrolled none,
        /// and the enrolment deadline has passed: only enrolment helps.
        public static let secondFactorEnrollmentRequired = Code(base: .secondFactorEnrollmentRequired)
        /// A protected route found no credential where it reads one (its
        /// name is `missing`).
        public static let missingCredential = Code(base: .missingCredential)

        /// The refusal's name, such as `expired`, `secondFactorRequired` or
        /// `missing`: the `reason` of a protected route's answer;
        /// stable, short, safe for a response body or a metric label.
        public var description: String { base.rawValue }

        /// Whether the refusal is about the credential itself (401: ask the
        /// client to sign in again) rather than what it may do (403:
        /// ``secondFactorRequired``, ``authenticationTooOld``,
        /// ``secondFactorEnrollmentRequired``, ``tenantMismatch``) or the
        /// server's own state (503: ``keysUnavailable``,
        /// ``revocationCheckFailed``). A protected route answers a bearer
        /// token's ``secondFactorRequired`` and ``authenticationTooOld``
        /// with 401 and a step-up challenge instead (``TokenVerificationError/statusCode``).
        public var httpStatus: Int {
            switch base {
            case .secondFactorRequired, .authenticationTooOld, .secondFactorEnrollmentRequired, .tenantMismatch:
                return 403
            case .keysUnavailable, .revocationCheckFailed: return 503
            default: return 401
            }
        }
    }
}

extension TokenVerificationError.Code {
    /// Matches any refusal of this kind, whatever its details:
    /// `catch TokenVerificationError.Code.expired`.
    public static func ~= (pattern: Self, error: any Error) -> Bool {
        (error as? TokenVerificationError)?.code == pattern
    }
}
