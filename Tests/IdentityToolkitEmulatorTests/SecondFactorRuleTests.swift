import Foundation
import IdentityToolkit
import IdentityToolkitEmulator
import Testing

/// Production's second-factor rules (`SecondFactorRules`), each with its
/// error, driven by the emulator's clock.
@Suite struct SecondFactorRuleTests {
    @Test func changingFactorsNeedsARecentSignIn() async throws {
        try await withEmulator(configure: { $0.secondFactorRules.recentSignIn = .seconds(120) }) { h in
            try await h.enableTOTP()
            let session = try await h.verifiedUser()
            h.clock.advance(by: 121)
            await expectServerError("CREDENTIAL_TOO_OLD_LOGIN_AGAIN") {
                try await h.accounts.startMfaEnrollment(
                    StartMfaEnrollmentRequest(idToken: session.idToken, totpEnrollmentInfo: .init()))
            }
            // A new sign-in makes it recent again; a refreshed token keeps the old auth_time.
            let refreshed = try await h.tokens.grantToken(
                GrantTokenRequest(
                    grantType: SecureTokenGrantType.refreshToken.rawValue, refreshToken: session.refreshToken))
            await expectServerError("CREDENTIAL_TOO_OLD_LOGIN_AGAIN") {
                try await h.accounts.startMfaEnrollment(
                    StartMfaEnrollmentRequest(idToken: try #require(refreshed.idToken), totpEnrollmentInfo: .init()))
            }
            let again = try await h.accounts.signInWithPassword(
                SignInWithPasswordRequest(email: session.email, password: session.password))
            var fresh = session
            fresh.idToken = try #require(again.idToken)
            fresh.refreshToken = try #require(again.refreshToken)
            let enrolled = try await h.enrollTOTP(fresh)
            // Withdrawing needs a recent sign-in too.
            h.clock.advance(by: 121)
            await expectServerError("CREDENTIAL_TOO_OLD_LOGIN_AGAIN") {
                try await h.accounts.withdrawMfa(
                    WithdrawMfaRequest(idToken: enrolled.session.idToken, mfaEnrollmentId: enrolled.enrollmentID))
            }
        }
    }

    @Test func aTOTPChallengeTimesOut() async throws {
        try await withEmulator(configure: { $0.secondFactorRules.challengeLifetime = .seconds(60) }) { h in
            try await h.enableTOTP()
            let enrolled = try await h.enrollTOTP(try await h.verifiedUser())
            let pending = try await h.pendingCredential(enrolled.session)
            h.clock.advance(by: 61)
            await expectServerError("TOTP_CHALLENGE_TIMEOUT") {
                try await h.accounts.finalizeMfaSignIn(
                    FinalizeMfaSignInRequest(
                        mfaPendingCredential: pending.credential, mfaEnrollmentId: enrolled.enrollmentID,
                        totpVerificationInfo: .init(verificationCode: try h.code(enrolled.secret))))
            }
        }
    }

    /// Six-digit codes cannot be guessed: after five wrong codes the
    /// challenge is over, and even the right code is refused.
    @Test func wrongCodesAreLimitedPerChallenge() async throws {
        try await withEmulator { h in
            try await h.enableTOTP(window: 1)
            let enrolled = try await h.enrollTOTP(try await h.verifiedUser())
            h.clock.advance(by: 30)
            let pending = try await h.pendingCredential(enrolled.session)
            let right = try h.code(enrolled.secret)
            let wrong = right == "000000" ? "111111" : "000000"
            func finalize(_ code: String) async throws -> FinalizeMfaSignInResponse {
                try await h.accounts.finalizeMfaSignIn(
                    FinalizeMfaSignInRequest(
                        mfaPendingCredential: pending.credential, mfaEnrollmentId: enrolled.enrollmentID,
                        totpVerificationInfo: .init(verificationCode: code)))
            }
            for _ in 0..<5 { await expectServerError("INVALID_CODE") { try await finalize(wrong) } }
            await expectServerError("TOO_MANY_ATTEMPTS_TRY_LATER") { try await finalize(right) }
            // The challenge is gone: the password is needed again, and then the right code works.
            await expectServerError("INVALID_MFA_PENDING_CREDENTIAL") { try await finalize(right) }
            let again = try await h.pendingCredential(enrolled.session)
            let signedIn = try await h.accounts.finalizeMfaSignIn(
                FinalizeMfaSignInRequest(
                    mfaPendingCredential: again.credential, mfaEnrollmentId: enrolled.enrollmentID,
                    totpVerificationInfo: .init(verificationCode: right)))
            #expect(signedIn.idToken != nil)

            // An enrollment session is limited the same way.
            let other = try await h.verifiedUser("other@example.com")
            let started = try await h.accounts.startMfaEnrollment(
                StartMfaEnrollmentRequest(idToken: other.idToken, totpEnrollmentInfo: .init()))
            let info = try #require(started.totpSessionInfo)
            func enroll(_ code: String) async throws -> FinalizeMfaEnrollmentResponse {
                try await h.accounts.finalizeMfaEnrollment(
                    FinalizeMfaEnrollmentRequest(
                        idToken: other.idToken, displayName: "Phone",
                        totpVerificationInfo: FinalizeTotpMfaEnrollmentRequestInfo(
                            sessionInfo: try #require(info.sessionInfo), verificationCode: code)))
            }
            let otherRight = try h.code(try #require(info.sharedSecretKey))
            let otherWrong = otherRight == "000000" ? "111111" : "000000"
            for _ in 0..<5 { await expectServerError("INVALID_CODE") { try await enroll(otherWrong) } }
            await expectServerError("TOO_MANY_ATTEMPTS_TRY_LATER") { try await enroll(otherRight) }
            await expectServerError("INVALID_SESSION_INFO") { try await enroll(otherRight) }
        }
    }

    /// Per the docs: withdrawing the most recently enrolled of several
    /// factors ends every session, the caller's included (no tokens come
    /// back); withdrawing another gives the caller a new session.
    @Test func withdrawingTheNewestOfSeveralFactorsEndsEverySession() async throws {
        try await withEmulator { h in
            try await h.enableTOTP(phone: true)
            let enrolled = try await h.enrollTOTP(try await h.verifiedUser())
            // A phone factor, enrolled after the TOTP one.
            let started = try await h.accounts.startMfaEnrollment(
                StartMfaEnrollmentRequest(
                    idToken: enrolled.session.idToken,
                    phoneEnrollmentInfo: StartMfaPhoneRequestInfo(phoneNumber: "+15555550100")))
            let sessionInfo = try #require(started.phoneSessionInfo?.sessionInfo)
            let sms = try #require(try await h.verificationCodes().last?["code"])
            let phone = try await h.accounts.finalizeMfaEnrollment(
                FinalizeMfaEnrollmentRequest(
                    idToken: enrolled.session.idToken, displayName: "Phone",
                    phoneVerificationInfo: FinalizeMfaPhoneRequestInfo(sessionInfo: sessionInfo, code: sms)))
            let idToken = try #require(phone.idToken)
            let refreshToken = try #require(phone.refreshToken)
            let user = try #require(try await h.accounts.lookup(GetAccountInfoRequest(idToken: idToken)).users?.first)
            let newest = try #require(user.mfaInfo?.last?.mfaEnrollmentId)

            let withdrawn = try await h.accounts.withdrawMfa(
                WithdrawMfaRequest(idToken: idToken, mfaEnrollmentId: newest))
            #expect(withdrawn.idToken == nil && withdrawn.refreshToken == nil)
            await expectServerError("TOKEN_EXPIRED") {
                try await h.tokens.grantToken(
                    GrantTokenRequest(grantType: SecureTokenGrantType.refreshToken.rawValue, refreshToken: refreshToken)
                )
            }
            // With one factor left, withdrawing it gives the caller a new session.
            let again = try await h.accounts.signInWithPassword(
                SignInWithPasswordRequest(email: enrolled.session.email, password: enrolled.session.password))
            h.clock.advance(by: 30)
            let signedIn = try await h.accounts.finalizeMfaSignIn(
                FinalizeMfaSignInRequest(
                    mfaPendingCredential: try #require(again.mfaPendingCredential),
                    mfaEnrollmentId: enrolled.enrollmentID,
                    totpVerificationInfo: .init(verificationCode: try h.code(enrolled.secret))))
            let last = try await h.accounts.withdrawMfa(
                WithdrawMfaRequest(idToken: try #require(signedIn.idToken), mfaEnrollmentId: enrolled.enrollmentID))
            #expect(last.idToken != nil && last.refreshToken != nil)
        }
    }

    @Test func rulesAreChecked() {
        var configuration = EmulatorConfiguration(port: 0)
        configuration.secondFactorRules.maximumCodeAttempts = 0
        #expect(throws: EmulatorConfigurationError.self) {
            _ = try IdentityToolkitEmulator(configuration: configuration)
        }
    }
}
