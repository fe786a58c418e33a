#if Emulator && AsyncHTTPClient
import Foundation
public import IdentityAdmin
public import IdentityToolkit
import Testing

/// Real emulator tokens for every situation a ``FirebaseSignInPolicy``
/// tells apart, and the answer each policy must give them: one table that
/// the Hummingbird and the Vapor middleware tests both run, so the two
/// adapters are held to the same answers.
public struct SignInPolicyCases: Sendable {
    /// One request: the policy of the route, the token sent, and the answer expected.
    public struct Case: Sendable, CustomStringConvertible {
        public let name: String
        public let policy: FirebaseSignInPolicy
        public let token: String
        /// 200, or the refusal's status.
        public let status: Int
        /// The refusal's reason; nil for a 200.
        public let reason: String?
        /// The `WWW-Authenticate` step-up challenge expected, if any.
        public let challenge: StepUpChallenge?
        /// For a 200: whether the identity carries an enrolment deadline.
        public let enrollmentDue: Bool

        public var description: String { name }
    }

    /// The tokens the cases send, for tests of their own.
    public struct Tokens: Sendable {
        /// The user with TOTP: a password sign-in, TOTP sign-ins now and ten minutes ago.
        public let enrolledPassword: String, freshTOTP: String, staleTOTP: String
        /// Users without a factor: an account made now, and one made ten days ago.
        public let newcomer: String, veteran: String
        /// The uid of the user who has TOTP.
        public let enrolledUID: String
    }

    public let cases: [Case]
    public let tokens: Tokens

    /// What a protected `/me` route answers for an accepted request:
    /// `uid factor due|-`, so both adapters' handlers print the same.
    public static func body(uid: String, factor: String?, due: Date?) -> String {
        "\(uid) \(factor ?? "none") \(due == nil ? "-" : "due")"
    }

    /// Signs users up on `setup` (one with TOTP, one without, one whose
    /// account is ten days old), signs them in now and ten minutes ago,
    /// and lists the cases.
    public static func make(_ setup: EmulatorSetup) async throws -> SignInPolicyCases {
        let password = "correct horse"
        let now = setup.clock.now
        // Ten minutes ago by the emulator's clock: stale sign-ins, still
        // unexpired (a TOTP code is accepted once and never an earlier
        // step's, so the stale TOTP sign-in comes first).
        setup.clock.set(now.addingTimeInterval(-600))
        let tokens = try await MiddlewareTokens.make(setup)
        let staleTOTP = tokens.totp
        setup.clock.set(now.addingTimeInterval(-600))
        let staleUnenrolled = try #require(
            try await setup.accounts.signUp(
                SignUpRequest(email: "stale@example.com", password: password, returnSecureToken: true)
            ).idToken)
        // An account created ten days ago, signed in now.
        setup.clock.set(now.addingTimeInterval(-10 * 86_400))
        _ = try await setup.accounts.signUp(
            SignUpRequest(email: "veteran@example.com", password: password, returnSecureToken: true))
        setup.clock.set(now)
        let freshTOTP = try #require(
            try await setup.signInWithTOTP(
                email: tokens.email, password: tokens.passwordText, totp: tokens.generator
            ).idToken)
        let veteran = try #require(
            try await setup.accounts.signInWithPassword(
                SignInWithPasswordRequest(email: "veteran@example.com", password: password)
            ).idToken)
        let newcomer = try #require(
            try await setup.accounts.signUp(
                SignUpRequest(email: "newcomer@example.com", password: password, returnSecureToken: true)
            ).idToken)

        let dayAgo = Date().addingTimeInterval(-86_400)
        let inAWeek = Date().addingTimeInterval(7 * 86_400)
        let fiveMinutes = Duration.seconds(300)
        let week = Duration.seconds(7 * 86_400)
        let secondFactorChallenge = StepUpChallenge(
            requiresSecondFactor: true, reason: "a sign-in with the second factor is required")
        func tooOld(secondFactor: Bool) -> StepUpChallenge {
            StepUpChallenge(
                requiresSecondFactor: secondFactor, maximumAuthenticationAge: fiveMinutes,
                reason: "a more recent sign-in is required")
        }
        func ok(_ name: String, _ policy: FirebaseSignInPolicy, _ token: String, due: Bool = false) -> Case {
            Case(
                name: name, policy: policy, token: token, status: 200, reason: nil, challenge: nil,
                enrollmentDue: due)
        }
        func refused(
            _ name: String, _ policy: FirebaseSignInPolicy, _ token: String, _ status: Int, _ reason: String,
            _ challenge: StepUpChallenge?
        ) -> Case {
            Case(
                name: name, policy: policy, token: token, status: status, reason: reason, challenge: challenge,
                enrollmentDue: false)
        }
        let cases = [
            ok("notRequired: a password sign-in of a user with TOTP", .init(), tokens.password),
            refused(
                "ifEnrolled: a password sign-in of a user with TOTP", .init(secondFactor: .ifEnrolled),
                tokens.password, 401, "secondFactorRequired", secondFactorChallenge),
            ok("ifEnrolled: a TOTP sign-in", .init(secondFactor: .ifEnrolled), freshTOTP),
            ok(
                "ifEnrolled: a password sign-in of a user without a factor", .init(secondFactor: .ifEnrolled),
                newcomer),
            refused(
                "required: a password sign-in of a user with TOTP",
                .init(secondFactor: .required(enrollBy: inAWeek)), tokens.password, 401, "secondFactorRequired",
                secondFactorChallenge),
            ok("required: a TOTP sign-in", .init(secondFactor: .required()), freshTOTP),
            ok(
                "required: no factor before the deadline", .init(secondFactor: .required(enrollBy: inAWeek)),
                newcomer, due: true),
            refused(
                "required: no factor after the deadline", .init(secondFactor: .required(enrollBy: dayAgo)),
                newcomer, 403, "secondFactorEnrollmentRequired", nil),
            refused(
                "required: no factor and no deadline", .init(secondFactor: .required()), newcomer, 403,
                "secondFactorEnrollmentRequired", nil),
            ok(
                "required: a new account within its snooze",
                .init(secondFactor: .required(enrollBy: dayAgo, snooze: week)), newcomer, due: true),
            refused(
                "required: a ten-day-old account past its snooze",
                .init(secondFactor: .required(enrollBy: dayAgo, snooze: week)), veteran, 403,
                "secondFactorEnrollmentRequired", nil),
            refused(
                "5 minutes: a TOTP sign-in 10 minutes old", .init(maximumAuthenticationAge: fiveMinutes), staleTOTP,
                401, "authenticationTooOld", tooOld(secondFactor: true)),
            refused(
                "5 minutes: a password sign-in 10 minutes old", .init(maximumAuthenticationAge: fiveMinutes),
                staleUnenrolled, 401, "authenticationTooOld", tooOld(secondFactor: false)),
            ok(
                "ifEnrolled within 5 minutes: a fresh TOTP sign-in",
                .init(secondFactor: .ifEnrolled, maximumAuthenticationAge: fiveMinutes), freshTOTP),
        ]
        return SignInPolicyCases(
            cases: cases,
            tokens: Tokens(
                enrolledPassword: tokens.password, freshTOTP: freshTOTP, staleTOTP: staleTOTP,
                newcomer: newcomer, veteran: veteran, enrolledUID: tokens.uid))
    }
}
#endif
