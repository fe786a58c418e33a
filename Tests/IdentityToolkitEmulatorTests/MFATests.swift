import Foundation
import IdentityOTP
import IdentityOTPFormats
import IdentitySupport
import IdentityToolkit
import Testing

@Suite struct TOTPEnrollmentTests {
    @Test func enrollmentSessionHasIdentityPlatformsParameters() async throws {
        try await withEmulator { h in
            try await h.enableTOTP()
            let session = try await h.verifiedUser()
            let started = try await h.accounts.startMfaEnrollment(
                StartMfaEnrollmentRequest(idToken: session.idToken, totpEnrollmentInfo: .init()))
            let info = try #require(started.totpSessionInfo)
            #expect(info.verificationCodeLength == 6)
            #expect(info.periodSec == 30)
            #expect(info.hashingAlgorithm == "SHA1")
            #expect(try Base32.decode(try #require(info.sharedSecretKey)).count == 20)
            let deadline = try #require(info.finalizeEnrollmentTime)
            #expect(abs(deadline.timeIntervalSince(h.clock.now) - 600) < 2)
            let enrolled = try await h.enrollTOTP(session)
            let user = try #require(
                try await h.accounts.lookup(GetAccountInfoRequest(idToken: enrolled.session.idToken)).users?.first)
            let factor = try #require(user.mfaInfo?.first)
            #expect(factor.displayName == "Authenticator")
            #expect(factor.totpInfo != nil)
            #expect(factor.enrolledAt != nil)
        }
    }

    /// Enrolling a factor "mails" the account's address a
    /// `REVERT_SECOND_FACTOR_ADDITION` code, as production's notice does:
    /// looked at, it names the factor; applied (the "this wasn't me" link),
    /// it removes that factor and ends the sessions of whoever added it;
    /// it works once.
    @Test func aRevertCodeUndoesAnEnrollment() async throws {
        try await withEmulator { harness in
            try await harness.enableTOTP()
            let user = try await harness.verifiedUser()
            let enrolled = try await harness.enrollTOTP(user)
            let revert = try #require(
                try await harness.oobCodes().last { $0["requestType"] == "REVERT_SECOND_FACTOR_ADDITION" })
            #expect(revert["email"] == user.email)
            let code = try #require(revert["oobCode"])
            #expect(revert["oobLink"]?.contains("mode=revertSecondFactorAddition") == true)
            let looked = try await harness.accounts.resetPassword(ResetPasswordRequest(oobCode: code))
            #expect(looked.requestType == .revertSecondFactorAddition)
            #expect(looked.email == user.email)
            #expect(looked.mfaInfo?.mfaEnrollmentId == enrolled.enrollmentID)
            #expect(looked.mfaInfo?.totpInfo != nil)
            harness.clock.advance(by: 2)
            _ = try await harness.accounts.update(SetAccountInfoRequest(oobCode: code))
            let account = try #require(
                try await harness.admin.lookupAccounts(
                    targetProjectId: Harness.project, body: GetAccountInfoRequest(localId: [user.uid])
                ).users?.first)
            #expect(account.mfaInfo?.isEmpty ?? true)
            // Sessions from before the revert end.
            await expectServerError("TOKEN_EXPIRED") {
                try await harness.tokens.grantToken(
                    GrantTokenRequest(
                        grantType: SecureTokenGrantType.refreshToken.rawValue,
                        refreshToken: enrolled.session.refreshToken))
            }
            await expectServerError("INVALID_OOB_CODE") {
                _ = try await harness.accounts.update(SetAccountInfoRequest(oobCode: code))
            }
            // A deleted user's codes leave the listing with the address.
            _ = try await harness.accounts.sendOobCode(
                GetOobCodeRequest(requestType: .passwordReset, email: user.email))
            #expect(try await harness.oobCodes().contains { $0["email"] == user.email })
            _ = try await harness.admin.deleteAccount(
                targetProjectId: Harness.project, body: DeleteAccountRequest(localId: user.uid))
            #expect(try await !harness.oobCodes().contains { $0["email"] == user.email })
        }
    }

    @Test func enrollmentRules() async throws {
        try await withEmulator { h in
            let session = try await h.verifiedUser()
            let start = { (token: String) in
                try await h.accounts.startMfaEnrollment(
                    StartMfaEnrollmentRequest(idToken: token, totpEnrollmentInfo: .init()))
            }
            await expectServerError("OPERATION_NOT_ALLOWED") { try await start(session.idToken) }
            try await h.enableTOTP()
            let unverified = try await h.accounts.signUp(
                SignUpRequest(email: "bob@example.com", password: "secret1", returnSecureToken: true))
            let unverifiedToken = try #require(unverified.idToken)
            await expectServerError("UNVERIFIED_EMAIL") { try await start(unverifiedToken) }
            let enrolled = try await h.enrollTOTP(session)
            await expectServerError("SECOND_FACTOR_EXISTS") { try await start(enrolled.session.idToken) }
        }
    }

    @Test func wrongCodesAndExpiredSessions() async throws {
        try await withEmulator { h in
            try await h.enableTOTP(window: 1)
            let session = try await h.verifiedUser()
            let started = try await h.accounts.startMfaEnrollment(
                StartMfaEnrollmentRequest(idToken: session.idToken, totpEnrollmentInfo: .init()))
            let info = try #require(started.totpSessionInfo)
            let secret = try #require(info.sharedSecretKey)
            let sessionInfo = try #require(info.sessionInfo)
            let finalize = { (code: String, sessionInfo: String) in
                try await h.accounts.finalizeMfaEnrollment(
                    FinalizeMfaEnrollmentRequest(
                        idToken: session.idToken, displayName: "app",
                        totpVerificationInfo: .init(sessionInfo: sessionInfo, verificationCode: code)))
            }
            // Production refuses a TOTP factor without a name, even with the right code.
            for name in [nil, ""] as [String?] {
                await expectServerError("MISSING_DISPLAY_NAME") {
                    try await h.accounts.finalizeMfaEnrollment(
                        FinalizeMfaEnrollmentRequest(
                            idToken: session.idToken, displayName: name,
                            totpVerificationInfo: .init(sessionInfo: sessionInfo, verificationCode: try h.code(secret)))
                    )
                }
            }
            await expectServerError("INVALID_CODE") { try await finalize(try h.code(secret, offset: 5), sessionInfo) }
            await expectServerError("INVALID_CODE") { try await finalize("12345", sessionInfo) }
            await expectServerError("INVALID_SESSION_INFO") { try await finalize(try h.code(secret), "unknown") }
            h.clock.advance(by: 601)
            await expectServerError("SESSION_EXPIRED") { try await finalize(try h.code(secret), sessionInfo) }
        }
    }

    @Test func phoneFactorsAndTheFiveFactorLimit() async throws {
        try await withEmulator { h in
            try await h.enableTOTP(phone: true)
            var session = try await h.verifiedUser()
            for index in 1...4 {
                let number = "+1555555010\(index)"
                let started = try await h.accounts.startMfaEnrollment(
                    StartMfaEnrollmentRequest(
                        idToken: session.idToken, phoneEnrollmentInfo: StartMfaPhoneRequestInfo(phoneNumber: number)))
                let sessionInfo = try #require(started.phoneSessionInfo?.sessionInfo)
                let sms = try #require(try await h.verificationCodes().first { $0["sessionInfo"] == sessionInfo })
                #expect(sms["phoneNumber"] == number)
                let finalized = try await h.accounts.finalizeMfaEnrollment(
                    FinalizeMfaEnrollmentRequest(
                        idToken: session.idToken, displayName: "phone \(index)",
                        phoneVerificationInfo: FinalizeMfaPhoneRequestInfo(sessionInfo: sessionInfo, code: sms["code"]))
                )
                session.idToken = try #require(finalized.idToken)
            }
            await expectServerError("SECOND_FACTOR_EXISTS") {
                try await h.accounts.startMfaEnrollment(
                    StartMfaEnrollmentRequest(
                        idToken: session.idToken, phoneEnrollmentInfo: .init(phoneNumber: "+15555550101")))
            }
            await expectServerError("INVALID_PHONE_NUMBER") {
                try await h.accounts.startMfaEnrollment(
                    StartMfaEnrollmentRequest(idToken: session.idToken, phoneEnrollmentInfo: .init(phoneNumber: "555")))
            }
            let enrolled = try await h.enrollTOTP(session)
            await expectServerError("SECOND_FACTOR_LIMIT_EXCEEDED") {
                try await h.accounts.startMfaEnrollment(
                    StartMfaEnrollmentRequest(
                        idToken: enrolled.session.idToken, phoneEnrollmentInfo: .init(phoneNumber: "+15555550109")))
            }
            // Sign-in hints mask phone numbers; a phone factor signs in with an SMS code.
            let (credential, hints) = try await h.pendingCredential(enrolled.session)
            #expect(hints.count == 5)
            #expect(hints.compactMap(\.phoneInfo).contains("+*******0101"))
            let phoneHint = try #require(hints.first { $0.phoneInfo != nil })
            let phoneHintID = try #require(phoneHint.mfaEnrollmentId)
            let started = try await h.accounts.startMfaSignIn(
                StartMfaSignInRequest(mfaPendingCredential: credential, mfaEnrollmentId: phoneHintID))
            let sessionInfo = try #require(started.phoneResponseInfo?.sessionInfo)
            let sms = try #require(try await h.verificationCodes().first { $0["sessionInfo"] == sessionInfo })
            await expectServerError("INVALID_CODE") {
                try await h.accounts.finalizeMfaSignIn(
                    FinalizeMfaSignInRequest(
                        mfaPendingCredential: credential,
                        phoneVerificationInfo: .init(
                            sessionInfo: sessionInfo, code: "000000" == sms["code"] ? "111111" : "000000")))
            }
            let signedIn = try await h.accounts.finalizeMfaSignIn(
                FinalizeMfaSignInRequest(
                    mfaPendingCredential: credential,
                    phoneVerificationInfo: .init(sessionInfo: sessionInfo, code: sms["code"])))
            let claims = try jwtClaims(try #require(signedIn.idToken))
            #expect((claims["firebase"] as? [String: Any])?["sign_in_second_factor"] as? String == "phone")
        }
    }

    @Test func phoneNeedsItsProviderEnabled() async throws {
        try await withEmulator { h in
            try await h.enableTOTP()
            let session = try await h.verifiedUser()
            await expectServerError("OPERATION_NOT_ALLOWED") {
                try await h.accounts.startMfaEnrollment(
                    StartMfaEnrollmentRequest(
                        idToken: session.idToken, phoneEnrollmentInfo: .init(phoneNumber: "+15555550100")))
            }
        }
    }
}

