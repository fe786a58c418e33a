import Foundation
@_spi(Generated) import IdentityToolkit
import IdentityToolkitTestSupport
import Testing

/// Decoding of recorded response bodies through the generated clients.
@Suite struct ResponseDecodingTests {
    static func fixture(_ name: String) throws -> String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "Fixtures/\(name).json")
        return try String(contentsOf: url, encoding: .utf8)
    }

    func accounts(answering name: String, status: Int = 200) async throws -> AccountsClient {
        let transport = RecordingTransport(status: status, body: try Self.fixture(name))
        return AccountsClient(apiKey: "k", configuration: ClientConfiguration(transport: transport, emulatorHost: nil))
    }

    @Test func signUpResponse() async throws {
        let response = try await accounts(answering: "signUp").signUp(SignUpRequest(returnSecureToken: true))
        #expect(response.localId == "u1")
        #expect(response.expiresIn == 3600)
        #expect(response.idToken?.hasPrefix("eyJ") == true)
    }

    @Test func passwordSignInWithExpiresInAsANumber() async throws {
        let response = try await accounts(answering: "signInWithPassword").signInWithPassword(
            SignInWithPasswordRequest(email: "e", password: "p"))
        #expect(response.expiresIn == 3600)
        #expect(response.mfaPendingCredential == nil)
    }

    @Test func passwordSignInThatNeedsASecondFactor() async throws {
        let response = try await accounts(answering: "signInWithPassword-mfaRequired").signInWithPassword(
            SignInWithPasswordRequest(email: "e", password: "p"))
        #expect(response.idToken == nil)
        #expect(response.mfaPendingCredential == "AEdS-pending-credential")
        let hints = try #require(response.mfaInfo)
        #expect(hints.count == 2)
        #expect(hints[0].mfaEnrollmentId == "totp-1")
        #expect(hints[0].totpInfo == TotpInfo())
        #expect(hints[0].phoneInfo == nil)
        let enrolledAt = try #require(hints[0].enrolledAt)
        #expect(abs(enrolledAt.timeIntervalSince1970 - 1_709_633_472.345678) < 0.000_001)
        #expect(hints[1].phoneInfo == "+*******1234")
        #expect(hints[1].totpInfo == nil)
    }

    @Test func lookupWithStringMillisecondsAndUnknownFields() async throws {
        let response = try await accounts(answering: "lookup").lookup(GetAccountInfoRequest(idToken: "t"))
        let user = try #require(response.users?.first)
        #expect(user.emailVerified == true)
        #expect(user.createdAt == 1_709_633_472_000)
        #expect(user.validSince == 1_709_633_472)
        #expect(user.passwordUpdatedAt == 1_709_633_472_123)
        #expect(user.providerUserInfo?.first?.providerId == "password")
        #expect(user.mfaInfo?.first?.displayName == "Authenticator app")
    }

    @Test func totpEnrollmentSession() async throws {
        let response = try await accounts(answering: "startMfaEnrollment-totp").startMfaEnrollment(
            StartMfaEnrollmentRequest(idToken: "t"))
        let info = try #require(response.totpSessionInfo)
        #expect(info.verificationCodeLength == 6)
        #expect(info.periodSec == 30)
        #expect(info.hashingAlgorithm == "SHA1")
        #expect(info.finalizeEnrollmentTime == RFC3339Date.parse("2024-03-05T10:21:12Z"))
        // The secret and session are sensitive: never in a description.
        #expect(!"\(info)".contains("JBSWY3DP"))
        #expect(!"\(response)".contains("session-opaque-1"))
    }

    @Test func secureTokenSnakeCase() async throws {
        let transport = RecordingTransport(body: try Self.fixture("grantToken"))
        let client = SecureTokenClient(
            apiKey: "k", configuration: ClientConfiguration(transport: transport, emulatorHost: nil))
        let response = try await client.grantToken(GrantTokenRequest(grantType: "refresh_token", refreshToken: "r"))
        #expect(response.refreshToken == "AMf-vBx-refresh-2")
        #expect(response.expiresIn == 3600)
        #expect(response.userId == "u1")
        #expect(response.projectId == "123456789")
        #expect(response.tokenType == "Bearer")
    }

    @Test func adminConfigWithInt32AsString() async throws {
        let transport = RecordingTransport(body: try Self.fixture("projectConfig"))
        let client = AdminClient(
            accessToken: { "owner" }, configuration: ClientConfiguration(transport: transport, emulatorHost: nil))
        let config = try await client.getProjectConfig(project: "demo-mfa")
        #expect(config.mfa?.state == .enabled)
        #expect(config.mfa?.enabledProviders == [.phoneSms])
        #expect(config.mfa?.providerConfigs?.first?.totpProviderConfig?.adjacentIntervals == 5)
    }

    @Test func serverErrorsCarryShortCodeDetailAndReasons() async throws {
        do {
            _ = try await accounts(answering: "error-invalidCode", status: 400).finalizeMfaSignIn(
                FinalizeMfaSignInRequest(mfaPendingCredential: "p"))
            Issue.record("expected a server error")
        } catch let failure as IdentityToolkitError where failure.code == .server {
            let error = try #require(failure.serverError)
            #expect(error.status == 400)
            #expect(error.shortCode == "INVALID_CODE")
            #expect(error.detail == "The verification code is not valid.")
            #expect(error.reasons == ["invalid"])
        }
    }

    @Test func anErrorWithoutShortCodeKeepsItsReasons() async throws {
        do {
            _ = try await accounts(answering: "error-keyInvalid", status: 400).signUp(SignUpRequest())
            Issue.record("expected a server error")
        } catch let failure as IdentityToolkitError where failure.code == .server {
            let error = try #require(failure.serverError)
            #expect(error.shortCode == "API key not valid. Please pass a valid API key.")
            // Both places Google's APIs put reasons, in the spec's order.
            #expect(error.reasons == ["keyInvalid", "API_KEY_INVALID"])
        }
    }

    @Test func undecodableBodiesKeepTheirCause() async throws {
        let transport = RecordingTransport(status: 200, body: #"{"localId": 5}"#)
        let client = AccountsClient(
            apiKey: "k", configuration: ClientConfiguration(transport: transport, emulatorHost: nil))
        do {
            _ = try await client.signUp(SignUpRequest())
            Issue.record("expected a decoding failure")
        } catch let error as IdentityToolkitError where error.code == .undecodableResponse {
            #expect(error.status == 200)
            #expect(error.underlyingError is DecodingError)
        }
        // An error status whose body is not the API's JSON (a proxy's HTML
        // page) is still reported as the status it is, not as undecodable.
        await transport.respond(status: 502, body: "<html>Bad Gateway</html>")
        do {
            _ = try await client.signUp(SignUpRequest())
            Issue.record("expected a server error")
        } catch let failure as IdentityToolkitError where failure.code == .server {
            let error = try #require(failure.serverError)
            #expect(error.status == 502)
            #expect(error.shortCode == "HTTP_502")
            #expect(error.detail?.contains("Bad Gateway") == false)
        }
    }
}
