import AdminTestSupport
import Foundation
import IdentityOTP
import IdentityToolkit
import IdentityToolkitAsyncHTTPClient
import IdentityToolkitEmulator
import Testing

@testable import IdentityAdmin

/// The support desk's story, end to end against the emulator: a user enrolls
/// TOTP and loses the phone; the admin finds the user, removes the factor and
/// ends the sessions; the old token fails `checkRevoked`; the user signs in
/// with the password alone and enrolls again.
@Suite struct RecoveryStoryTests {
    static let project = "demo-recovery"

    @Test func aLostAuthenticatorIsRemovedAndTheUserEnrollsAgain() async throws {
        try await EmulatorSetup.with(project: Self.project) { setup in
            let (admin, accounts) = (setup.admin, setup.accounts)
            let clock = setup.clock
            // The story moves the emulator's clock forward about a minute and a
            // half; it starts two minutes back, so tokens are never from the
            // verifier's future.
            clock.set(Date().addingTimeInterval(-120))

            // Sign up, verify the email, enroll TOTP.
            let email = "lost-phone@example.com"
            let password = "correct horse"
            let created = try await accounts.signUp(
                SignUpRequest(email: email, password: password, returnSecureToken: true))
            let idToken = try #require(created.idToken)
            _ = try await admin.updateUser(created.localId, UpdateUserRequest(emailVerified: true))
            let lostPhone = try await setup.enrollTOTP(idToken: idToken, displayName: "Old phone")
            let oldSession = try await setup.signInWithTOTP(email: email, password: password, totp: lostPhone)
            let oldToken = try #require(oldSession.idToken)

            // The desk finds the user by email and sees the factor.
            let found = try await admin.getUser(email: email)
            #expect(found.uid == created.localId && found.emailVerified && !found.disabled)
            #expect(found.multiFactor.enrolledFactors.map(\.factorID) == ["totp"])
            #expect(found.multiFactor.enrolledFactors.first?.displayName == "Old phone")
            #expect(try await admin.getUser(uid: created.localId) == found)
            let nobody = await #expect(throws: AdminError.self) { _ = try await admin.getUser(uid: "nobody") }
            #expect(nobody?.code == .userNotFound && nobody?.detail == #"no user with uid or email "nobody""#)
            // A TOTP factor cannot be added by an admin (as production answers).
            var invented = try #require(found.multiFactor.enrolledFactors.first)
            invented.uid = "invented"
            await #expect(throws: IdentityToolkitError.self) {
                _ = try await admin.updateUser(found.uid, UpdateUserRequest(enrolledFactors: [invented]))
            }

            // The desk removes the factor and ends the sessions.
            let cleared = try await admin.updateUser(found.uid, UpdateUserRequest(enrolledFactors: []))
            #expect(cleared.multiFactor.enrolledFactors.isEmpty)
            clock.advance(by: 2)
            try await admin.revokeRefreshTokens(uid: found.uid, now: clock.now)
            #expect(try await admin.getUser(uid: found.uid).tokensValidAfterTime != nil)
            await #expect(throws: TokenVerificationError.revoked) {
                _ = try await admin.verifyIDToken(oldToken, checkRevoked: true)
            }

            // The user signs in with the password alone and enrolls a new phone.
            clock.advance(by: 30)
            let again = try await accounts.signInWithPassword(
                SignInWithPasswordRequest(email: email, password: password))
            #expect(again.mfaPendingCredential == nil)
            let newToken = try #require(again.idToken)
            _ = try await admin.verifyIDToken(newToken, checkRevoked: true)
            _ = try await setup.enrollTOTP(idToken: newToken, displayName: "New phone")
            #expect(
                try await admin.getUser(uid: found.uid).multiFactor.enrolledFactors.map(\.displayName) == ["New phone"])
        }
    }
}
