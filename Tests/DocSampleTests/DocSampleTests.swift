import Foundation
import MultiFactorAuth
import Testing

/// Every Swift sample of the seed docs, run against the emulator over
/// loopback: enroll, sign in with the second factor, unenroll.
@Suite(.serialized) struct DocSampleTests {
    @Test func asyncSamplesEnrollSignInAndUnenroll() async throws {
        try await DocSampleEnvironment.with { environment in
            let currentUser = try #require(Auth.auth().currentUser)
            try await asyncEnrollmentSample(currentUser: currentUser)
            #expect(currentUser.multiFactor.enrolledFactors.map(\.factorID) == [TOTPMultiFactorID])
            #expect(currentUser.multiFactor.enrolledFactors.first?.displayName == "TOTP")
            let uri = try #require(FakeAuthenticatorApp.shared.openedURIs)
            #expect(uri.issuer == "Your App Name")
            #expect(uri.account == environment.email)

            try Auth.auth().signOut()
            #expect(Auth.auth().currentUser == nil)
            try await asyncSignInSample(email: environment.email, password: environment.password, selectedIndex: 0)
            let signedIn = try #require(Auth.auth().currentUser)
            #expect(signedIn.uid == currentUser.uid)

            try await asyncUnenrollSample(selectedIndex: 0)
            #expect(Auth.auth().currentUser?.multiFactor.enrolledFactors.isEmpty == true)
        }
    }

