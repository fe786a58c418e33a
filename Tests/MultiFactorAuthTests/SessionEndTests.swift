import Foundation
import IdentityToolkit
import Testing

@testable import MultiFactorAuth

/// When the server ends a session, the user is signed out, as Firebase does.
@Suite struct SessionEndTests {
    /// Per the docs: unenrolling the most recently enrolled of several factors
    /// fails with `invalidUserToken` and signs the user out (the samples'
    /// `invalidUserToken` / `userTokenExpired` branch).
    @Test func unenrollingTheNewestOfSeveralFactorsSignsTheUserOut() async throws {
        try await withSDK { h in
            let auth = h.auth()
            let user = try await h.verifiedUser(on: auth)
            _ = try await h.enrollTOTP(user)
            // A phone factor after it, through the REST client (the SDK enrolls TOTP only).
            let accounts = AccountsClient(
                apiKey: "k",
                configuration: ClientConfiguration(transport: h.transport, emulatorHost: h.hostAndPort))
            let idToken = try await user.getIDToken(forcingRefresh: true)
            let started = try await accounts.startMfaEnrollment(
                StartMfaEnrollmentRequest(idToken: idToken, phoneEnrollmentInfo: .init(phoneNumber: "+15555550100")))
            let sessionInfo = try #require(started.phoneSessionInfo?.sessionInfo)
            let codes =
                try await h.helper("/emulator/v1/projects/\(h.project)/verificationCodes")["verificationCodes"]
                as? [[String: String]] ?? []
            _ = try await accounts.finalizeMfaEnrollment(
                FinalizeMfaEnrollmentRequest(
                    idToken: idToken,
                    phoneVerificationInfo: .init(
                        sessionInfo: sessionInfo, code: codes.first { $0["sessionInfo"] == sessionInfo }?["code"])))
            try await user.reload()
            let newest = try #require(user.multiFactor.enrolledFactors.last)
            #expect(newest is PhoneMultiFactorInfo)
            #expect(auth.currentUser?.uid == user.uid)

            await expectAuthError(.invalidUserToken) { try await user.multiFactor.unenroll(with: newest) }
            #expect(auth.currentUser == nil)
        }
    }

    /// A refresh the server refuses for good (the account deleted or
    /// disabled, the session revoked) signs the user out; a network failure does not.
    @Test func aRefusedRefreshSignsTheUserOut() async throws {
        try await withSDK { h in
            let admin = AdminClient(
                accessToken: { "owner" },
                configuration: ClientConfiguration(transport: h.transport, emulatorHost: h.hostAndPort))
            let project = h.project
            let clock = h.emulator.clock
            for label in ["disabled", "revoked", "deleted"] {
                let auth = h.auth()
                let user = try await h.verifiedUser(on: auth)
                switch label {
                case "disabled":
                    _ = try await admin.updateAccount(
                        targetProjectId: project, body: SetAccountInfoRequest(localId: user.uid, disableUser: true))
                case "revoked":
                    _ = try await admin.updateAccount(
                        targetProjectId: project,
                        body: SetAccountInfoRequest(
                            localId: user.uid, validSince: Int64(clock.now.timeIntervalSince1970)))
                default:
                    _ = try await admin.deleteAccount(
                        targetProjectId: project, body: DeleteAccountRequest(localId: user.uid))
                }
                do {
                    _ = try await user.getIDToken(forcingRefresh: true)
                    Issue.record("\(label): the refresh succeeded")
                } catch let error as AuthErrorCode {
                    #expect(User.sessionEndingCodes.contains(error.code), "\(label): \(error.code)")
                }
                #expect(auth.currentUser == nil, "\(label)")
            }
        }
    }
}
