import AdminTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdAuth
import HummingbirdTesting
import IdentityAdmin
import IdentityAdminHummingbird
import IdentityToolkit
import Testing

/// Every sign-in policy on the emulator's real tokens through the
/// Hummingbird middleware: users with and without a factor, before and
/// after an enrolment deadline, stale and single-factor sign-ins (the same
/// table as the Vapor middleware's, `SignInPolicyCases`).
@Suite struct SignInPolicyTests {
    typealias Context = BasicAuthRequestContext<DecodedIDToken>

    @Test func eachPolicyAnswersEachSignInAsItSays() async throws {
        try await EmulatorSetup.with(project: "demo-policies") { setup in
            let table = try await SignInPolicyCases.make(setup)
            for policyCase in table.cases {
                let router = Router(context: Context.self)
                router.add(middleware: FirebaseAuthenticator(setup.admin, options: .init(policy: policyCase.policy)))
                router.get("me") { _, context in
                    let token = try context.requireIdentity()
                    return SignInPolicyCases.body(
                        uid: token.uid, factor: token.signInSecondFactor, due: token.secondFactorEnrollmentDue)
                }
                try await Application(router: router).test(.router) { client in
                    let response = try await client.execute(
                        uri: "/me", method: .get, headers: [.authorization: "Bearer \(policyCase.token)"])
                    #expect(Int(response.status.code) == policyCase.status, "\(policyCase)")
                    let challenge = response.headers[.wwwAuthenticate].flatMap(StepUpChallenge.init(wwwAuthenticate:))
                    #expect(
                        challenge == policyCase.challenge,
                        "\(policyCase): \(response.headers[.wwwAuthenticate] ?? "no challenge")")
                    if policyCase.status == 200 {
                        #expect(
                            String(buffer: response.body).hasSuffix(policyCase.enrollmentDue ? " due" : " -"),
                            "\(policyCase)")
                    } else {
                        let body =
                            try JSONSerialization.jsonObject(with: Data(buffer: response.body))
                            as? [String: [String: String]]
                        #expect(body?["error"]?["reason"] == policyCase.reason, "\(policyCase)")
                        #expect(!String(buffer: response.body).contains(policyCase.token))
                    }
                }
            }
        }
    }

    /// A session cookie's refusal for a missing second factor stays a 403
    /// without a challenge: a browser page answers no `WWW-Authenticate`.
    @Test func aSessionCookieGetsNoChallenge() async throws {
        try await EmulatorSetup.with(project: "demo-policy-cookie") { setup in
            let tokens = try await MiddlewareTokens.make(setup)
            let cookie = try await setup.admin.createSessionCookie(tokens.password, expiresIn: .seconds(3600))
            let router = Router(context: Context.self)
            router.add(
                middleware: FirebaseAuthenticator(
                    setup.admin, options: .init(credential: .sessionCookie(), policy: .init(secondFactor: .ifEnrolled)))
            )
            router.get("me") { _, context in try context.requireIdentity().uid }
            try await Application(router: router).test(.router) { client in
                let response = try await client.execute(
                    uri: "/me", method: .get, headers: [.cookie: "session=\(cookie)"])
                #expect(response.status == .forbidden)
                #expect(response.headers[.wwwAuthenticate] == nil)
            }
        }
    }

    /// The old options keep their meaning: `requireSecondFactor` is the
    /// policy `.required()`; the age applies with or without it (it was
    /// dropped without it, so a route that asked for a recent sign-in took
    /// any), the same as when the property is set afterwards.
    @Test func theOlderOptionsMapOntoThePolicy() {
        let strict = FirebaseAuthenticator<Context>.Options(
            requireSecondFactor: true, maximumAuthenticationAge: .seconds(60))
        #expect(
            strict.policy == FirebaseSignInPolicy(secondFactor: .required(), maximumAuthenticationAge: .seconds(60)))
        #expect(strict.requireSecondFactor)
        let lenient = FirebaseAuthenticator<Context>.Options(
            requireSecondFactor: false, maximumAuthenticationAge: .seconds(60))
        #expect(lenient.policy == FirebaseSignInPolicy(maximumAuthenticationAge: .seconds(60)))
        var setAfterwards = FirebaseAuthenticator<Context>.Options()
        setAfterwards.maximumAuthenticationAge = .seconds(60)
        #expect(setAfterwards.policy == lenient.policy)
        var changed = FirebaseAuthenticator<Context>.Options(policy: .init(secondFactor: .ifEnrolled))
        #expect(!changed.requireSecondFactor)
        changed.requireSecondFactor = true
        #expect(changed.policy.secondFactor == .required())
    }

    /// What the policy knows of a user's factors is the cached account
    /// state: a factor enrolled through a client counts on this instance
    /// once the app forgets that state (at the latest after
    /// `revocationMaximumAge` everywhere).
    @Test func aFactorEnrolledElsewhereCountsOnceTheStateIsForgotten() async throws {
        try await EmulatorSetup.with(project: "demo-policy-cache") { setup in
            let email = "cache@example.com"
            let password = "correct horse"
            let uid = try await setup.accounts.signUp(
                SignUpRequest(email: email, password: password, returnSecureToken: true)
            ).localId
            _ = try await setup.admin.updateUser(uid, UpdateUserRequest(emailVerified: true))
            let passwordToken = try #require(
                try await setup.accounts.signInWithPassword(SignInWithPasswordRequest(email: email, password: password))
                    .idToken)
            let token = try await setup.admin.verifyIDToken(passwordToken)
            let policy = FirebaseSignInPolicy(secondFactor: .ifEnrolled)
            #expect(try await setup.admin.enforce(policy, on: token) == token, "no factor yet: let through")
            _ = try await setup.enrollTOTP(idToken: passwordToken, displayName: "Phone")
            #expect(
                try await setup.admin.enforce(policy, on: token) == token,
                "the state looked up a moment ago still answers")
            setup.admin.forgetCachedAccountState(uid: uid)
            await #expect(throws: TokenVerificationError.secondFactorRequired) {
                try await setup.admin.enforce(policy, on: token)
            }
        }
    }
}
