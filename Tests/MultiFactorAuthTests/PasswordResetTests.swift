import Foundation
import MultiFactorAuth
import Testing

/// `Auth.sendPasswordReset(withEmail:)`, `verifyPasswordResetCode(_:)` and
/// `confirmPasswordReset(withCode:newPassword:)`, as Firebase's `Auth` has
/// them: what an app that handles the email's link itself calls.
@Suite struct PasswordResetTests {
    @Test func aResetCodeNamesItsAddressAndSetsTheNewPasswordOnce() async throws {
        try await withSDK { h in
            let auth = h.auth()
            let user = try await h.verifiedUser(on: auth, email: "reset-sdk@example.com")
            try await auth.sendPasswordReset(withEmail: "reset-sdk@example.com")
            let codes =
                try await h.helper("/emulator/v1/projects/\(h.project)/oobCodes")["oobCodes"] as? [[String: String]]
                ?? []
            let code = try #require(codes.last { $0["requestType"] == "PASSWORD_RESET" }?["oobCode"])
            #expect(try await auth.verifyPasswordResetCode(code) == "reset-sdk@example.com")
            await expectAuthError(.weakPassword) {
                try await auth.confirmPasswordReset(withCode: code, newPassword: "short")
            }
            h.clock.advance(by: 1) // tokens count in whole seconds
            try await auth.confirmPasswordReset(withCode: code, newPassword: "a-new-password")
            await expectAuthError(.invalidActionCode) {
                try await auth.confirmPasswordReset(withCode: code, newPassword: "another-one")
            }
            await expectAuthError(.invalidActionCode) { _ = try await auth.verifyPasswordResetCode("not-a-code") }
            // The reset ended the earlier session; the new password signs in.
            await expectAuthError(.userTokenExpired) { _ = try await user.getIDToken(forcingRefresh: true) }
            let again = h.auth()
            #expect(
                try await again.signIn(withEmail: "reset-sdk@example.com", password: "a-new-password").user.uid
                    == user.uid)
        }
    }

    @Test func theCompletionTwinIsDeliveredOnce() async throws {
        try await withSDK { h in
            let auth = h.auth()
            _ = try await h.verifiedUser(on: auth, email: "reset-twin@example.com")
            let delivered: Int = await withCheckedContinuation { continuation in
                auth.sendPasswordReset(withEmail: "reset-twin@example.com") { error in
                    #expect(error == nil)
                    continuation.resume(returning: 1)
                }
            }
            #expect(delivered == 1)
        }
    }
}
