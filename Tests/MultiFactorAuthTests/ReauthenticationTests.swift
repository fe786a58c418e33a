import Foundation
import MultiFactorAuth
import Testing

/// `User.reauthenticate(with:)` with `EmailAuthProvider.credential(withEmail:password:)`:
/// the docs' step before changing factors (a recent sign-in is required).
@Suite struct ReauthenticationTests {
    @Test func reauthenticationRenewsTheSignInAndAsksForTheSecondFactor() async throws {
        try await withSDK { h in
            let auth = h.auth()
            let user = try await h.verifiedUser(on: auth)
            let email = try #require(user.email)
            let first = try await user.getIDTokenResult()
            h.clock.advance(by: 10 * 60)   // too old to change factors now
            await expectAuthError(.requiresRecentLogin) { _ = try await TOTPMultiFactorGenerator.generateSecret(with: try await user.multiFactor.session()) }

            let result = try await user.reauthenticate(with: EmailAuthProvider.credential(withEmail: email, password: "secret-password"))
            #expect(result.user === user && auth.currentUser?.uid == user.uid)
            #expect(try await user.getIDTokenResult().authDate > first.authDate)
            let secret = try await h.enrollTOTP(user)

            // A wrong password (INVALID_LOGIN_CREDENTIALS, as production answers
            // with email enumeration protection: invalidCredential), another user's credential.
            await expectAuthError(.invalidCredential) {
                try await user.reauthenticate(with: EmailAuthProvider.credential(withEmail: email, password: "nope-nope"))
            }
            let other = h.auth()
            _ = try await other.createUser(withEmail: "other-reauth@example.com", password: "secret-password")
            await expectAuthError(.userMismatch) {
                try await user.reauthenticate(with: EmailAuthProvider.credential(withEmail: "other-reauth@example.com", password: "secret-password"))
            }

            // With a second factor: secondFactorRequired, then the resolver completes it.
            h.clock.advance(by: 30)
            do {
                try await user.reauthenticate(with: EmailAuthProvider.credential(withEmail: email, password: "secret-password"))
                Issue.record("expected secondFactorRequired")
            } catch let error as AuthErrorCode where error.code == .secondFactorRequired {
                let resolver = try #require(error.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as? MultiFactorResolver)
                let resolved = try await resolver.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
                    withEnrollmentID: try #require(resolver.hints.first?.uid), oneTimePassword: try h.code(secret)))
                #expect(resolved.user.uid == user.uid)
                #expect(try await resolved.user.getIDTokenResult().signInSecondFactor == "totp")
            }
            #expect(EmailAuthProvider.credential(withEmail: email, password: "secret-password").description == "AuthCredential(provider: password)")
        }
    }
}