@Suite struct TOTPSignInTests {
    @Test func passwordThenTOTP() async throws {
        try await withEmulator { h in
            try await h.enableTOTP()
            let enrolled = try await h.enrollTOTP(try await h.verifiedUser())
            let (credential, hints) = try await h.pendingCredential(enrolled.session)
            #expect(hints.count == 1)
            #expect(hints.first?.mfaEnrollmentId == enrolled.enrollmentID)
            #expect(hints.first?.totpInfo != nil)
            #expect(hints.first?.displayName == "Authenticator")
            h.clock.advance(by: 30)
            let signedIn = try await h.accounts.finalizeMfaSignIn(
                FinalizeMfaSignInRequest(
                    mfaPendingCredential: credential, mfaEnrollmentId: enrolled.enrollmentID,
                    totpVerificationInfo: MfaTotpSignInRequestInfo(verificationCode: try h.code(enrolled.secret))))
            let idToken = try #require(signedIn.idToken)
            #expect(
                (try jwtClaims(idToken)["firebase"] as? [String: Any])?["second_factor_identifier"] as? String
                    == enrolled.enrollmentID)
            // The pending credential was used up.
            await expectServerError("INVALID_MFA_PENDING_CREDENTIAL") {
                try await h.accounts.finalizeMfaSignIn(
                    FinalizeMfaSignInRequest(
                        mfaPendingCredential: credential, mfaEnrollmentId: enrolled.enrollmentID,
                        totpVerificationInfo: .init(verificationCode: try h.code(enrolled.secret, offset: 1))))
            }
        }
    }

    @Test func replayedCodesAreRefused() async throws {
        try await withEmulator { h in
            try await h.enableTOTP()
            h.clock.set(Date(timeIntervalSince1970: 1_900_000_005))
            let enrolled = try await h.enrollTOTP(try await h.verifiedUser())
            // The enrollment code's step counts as used.
            let first = try await h.pendingCredential(enrolled.session)
            await expectServerError("INVALID_CODE") {
                try await h.accounts.finalizeMfaSignIn(
                    FinalizeMfaSignInRequest(
                        mfaPendingCredential: first.credential, mfaEnrollmentId: enrolled.enrollmentID,
                        totpVerificationInfo: .init(verificationCode: try h.code(enrolled.secret))))
            }
            h.clock.advance(by: 30)
            let code = try h.code(enrolled.secret)
            _ = try await h.accounts.finalizeMfaSignIn(
                FinalizeMfaSignInRequest(
                    mfaPendingCredential: first.credential, mfaEnrollmentId: enrolled.enrollmentID,
                    totpVerificationInfo: .init(verificationCode: code)))
            let second = try await h.pendingCredential(enrolled.session)
            await expectServerError("INVALID_CODE") {
                try await h.accounts.finalizeMfaSignIn(
                    FinalizeMfaSignInRequest(
                        mfaPendingCredential: second.credential, mfaEnrollmentId: enrolled.enrollmentID,
                        totpVerificationInfo: .init(verificationCode: code)))
            }
        }
    }

    @Test(arguments: [0, 2, 5, 10])
    func theWindowIsTheConfiguredAdjacentIntervals(window: Int32) async throws {
        try await withEmulator { h in
            try await h.enableTOTP(window: window)
            h.clock.set(Date(timeIntervalSince1970: 2_000_000_010))
            let enrolled = try await h.enrollTOTP(try await h.verifiedUser())
            h.clock.advance(by: 3600)
            let attempt = { (offset: Int64) in
                let (credential, _) = try await h.pendingCredential(enrolled.session)
                return try await h.accounts.finalizeMfaSignIn(
                    FinalizeMfaSignInRequest(
                        mfaPendingCredential: credential, mfaEnrollmentId: enrolled.enrollmentID,
                        totpVerificationInfo: .init(verificationCode: try h.code(enrolled.secret, offset: offset))))
            }
            let w = Int64(window)
            await expectServerError("INVALID_CODE") { try await attempt(-(w + 1)) }
            await expectServerError("INVALID_CODE") { try await attempt(w + 1) }
            // Accepted steps must increase (replay rule), so −window goes first.
            _ = try await attempt(-w)
            if w > 0 { _ = try await attempt(w) }
        }
    }

    @Test func pendingCredentialErrors() async throws {
        try await withEmulator { h in
            try await h.enableTOTP()
            let enrolled = try await h.enrollTOTP(try await h.verifiedUser())
            let (credential, _) = try await h.pendingCredential(enrolled.session)
            let finalize = { (credential: String, enrollmentID: String?) in
                try await h.accounts.finalizeMfaSignIn(
                    FinalizeMfaSignInRequest(
                        mfaPendingCredential: credential, mfaEnrollmentId: enrollmentID,
                        totpVerificationInfo: .init(verificationCode: try h.code(enrolled.secret, offset: 1))))
            }
            await expectServerError("INVALID_MFA_PENDING_CREDENTIAL") {
                try await finalize("forged", enrolled.enrollmentID)
            }
            await expectServerError("MISSING_MFA_PENDING_CREDENTIAL") { try await finalize("", enrolled.enrollmentID) }
            await expectServerError("MISSING_MFA_ENROLLMENT_ID") { try await finalize(credential, nil) }
            await expectServerError("MFA_ENROLLMENT_NOT_FOUND") { try await finalize(credential, "nope") }
            // TOTP has no start step; with SMS factors off, the start is refused as production refuses it.
            await expectServerError("OPERATION_NOT_ALLOWED") {
                try await h.accounts.startMfaSignIn(
                    StartMfaSignInRequest(mfaPendingCredential: credential, mfaEnrollmentId: enrolled.enrollmentID))
            }
            h.clock.advance(by: 601)
            await expectServerError("TOTP_CHALLENGE_TIMEOUT") { try await finalize(credential, enrolled.enrollmentID) }
        }
    }

    @Test func withdrawRevokesOtherSessions() async throws {
        try await withEmulator { h in
            try await h.enableTOTP()
            h.clock.set(Date(timeIntervalSince1970: 2_100_000_000))
            let enrolled = try await h.enrollTOTP(try await h.verifiedUser())
            // A second session of the same user.
            h.clock.advance(by: 60)
            let (credential, _) = try await h.pendingCredential(enrolled.session)
            let other = try await h.accounts.finalizeMfaSignIn(
                FinalizeMfaSignInRequest(
                    mfaPendingCredential: credential, mfaEnrollmentId: enrolled.enrollmentID,
                    totpVerificationInfo: .init(verificationCode: try h.code(enrolled.secret))))
            let otherRefresh = try #require(other.refreshToken)
            await expectServerError("MFA_ENROLLMENT_NOT_FOUND") {
                try await h.accounts.withdrawMfa(
                    WithdrawMfaRequest(idToken: enrolled.session.idToken, mfaEnrollmentId: "nope"))
            }
            let withdrawn = try await h.accounts.withdrawMfa(
                WithdrawMfaRequest(idToken: enrolled.session.idToken, mfaEnrollmentId: enrolled.enrollmentID))
            let freshRefresh = try #require(withdrawn.refreshToken)
            let freshID = try #require(withdrawn.idToken)
            #expect((try jwtClaims(freshID)["firebase"] as? [String: Any])?["sign_in_second_factor"] == nil)
            await expectServerError("TOKEN_EXPIRED") {
                try await h.tokens.grantToken(GrantTokenRequest(grantType: "refresh_token", refreshToken: otherRefresh))
            }
            await expectServerError("TOKEN_EXPIRED") {
                try await h.tokens.grantToken(
                    GrantTokenRequest(grantType: "refresh_token", refreshToken: enrolled.session.refreshToken))
            }
            _ = try await h.tokens.grantToken(GrantTokenRequest(grantType: "refresh_token", refreshToken: freshRefresh))
            let user = try #require(try await h.accounts.lookup(GetAccountInfoRequest(idToken: freshID)).users?.first)
            #expect(user.mfaInfo == nil)
            // Without a factor, password sign-in gives tokens again.
            let signedIn = try await h.accounts.signInWithPassword(
                SignInWithPasswordRequest(email: enrolled.session.email, password: enrolled.session.password))
            #expect(signedIn.idToken != nil)
        }
    }
}

