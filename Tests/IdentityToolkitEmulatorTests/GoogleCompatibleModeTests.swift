import Foundation
import HTTPTypes
import IdentityToolkit
import IdentityToolkitEmulator
import Testing

/// `EmulatorConfiguration.googleCompatible` (`mfa emulator
/// --google-compatible`): Google's emulator's behaviour where this one
/// differs by choice, each checked against the default mode's.
@Suite struct GoogleCompatibleModeTests {
    static let ownerJSON: HTTPFields = [.authorization: "Bearer owner", .contentType: "application/json"]

    /// The header and payload of a JWT, as JSON objects.
    static func parts(of token: String) throws -> (header: [String: Any], payload: [String: Any], signature: Substring)
    {
        let pieces = token.split(separator: ".", omittingEmptySubsequences: false)
        try #require(pieces.count == 3)
        func object(_ part: Substring) throws -> [String: Any] {
            let text =
                part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
                + String(repeating: "=", count: (4 - part.count % 4) % 4)
            let data = try #require(Data(base64Encoded: text))
            return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        }
        return (try object(pieces[0]), try object(pieces[1]), pieces[2])
    }

    @Test func idTokensAreUnsignedAndTakenBack() async throws {
        try await withEmulator(configure: { $0.googleCompatible = true }) { h in
            let created = try await h.accounts.signUp(
                SignUpRequest(email: "g@example.com", password: "secret-pw", returnSecureToken: true))
            let idToken = try #require(created.idToken)
            let token = try Self.parts(of: idToken)
            #expect(token.header["alg"] as? String == "none" && token.signature.isEmpty)
            // Google's emulator takes its unsigned tokens back; so does this one, in this mode only.
            let user = try await h.accounts.lookup(GetAccountInfoRequest(idToken: idToken))
            #expect(user.users?.first?.localId == created.localId)
            // Lookups show password hashes, as Google's emulator's.
            #expect(user.users?.first?.passwordHash != "UkVEQUNURUQ=")
        }
        try await withEmulator { h in
            let created = try await h.accounts.signUp(
                SignUpRequest(email: "g@example.com", password: "secret-pw", returnSecureToken: true))
            #expect(try Self.parts(of: try #require(created.idToken)).header["alg"] as? String == "RS256")
            // An unsigned token is refused in the default mode.
            var payload = try Self.parts(of: try #require(created.idToken)).payload
            payload["sub"] = "someone-else"
            let forged =
                "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0."
                + (try JSONSerialization.data(withJSONObject: payload)).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(
                    of: "=", with: "") + "."
            await expectServerError("INVALID_ID_TOKEN") {
                try await h.accounts.lookup(GetAccountInfoRequest(idToken: forged))
            }
            #expect(
                try await h.accounts.lookup(GetAccountInfoRequest(idToken: created.idToken)).users?.first?.passwordHash
                    == "UkVEQUNURUQ=")
        }
    }