    /// The branches beside the success path: a mistyped code at enrollment
    /// and at sign-in ("Wrong or expired OTP"), and the unenroll of the newest
    /// of two factors, which signs the user out (`.invalidUserToken`).
    @Test func asyncSamplesOtherBranches() async throws {
        try await DocSampleEnvironment.with { environment in
            let currentUser = try #require(Auth.auth().currentUser)
            FakeAuthenticatorApp.shared.mistypeNextCode()
            try await asyncEnrollmentSample(currentUser: currentUser)
            #expect(currentUser.multiFactor.enrolledFactors.isEmpty)
            try await asyncEnrollmentSample(currentUser: currentUser)
            #expect(currentUser.multiFactor.enrolledFactors.count == 1)

            try Auth.auth().signOut()
            FakeAuthenticatorApp.shared.mistypeNextCode()
            try await asyncSignInSample(email: environment.email, password: environment.password, selectedIndex: 0)
            #expect(Auth.auth().currentUser == nil)
            try await asyncSignInSample(email: environment.email, password: environment.password, selectedIndex: 0)
            #expect(Auth.auth().currentUser?.uid == currentUser.uid)

            try await environment.enrollPhoneFactor()
            let signedIn = try #require(Auth.auth().currentUser)
            #expect(signedIn.multiFactor.enrolledFactors.count == 2)
            try await asyncUnenrollSample(selectedIndex: 1)
            #expect(Auth.auth().currentUser == nil)

            // "Re-authenticate them": the password step answers that the TOTP
            // factor left is required, and its resolver completes the sign-in.
            do {
                _ = try await signedIn.reauthenticate(
                    with: EmailAuthProvider.credential(withEmail: environment.email, password: environment.password))
                Issue.record("expected secondFactorRequired")
            } catch let error as AuthErrorCode where error.code == .secondFactorRequired {
                let resolver = try #require(
                    error.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as? MultiFactorResolver)
                let hint = try #require(resolver.hints.first)
                #expect(hint.factorID == TOTPMultiFactorID && resolver.hints.count == 1)
                let result = try await resolver.resolveSignIn(
                    with: TOTPMultiFactorGenerator.assertionForSignIn(
                        withEnrollmentID: hint.uid, oneTimePassword: oneTimePassword))
                #expect(result.user.uid == signedIn.uid)
                #expect(try await result.user.getIDTokenResult().signInSecondFactor == "totp")
            }
        }
    }

    /// The sign-in samples' other branches, in all three forms: a user
    /// without a second factor signs straight in; a wrong password is the
    /// async sample's "other auth error"; a phone factor chosen takes the
    /// `default`/`PhoneMultiFactorID` branch (nothing signs in); a mistyped
    /// code is the resolver's error branch.
    @Test func signInSamplesRemainingBranches() async throws {
        try await DocSampleEnvironment.with { environment in
            let uid = try #require(Auth.auth().currentUser?.uid)
            let signIns: [(String, (Int) async throws -> Void)] = [
                (
                    "async",
                    {
                        try await asyncSignInSample(
                            email: environment.email, password: environment.password, selectedIndex: $0)
                    }
                ),
                (
                    "completion",
                    {
                        completionSignInSample(
                            email: environment.email, password: environment.password, selectedIndex: $0)
                    }
                ),
                (
                    "Objective-C style",
                    {
                        objectiveCStyleSignInSample(
                            email: environment.email, password: environment.password, selectedIndex: $0)
                    }
                ),
            ]
            for (form, signIn) in signIns {
                try Auth.auth().signOut()
                try await signIn(0)
                #expect(
                    try await environment.eventually { Auth.auth().currentUser?.uid == uid },
                    "\(form): no second factor")
            }
            do {
                try Auth.auth().signOut()
                try await asyncSignInSample(email: environment.email, password: "not the password", selectedIndex: 0)
                Issue.record("the async sample swallowed a wrong password")
            } catch AuthErrorCode.invalidCredential {
                #expect(Auth.auth().currentUser == nil)
            }

            try await asyncSignInSample(email: environment.email, password: environment.password, selectedIndex: 0)
            let user = try #require(Auth.auth().currentUser)
            try await asyncEnrollmentSample(currentUser: user)
            try await environment.enrollPhoneFactor()
            #expect(user.multiFactor.enrolledFactors.map(\.factorID) == [TOTPMultiFactorID, PhoneMultiFactorID])
            for (form, signIn) in signIns {
                try Auth.auth().signOut()
                try await signIn(1)
                try await environment.settle()
                #expect(Auth.auth().currentUser == nil, "\(form): the phone branch signed in")

                FakeAuthenticatorApp.shared.mistypeNextCode()
                try await signIn(0)
                #expect(
                    try await environment.eventually { !FakeAuthenticatorApp.shared.typoPending },
                    "\(form): no code was asked for")
                try await environment.settle()
                #expect(Auth.auth().currentUser == nil, "\(form): a mistyped code signed in")

                try await signIn(0)
                #expect(
                    try await environment.eventually { Auth.auth().currentUser?.uid == uid }, "\(form): the right code")
            }
        }
    }

    @Test func completionSamplesEnrollSignInAndUnenroll() async throws {
        try await DocSampleEnvironment.with { environment in
            let user = try #require(Auth.auth().currentUser)
            completionEnrollmentSample()
            #expect(try await environment.eventually { user.multiFactor.enrolledFactors.count == 1 })
            // The sample names the factor after the account and uses the app's name as issuer.
            #expect(user.multiFactor.enrolledFactors.first?.displayName == environment.email)
            #expect(FakeAuthenticatorApp.shared.openedURIs?.issuer == Auth.auth().app?.name)

            try Auth.auth().signOut()
            completionSignInSample(email: environment.email, password: environment.password, selectedIndex: 0)
            #expect(try await environment.eventually { Auth.auth().currentUser?.uid == user.uid })

            let signedIn = Auth.auth().currentUser
            completionUnenrollSample(user: signedIn, selectedIndex: 0)
            #expect(try await environment.eventually { signedIn?.multiFactor.enrolledFactors.isEmpty == true })
        }
    }

    /// The completion unenroll sample's reauthentication branch: unenrolling
    /// the newest of two factors ends the session and signs the user out.
    @Test func completionUnenrollOfTheNewestFactorSignsOut() async throws {
        try await DocSampleEnvironment.with { environment in
            let user = try #require(Auth.auth().currentUser)
            completionEnrollmentSample()
            #expect(try await environment.eventually { user.multiFactor.enrolledFactors.count == 1 })
            try await environment.enrollPhoneFactor()
            #expect(user.multiFactor.enrolledFactors.count == 2)
            completionUnenrollSample(user: user, selectedIndex: 1)
            #expect(try await environment.eventually { Auth.auth().currentUser == nil })
        }
    }

    /// The Objective-C unenroll sample's `userTokenExpired` branch.
    @Test func objectiveCStyleUnenrollOfTheNewestFactorSignsOut() async throws {
        try await DocSampleEnvironment.with { environment in
            let user = try #require(Auth.auth().currentUser)
            objectiveCStyleEnrollmentSample(displayName: "Objective-C style")
            #expect(try await environment.eventually { user.multiFactor.enrolledFactors.count == 1 })
            try await environment.enrollPhoneFactor()
            objectiveCStyleUnenrollSample(selectedIndex: 1)
            #expect(try await environment.eventually { Auth.auth().currentUser == nil })
        }
    }

    @Test func objectiveCStyleSamplesEnrollSignInAndUnenroll() async throws {
        try await DocSampleEnvironment.with { environment in
            let user = try #require(Auth.auth().currentUser)
            objectiveCStyleEnrollmentSample(displayName: "Objective-C style")
            #expect(
                try await environment.eventually {
                    user.multiFactor.enrolledFactors.first?.displayName == "Objective-C style"
                })

            try Auth.auth().signOut()
            objectiveCStyleSignInSample(email: environment.email, password: environment.password, selectedIndex: 0)
            #expect(try await environment.eventually { Auth.auth().currentUser?.uid == user.uid })

            objectiveCStyleUnenrollSample(selectedIndex: 0)
            #expect(
                try await environment.eventually {
                    Auth.auth().currentUser?.multiFactor.enrolledFactors.isEmpty == true
                })
        }
    }
}
