import Foundation
import IdentityToolkit
import IdentityToolkitEmulator
import Testing

@Suite struct AccountTests {
    @Test func signUpSignInAndLookup() async throws {
        try await withEmulator { h in
            let created = try await h.accounts.signUp(
                SignUpRequest(
                    email: "Ada@Example.com", password: "secret1", displayName: "Ada", returnSecureToken: true))
            #expect(created.expiresIn == 3600)
            // Production's shape: 28 letters and digits (a leading "-" would read as an option).
            #expect(created.localId.wholeMatch(of: /[A-Za-z0-9]{28}/) != nil)
            let signedIn = try await h.accounts.signInWithPassword(
                SignInWithPasswordRequest(email: "ada@example.com", password: "secret1", returnSecureToken: true))
            #expect(signedIn.localId == created.localId)
            #expect(signedIn.registered == true)
            let signedInToken = try #require(signedIn.idToken)
            let user = try #require(
                try await h.accounts.lookup(GetAccountInfoRequest(idToken: signedInToken)).users?.first)
            #expect(user.localId == created.localId)
            // Addresses are kept lowercased, as production keeps them.
            #expect(user.email == "ada@example.com")
            #expect(user.displayName == "Ada")
            #expect(user.emailVerified == false)
            #expect(user.providerUserInfo?.first?.providerId == "password")
            #expect(user.mfaInfo == nil)
        }
    }

    @Test func signUpErrors() async throws {
        try await withEmulator { h in
            _ = try await h.accounts.signUp(SignUpRequest(email: "ada@example.com", password: "secret1"))
            await expectServerError("EMAIL_EXISTS") {
                try await h.accounts.signUp(SignUpRequest(email: "ADA@example.com", password: "secret1"))
            }
            await expectServerError("WEAK_PASSWORD") {
                try await h.accounts.signUp(SignUpRequest(email: "b@example.com", password: "12345"))
            }
            await expectServerError("INVALID_EMAIL") {
                try await h.accounts.signUp(SignUpRequest(email: "not-an-email", password: "secret1"))
            }
            await expectServerError("MISSING_PASSWORD") {
                try await h.accounts.signUp(SignUpRequest(email: "c@example.com"))
            }
            await expectServerError("MISSING_EMAIL") { try await h.accounts.signUp(SignUpRequest(password: "secret1")) }
        }
    }

    @Test func anonymousUsers() async throws {
        try await withEmulator { h in
            let anonymous = try await h.accounts.signUp(SignUpRequest(returnSecureToken: true))
            let claims = try jwtClaims(try #require(anonymous.idToken))
            #expect((claims["firebase"] as? [String: Any])?["sign_in_provider"] as? String == "anonymous")
            try await h.enableTOTP()
            await expectServerError("UNSUPPORTED_FIRST_FACTOR") {
                try await h.accounts.startMfaEnrollment(
                    StartMfaEnrollmentRequest(idToken: try #require(anonymous.idToken), totpEnrollmentInfo: .init()))
            }
        }
    }

    @Test func wrongPasswordAndUnknownEmailLookTheSame() async throws {
        try await withEmulator { h in
            _ = try await h.accounts.signUp(SignUpRequest(email: "ada@example.com", password: "secret1"))
            await expectServerError("INVALID_LOGIN_CREDENTIALS") {
                try await h.accounts.signInWithPassword(
                    SignInWithPasswordRequest(email: "ada@example.com", password: "nope123"))
            }
            await expectServerError("INVALID_LOGIN_CREDENTIALS") {
                try await h.accounts.signInWithPassword(
                    SignInWithPasswordRequest(email: "who@example.com", password: "secret1"))
            }
        }
    }

    @Test func emailVerificationThroughOobCodes() async throws {
        try await withEmulator { h in
            let created = try await h.accounts.signUp(
                SignUpRequest(email: "ada@example.com", password: "secret1", returnSecureToken: true))
            let idToken = try #require(created.idToken)
            let sent = try await h.accounts.sendOobCode(GetOobCodeRequest(requestType: .verifyEmail, idToken: idToken))
            #expect(sent.email == "ada@example.com")
            let codes = try await h.oobCodes()
            #expect(codes.count == 1)
            let code = try #require(codes.first)
            #expect(code["requestType"] == "VERIFY_EMAIL")
            #expect(code["oobLink"]?.hasPrefix(h.baseURL + "/emulator/action?mode=verifyEmail") == true)
            let oobCode = try #require(code["oobCode"])
            let applied = try await h.accounts.update(SetAccountInfoRequest(oobCode: oobCode))
            #expect(applied.emailVerified == true)
            await expectServerError("INVALID_OOB_CODE") {
                try await h.accounts.update(SetAccountInfoRequest(oobCode: oobCode))
            }
            #expect(try await h.oobCodes().isEmpty)
        }
    }

    @Test func idTokensAreCheckedAndExpire() async throws {
        try await withEmulator { h in
            h.clock.set(Date(timeIntervalSince1970: 2_000_000_000))
            let created = try await h.accounts.signUp(
                SignUpRequest(email: "ada@example.com", password: "secret1", returnSecureToken: true))
            let idToken = try #require(created.idToken)
            await expectServerError("INVALID_ID_TOKEN") {
                try await h.accounts.lookup(GetAccountInfoRequest(idToken: "not.a.token"))
            }
            var tampered = idToken
            tampered.removeLast(4)
            await expectServerError("INVALID_ID_TOKEN") {
                try await h.accounts.lookup(GetAccountInfoRequest(idToken: tampered + "AAAA"))
            }
            await expectServerError("MISSING_ID_TOKEN") { try await h.accounts.lookup(GetAccountInfoRequest()) }
            h.clock.advance(by: 3599)
            _ = try await h.accounts.lookup(GetAccountInfoRequest(idToken: idToken))
            h.clock.advance(by: 2)
            await expectServerError("TOKEN_EXPIRED") {
                try await h.accounts.lookup(GetAccountInfoRequest(idToken: idToken))
            }
        }
    }

    @Test func refreshTokensJSONAndFormEncoded() async throws {
        try await withEmulator { h in
            let created = try await h.accounts.signUp(
                SignUpRequest(email: "ada@example.com", password: "secret1", returnSecureToken: true))
            let refreshToken = try #require(created.refreshToken)
            h.clock.advance(by: 7200)
            let refreshed = try await h.tokens.grantToken(
                GrantTokenRequest(grantType: "refresh_token", refreshToken: refreshToken))
            #expect(refreshed.userId == created.localId)
            #expect(refreshed.tokenType == "Bearer")
            #expect(refreshed.expiresIn == 3600)
            // The project's number, as production answers (Google's emulator's number by default).
            #expect(refreshed.projectId == EmulatorConfiguration.defaultProjectNumber)
            let refreshedToken = try #require(refreshed.idToken)
            _ = try await h.accounts.lookup(GetAccountInfoRequest(idToken: refreshedToken))
            let form = try await h.raw(
                .post, "/securetoken.googleapis.com/v1/token?key=k",
                body: Data("grant_type=refresh_token&refresh_token=\(refreshToken)".utf8),
                headers: [.contentType: "application/x-www-form-urlencoded"])
            #expect(form.status == 200)
            #expect(form.json["id_token"] is String)
            await expectServerError("INVALID_REFRESH_TOKEN") {
                try await h.tokens.grantToken(GrantTokenRequest(grantType: "refresh_token", refreshToken: "nope"))
            }
            await expectServerError("INVALID_GRANT_TYPE") {
                try await h.tokens.grantToken(GrantTokenRequest(grantType: "password", refreshToken: refreshToken))
            }
            await expectServerError("MISSING_REFRESH_TOKEN") {
                try await h.tokens.grantToken(GrantTokenRequest(grantType: "refresh_token"))
            }
            await expectServerError("MISSING_GRANT_TYPE") {
                try await h.tokens.grantToken(GrantTokenRequest(grantType: ""))
            }
        }
    }

    @Test func idTokenClaimsAndSignature() async throws {
        try await withEmulator { h in
            try await h.enableTOTP()
            let session = try await h.verifiedUser()
            let enrolled = try await h.enrollTOTP(session)
            let claims = try jwtClaims(enrolled.session.idToken)
            #expect(claims["iss"] as? String == "https://securetoken.google.com/\(Harness.project)")
            #expect(claims["aud"] as? String == Harness.project)
            #expect(claims["sub"] as? String == session.uid)
            #expect(claims["user_id"] as? String == session.uid)
            #expect(claims["email"] as? String == session.email)
            #expect(claims["email_verified"] as? Bool == true)
            let iat = try #require(claims["iat"] as? Int)
            #expect(claims["exp"] as? Int == iat + 3600)
            #expect(claims["auth_time"] is Int)
            let firebase = try #require(claims["firebase"] as? [String: Any])
            #expect(firebase["sign_in_provider"] as? String == "password")
            #expect(firebase["sign_in_second_factor"] as? String == "totp")
            #expect(firebase["second_factor_identifier"] as? String == enrolled.enrollmentID)
            #expect(firebase["tenant"] == nil)
            try JWKSCheck.verify(
                enrolled.session.idToken,
                jwks: try await h.raw(
                    .get, "/www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com"
                ).body)
            try JWKSCheck.verify(
                enrolled.session.idToken,
                certificates: try await h.raw(
                    .get, "/www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com"
                ).body)
            // Session cookies: both forms at their own routes.
            let cookie = try await h.admin.createSessionCookie(
                targetProjectId: Harness.project,
                body: CreateSessionCookieRequest(idToken: enrolled.session.idToken, validDuration: 600))
            let cookieValue = try #require(cookie.sessionCookie)
            try JWKSCheck.verify(
                cookieValue,
                jwks: try await h.raw(.get, "/identitytoolkit.googleapis.com/v1/sessionCookiePublicKeys").body)
            try JWKSCheck.verify(
                cookieValue,
                certificates: try await h.raw(.get, "/www.googleapis.com/identitytoolkit/v3/relyingparty/publicKeys")
                    .body)
        }
    }
}
