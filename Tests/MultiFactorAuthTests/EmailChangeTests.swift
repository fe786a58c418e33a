import Foundation
import MultiFactorAuth
import Testing

/// `sendEmailVerification(beforeUpdatingEmail:)`: how a user with a second
/// factor changes email (`VERIFY_AND_CHANGE_EMAIL` with `newEmail`).
@Suite struct EmailChangeTests {
    @Test func aVerifiedNewAddressReplacesTheOldOne() async throws {
        try await withSDK { h in
            let auth = h.auth()
            let user = try await h.verifiedUser(on: auth)
            _ = try await h.enrollTOTP(user)
            try await user.sendEmailVerification(
                beforeUpdatingEmail: "changed-\(user.uid.prefix(6).lowercased())@example.com")
            let newEmail = "changed-\(user.uid.prefix(6).lowercased())@example.com"
            #expect(user.email != newEmail) // unchanged until the link is followed
            let codes =
                try await h.helper("/emulator/v1/projects/\(h.project)/oobCodes")["oobCodes"] as? [[String: String]]
                ?? []
            let entry = try #require(codes.last { $0["newEmail"] == newEmail })
            #expect(entry["requestType"] == "VERIFY_AND_CHANGE_EMAIL")
            try await auth.applyActionCode(try #require(entry["oobCode"]))
            try await user.reload()
            #expect(user.email == newEmail && user.isEmailVerified)

            // An address another account has is refused.
            let other = try await h.auth().createUser(
                withEmail: "taken-\(user.uid.prefix(6).lowercased())@example.com", password: "secret-password"
            ).user
            await expectAuthError(.emailAlreadyInUse) {
                try await user.sendEmailVerification(beforeUpdatingEmail: try #require(other.email))
            }
        }
    }
}