/// A custom-token user who enrolls TOTP keeps `custom` as the first factor
/// of the session's tokens (the enrollment used to record `password`).
@Suite struct EnrollmentProviderTests {
    @Test func aCustomTokenUserEnrollingKeepsTheCustomProvider() async throws {
        try await withEmulator { h in
            try await h.enableTOTP()
            let unsigned = Data(#"{"alg":"none","typ":"JWT"}"#.utf8).base64URLEncoded
            let claims = try JSONSerialization.data(withJSONObject: [
                "aud": CustomTokenAudience.identityToolkit.rawValue, "uid": "custom-1",
            ]).base64URLEncoded
            _ = try await h.accounts.signInWithCustomToken(
                SignInWithCustomTokenRequest(token: "\(unsigned).\(claims).", returnSecureToken: true))
            // Custom-token users have no email: an admin gives them a verified one (which ends earlier sessions).
            _ = try await h.admin.updateAccount(
                targetProjectId: Harness.project,
                body: SetAccountInfoRequest(
                    email: "custom@example.com", localId: "custom-1", emailVerified: true))
            let signedIn = try await h.accounts.signInWithCustomToken(
                SignInWithCustomTokenRequest(token: "\(unsigned).\(claims).", returnSecureToken: true))
            let idToken = try #require(signedIn.idToken)
            let started = try await h.accounts.startMfaEnrollment(
                StartMfaEnrollmentRequest(idToken: idToken, totpEnrollmentInfo: .init()))
            let totp = try TOTP(key: try Base32.decode(try #require(started.totpSessionInfo?.sharedSecretKey)))
            let enrolled = try await h.accounts.finalizeMfaEnrollment(
                FinalizeMfaEnrollmentRequest(
                    idToken: idToken, displayName: "App",
                    totpVerificationInfo: FinalizeTotpMfaEnrollmentRequestInfo(
                        sessionInfo: try #require(started.totpSessionInfo?.sessionInfo),
                        verificationCode: try totp.code(at: h.clock.now))))
            let enrolledToken = try #require(enrolled.idToken)
            let payload = try #require(JWTCompactForm(enrolledToken)).payload
            let firebase = try JSONDecoder().decode(IDTokenClaims.self, from: payload).firebase
            #expect(firebase.signInProvider == ProviderID.custom.rawValue)
            #expect(firebase.signInSecondFactor == SecondFactorID.totp.rawValue)
        }
    }
}
