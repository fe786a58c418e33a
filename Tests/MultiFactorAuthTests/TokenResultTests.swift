import Foundation
import MultiFactorAuth
import Testing

/// `getIDTokenResult()`: `signInSecondFactor` is "totp" after a TOTP sign-in
/// and nil after a password-only one.
@Suite struct TokenResultTests {
    @Test func theSecondFactorOfTheSignInIsReadable() async throws {
        try await withSDK { h in
            let auth = h.auth()
            let user = try await h.verifiedUser(on: auth)
            let passwordOnly = try await user.getIDTokenResult()
            #expect(passwordOnly.signInProvider == "password" && passwordOnly.signInSecondFactor == nil)
            #expect(passwordOnly.claims["sub"] as? String == user.uid)
            #expect(passwordOnly.expirationDate.timeIntervalSince(passwordOnly.issuedAtDate) == 3600)
            #expect(!passwordOnly.description.contains(passwordOnly.token))

            let secret = try await h.enrollTOTP(user)
            try auth.signOut()
            let resolver = try await h.resolver(auth, email: try #require(user.email))
            let signedIn = try await resolver.resolveSignIn(
                with: TOTPMultiFactorGenerator.assertionForSignIn(
                    withEnrollmentID: try #require(resolver.hints.first?.uid),
                    oneTimePassword: try h.code(secret, offset: 1))
            ).user
            let result = try await signedIn.getIDTokenResult(forcingRefresh: true)
            #expect(result.signInSecondFactor == "totp")
            #expect(result.authDate <= result.issuedAtDate)
            // The completion twin.
            let twin: AuthTokenResult = try await withCheckedThrowingContinuation { continuation in
                signedIn.getIDTokenResult { result, error in
                    if let result {
                        continuation.resume(returning: result)
                    } else {
                        continuation.resume(throwing: error ?? CancellationError())
                    }
                }
            }
            #expect(twin.signInSecondFactor == "totp")
        }
    }
}
