public import Foundation
import IdentitySupport

/// What a protected route asks of a sign-in beyond a valid credential:
/// whether it used a second factor, and how recent it is. Firebase gives a
/// server two facts — `firebase.sign_in_second_factor` in the token and the
/// user's enrolled factors — and leaves the policy to the app; this is that
/// policy, in one value that the Hummingbird and Vapor adapters apply alike
/// (``FirebaseRouteProtection/Options/policy``), or that a server applies
/// itself with ``BaseAuth/enforce(_:on:now:)``.
///
/// ```swift
/// // Everyone who has a factor must use it; sensitive routes need a sign-in of the last 5 minutes.
/// let everyday = FirebaseSignInPolicy(secondFactor: .ifEnrolled)
/// let sensitive = FirebaseSignInPolicy(secondFactor: .ifEnrolled, maximumAuthenticationAge: .seconds(300))
/// // Every user must enrol by 1 March; new accounts get 7 days.
/// let campaign = FirebaseSignInPolicy(secondFactor: .required(enrollBy: march1, snooze: .seconds(7 * 86_400)))
/// ```
///
/// A refusal that a new sign-in can cure (``TokenVerificationError/secondFactorRequired``,
/// ``TokenVerificationError/authenticationTooOld(authTime:maximumAge:)``)
/// answers a bearer token with `401` and a step-up challenge (RFC 9470,
/// `StepUpChallenge`), which MultiFactorAuth's client answers by itself;
/// one that only enrolment cures
/// (``TokenVerificationError/secondFactorEnrollmentRequired(deadline:)``) answers `403`.
public struct FirebaseSignInPolicy: Sendable, Hashable {
    /// Who must sign in with a second factor.
    public enum SecondFactor: Sendable, Hashable {
        /// Any sign-in.
        case notRequired
        /// Users who have enrolled a factor must sign in with it (Ory
        /// Kratos's `highest_available`); users without one go on. Whether
        /// a user has one comes from the account lookup that `checkRevoked`
        /// uses, remembered for ``TokenCacheOptions/revocationMaximumAge``
        /// (so a factor enrolled elsewhere counts within that bound).
        case ifEnrolled
        /// Every user must sign in with a second factor. A user without one
        /// is let through until `enrollBy` — or, for an account created
        /// later, until `snooze` after its creation — with
        /// ``DecodedIDToken/secondFactorEnrollmentDue`` set, so the app can
        /// say "enrolment due"; after that, refused with
        /// ``TokenVerificationError/secondFactorEnrollmentRequired(deadline:)``.
        /// Neither set: refused at once.
        case required(enrollBy: Date? = nil, snooze: Duration? = nil)
    }

    /// Who must sign in with a second factor; ``SecondFactor/notRequired`` by default.
    public var secondFactor: SecondFactor
    /// The oldest sign-in (`auth_time`) accepted, whatever its factors (a
    /// step-up for sensitive routes); nil for any age.
    public var maximumAuthenticationAge: Duration?

    /// A policy; the defaults ask nothing beyond a valid credential.
    public init(secondFactor: SecondFactor = .notRequired, maximumAuthenticationAge: Duration? = nil) {
        self.secondFactor = secondFactor
        self.maximumAuthenticationAge = maximumAuthenticationAge
    }

    /// Whether the policy asks nothing of a valid credential (no lookup, no clock).
    var asksNothing: Bool {
        secondFactor == .notRequired && maximumAuthenticationAge == nil
    }
}

extension BaseAuth {
    /// Applies `policy` to a verified token: the second factor first (so
    /// that a refusal asks for everything a new sign-in needs), looking the
    /// account up — bounded and cached, as `checkRevoked` does — only when
    /// the sign-in used no second factor and the policy depends on what the
    /// user has enrolled; then the age.
    /// - Parameters:
    ///   - policy: What the route asks.
    ///   - token: A token from ``verifyIDToken(_:checkRevoked:)`` or ``verifySessionCookie(_:checkRevoked:)``.
    ///   - now: The current time (for tests).
    /// - Returns: The token, with ``DecodedIDToken/secondFactorEnrollmentDue``
    ///   set when the user is let through before an enrolment deadline.
    /// - Throws: ``TokenVerificationError`` `secondFactorRequired`,
    ///   `secondFactorEnrollmentRequired`, `authenticationTooOld`,
    ///   `userNotFound`, or `revocationCheckFailed` when the account cannot be looked up.
    public func enforce(_ policy: FirebaseSignInPolicy, on token: DecodedIDToken, now: Date = Date())
        async throws(TokenVerificationError) -> DecodedIDToken
    {
        var checked = token
        if !token.usedSecondFactor {
            switch policy.secondFactor {
            case .notRequired:
                break
            case .ifEnrolled:
                if try await policyAccountState(of: token).secondFactorCount > 0 { throw .secondFactorRequired }
            case .required(let enrollBy, let snooze):
                let account = try await policyAccountState(of: token)
                if account.secondFactorCount > 0 { throw .secondFactorRequired }
                var deadline = enrollBy
                if let snooze, let createdAt = account.createdAt {
                    let ownDeadline = createdAt.addingTimeInterval(snooze.timeInterval)
                    deadline = max(deadline ?? ownDeadline, ownDeadline)
                }
                guard let deadline, now < deadline else { throw .secondFactorEnrollmentRequired(deadline: deadline) }
                checked.secondFactorEnrollmentDue = deadline
            }
        }
        try token.requireSignIn(notOlderThan: policy.maximumAuthenticationAge, now: now)
        return checked
    }

    /// The account as the policy needs it; a deleted account is refused.
    private func policyAccountState(of token: DecodedIDToken) async throws(TokenVerificationError)
        -> AccountStateCache.AccountState
    {
        var source = "lookup"
        let state = try await accountState(uid: token.uid, tenant: token.tenant, source: &source)
        guard state.exists else { throw .userNotFound }
        return state
    }
}