    @Test func refreshTokensReadAsGooglesAndADeletedUsersIsInvalid() async throws {
        try await withEmulator(configure: { $0.googleCompatible = true }) { h in
            let created = try await h.accounts.signUp(
                SignUpRequest(email: "r@example.com", password: "secret-pw", returnSecureToken: true))
            let refreshToken = try #require(created.refreshToken)
            let recordData = try #require(Data(base64Encoded: refreshToken))
            let record = try #require(try JSONSerialization.jsonObject(with: recordData) as? [String: Any])
            #expect(
                record["localId"] as? String == created.localId
                    && record["_AuthEmulatorRefreshToken"] as? String == "DO NOT MODIFY")
            let refreshed = try await h.tokens.grantToken(
                GrantTokenRequest(grantType: "refresh_token", refreshToken: refreshToken))
            #expect(refreshed.userId == created.localId)
            _ = try await h.accounts.deleteOwnAccount(DeleteAccountRequest(idToken: created.idToken))
            await expectServerError("INVALID_REFRESH_TOKEN") {
                try await h.tokens.grantToken(GrantTokenRequest(grantType: "refresh_token", refreshToken: refreshToken))
            }
        }
    }

    @Test func tenantsAndMasksAsGooglesEmulator() async throws {
        try await withEmulator(configure: { $0.googleCompatible = true }) { h in
            let empty = try await h.raw(
                .get, "/identitytoolkit.googleapis.com/v2/projects/\(Harness.project)/tenants", headers: Self.ownerJSON)
            #expect((empty.json["tenants"] as? [Any])?.isEmpty == true)
            // A tenant is made on its first read, every sign-in method on.
            let made = try await h.raw(
                .get, "/identitytoolkit.googleapis.com/v2/projects/\(Harness.project)/tenants/tenant-id",
                headers: Self.ownerJSON)
            #expect(
                made.status == 200 && made.json["tenantId"] as? String == "tenant-id"
                    && made.json["allowPasswordSignup"] as? Bool == true)
            // An id that could not be a file name of an export is refused.
            let hostile = try await h.raw(
                .get, "/identitytoolkit.googleapis.com/v2/projects/\(Harness.project)/tenants/..%2Fx",
                headers: Self.ownerJSON)
            #expect(hostile.status == 400 || hostile.status == 404)
            // Unknown mask paths are ignored.
            let patched = try await h.raw(
                .patch,
                "/identitytoolkit.googleapis.com/v2/projects/\(Harness.project)/tenants/tenant-id?updateMask=displayName.0,nope",
                body: Data(#"{"displayName": "x"}"#.utf8), headers: Self.ownerJSON)
            #expect(patched.status == 200 && patched.json["displayName"] == nil)
        }
        try await withEmulator { h in
            let missing = try await h.raw(
                .get, "/identitytoolkit.googleapis.com/v2/projects/\(Harness.project)/tenants/tenant-id",
                headers: Self.ownerJSON)
            #expect(missing.status == 404)
            let empty = try await h.raw(
                .get, "/identitytoolkit.googleapis.com/v2/projects/\(Harness.project)/tenants", headers: Self.ownerJSON)
            #expect(empty.json["tenants"] == nil)
        }
    }

    /// As production's tokens (both modes): `provider_id: anonymous` for an
    /// anonymous user, `phone_number` for a user with a phone number.
    @Test func idTokensCarryAnonymousAndPhoneClaims() async throws {
        try await withEmulator { h in
            let anonymous = try await h.accounts.signUp(SignUpRequest(returnSecureToken: true))
            #expect(
                try Self.parts(of: try #require(anonymous.idToken)).payload["provider_id"] as? String == "anonymous")
            let password = try await h.accounts.signUp(
                SignUpRequest(email: "p@example.com", password: "secret-pw", returnSecureToken: true))
            let claims = try Self.parts(of: try #require(password.idToken)).payload
            #expect(claims["provider_id"] == nil && claims["phone_number"] == nil)
            let sent = try await h.accounts.sendVerificationCode(
                SendVerificationCodeRequest(phoneNumber: "+15555550100"))
            let code = try #require(try await h.verificationCodes().last?["code"])
            let phone = try await h.accounts.signInWithPhoneNumber(
                SignInWithPhoneNumberRequest(sessionInfo: sent.sessionInfo, code: code))
            #expect(
                try Self.parts(of: try #require(phone.idToken)).payload["phone_number"] as? String == "+15555550100")
        }
    }

    /// Empty values: `email: ""` at sign-in is `INVALID_EMAIL` in both modes
    /// (absent: `MISSING_EMAIL`), as production answers; a `null` member is
    /// refused with its schema type and an account whose factors were
    /// withdrawn lists `mfaInfo: []` as Google's emulator does, where the
    /// default mode reads them as proto3 JSON.
    @Test(arguments: [true, false]) func emptyValuesAsGooglesEmulatorReadsThem(compatible: Bool) async throws {
        try await withEmulator(configure: { $0.googleCompatible = compatible }) { h in
            let json: HTTPFields = [.contentType: "application/json"]
            let signIn = "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k"
            let empty = try await h.raw(
                .post, signIn, body: Data(#"{"email":"","password":"secret-pw"}"#.utf8), headers: json)
            #expect(empty.errorMessage == "INVALID_EMAIL")
            let absent = try await h.raw(.post, signIn, body: Data(#"{"password":"secret-pw"}"#.utf8), headers: json)
            #expect(absent.errorMessage == "MISSING_EMAIL")
            let nullEmail = try await h.raw(
                .post, signIn, body: Data(#"{"email":null,"password":"secret-pw"}"#.utf8), headers: json)
            #expect(
                nullEmail.errorMessage
                    == (compatible ? "Invalid JSON payload received. /email must be string" : "MISSING_EMAIL"))

            let nullEnrollments = try await h.raw(
                .post, "/identitytoolkit.googleapis.com/v1/accounts:update",
                body: Data(#"{"localId":"anything","mfa":{"enrollments":null}}"#.utf8), headers: Self.ownerJSON)
            #expect(nullEnrollments.status == 400)
            #expect(
                nullEnrollments.errorMessage
                    == (compatible ? "Invalid JSON payload received. /mfa/enrollments must be array" : "USER_NOT_FOUND")
            )
            if compatible {
                #expect(((nullEnrollments.json["error"] as? [String: Any])?["status"] as? String) == "INVALID_ARGUMENT")
            }

            try await h.enableTOTP()
            let session = try await h.verifiedUser("withdraw@example.com")
            let enrolled = try await h.enrollTOTP(session)
            var user = try #require(
                try await h.accounts.lookup(GetAccountInfoRequest(idToken: enrolled.session.idToken)).users?.first)
            #expect(user.mfaInfo?.count == 1)
            let withdrawn = try await h.accounts.withdrawMfa(
                WithdrawMfaRequest(idToken: enrolled.session.idToken, mfaEnrollmentId: enrolled.enrollmentID))
            let withdrawnIDToken = try #require(withdrawn.idToken)
            user = try #require(
                try await h.accounts.lookup(GetAccountInfoRequest(idToken: withdrawnIDToken)).users?.first)
            #expect(user.mfaInfo == (compatible ? [] : nil))
            // An account that never had a factor lists none in either mode.
            let never = try await h.verifiedUser("never@example.com")
            #expect(
                try await h.accounts.lookup(GetAccountInfoRequest(idToken: never.idToken)).users?.first?.mfaInfo == nil)
        }
    }
}
