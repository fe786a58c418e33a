import Foundation
import HTTPTypes
import IdentityToolkit
import IdentityToolkitEmulator
import Testing

/// A phone number that another account has: linking answers a
/// `temporaryProof` (no tokens), which works once, for that number only.
@Suite struct TemporaryProofTests {
    @Test func aTakenNumberGivesAProofThatWorksOnce() async throws {
        try await withEmulator { (h: Harness) async throws in
            func code(for number: String) async throws -> String {
                let sent = try await h.accounts.sendVerificationCode(SendVerificationCodeRequest(phoneNumber: number))
                let code = try #require(try await h.verificationCodes().last?["code"])
                return try #require(sent.sessionInfo) + " " + code
            }
            let first = try await code(for: "+15555550100").split(separator: " ").map(String.init)
            _ = try await h.accounts.signInWithPhoneNumber(
                SignInWithPhoneNumberRequest(sessionInfo: first[0], code: first[1]))
            let other = try await h.accounts.signUp(SignUpRequest(returnSecureToken: true))
            let second = try await code(for: "+15555550100").split(separator: " ").map(String.init)
            let taken = try await h.accounts.signInWithPhoneNumber(
                SignInWithPhoneNumberRequest(
                    sessionInfo: second[0], code: second[1], idToken: other.idToken))
            let proof = try #require(taken.temporaryProof)
            #expect(taken.idToken == nil && taken.phoneNumber == "+15555550100")
            #expect(try await h.verificationCodes().allSatisfy { $0["sessionInfo"] != proof })
            await expectServerError("INVALID_TEMPORARY_PROOF") {
                try await h.accounts.signInWithPhoneNumber(
                    SignInWithPhoneNumberRequest(
                        phoneNumber: "+15555550199", temporaryProof: proof, idToken: other.idToken))
            }
            let fresh = try await code(for: "+15555550100").split(separator: " ").map(String.init)
            let again = try await h.accounts.signInWithPhoneNumber(
                SignInWithPhoneNumberRequest(sessionInfo: fresh[0], code: fresh[1], idToken: other.idToken))
            let proof2 = try #require(again.temporaryProof)
            await expectServerError("PHONE_NUMBER_EXISTS") {
                try await h.accounts.signInWithPhoneNumber(
                    SignInWithPhoneNumberRequest(
                        phoneNumber: "+15555550100", temporaryProof: proof2, idToken: other.idToken))
            }
            await expectServerError("INVALID_TEMPORARY_PROOF") {
                try await h.accounts.signInWithPhoneNumber(
                    SignInWithPhoneNumberRequest(
                        phoneNumber: "+15555550100", temporaryProof: proof2, idToken: other.idToken))
            }
        }
    }
}
