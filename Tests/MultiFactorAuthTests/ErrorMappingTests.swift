import Foundation
import IdentityToolkit
@testable import MultiFactorAuth
import IdentityToolkitTestSupport
import Testing

/// The server short-code table and the three ways the docs catch errors.
@Suite struct ErrorMappingTests {
    @Test(arguments: [
        ("INVALID_CODE", AuthErrorCode.Code.invalidVerificationCode),
        ("INVALID_MFA_PENDING_CREDENTIAL", .invalidMultiFactorSession),
        ("MFA_ENROLLMENT_NOT_FOUND", .multiFactorInfoNotFound),
        ("SECOND_FACTOR_EXISTS", .secondFactorAlreadyEnrolled),
        ("SECOND_FACTOR_LIMIT_EXCEEDED", .maximumSecondFactorCountExceeded),
        ("UNSUPPORTED_FIRST_FACTOR", .unsupportedFirstFactor),
        ("UNVERIFIED_EMAIL", .unverifiedEmail),
        ("INVALID_ID_TOKEN", .invalidUserToken),
        ("TOKEN_EXPIRED", .userTokenExpired),
        ("INVALID_LOGIN_CREDENTIALS", .invalidCredential),
        ("EMAIL_NOT_FOUND", .userNotFound),
        ("INVALID_REFRESH_TOKEN", .internalError),
        ("SOMETHING_NEW", .internalError),
    ])
    func serverCodesMapPerTheTable(server: String, code: AuthErrorCode.Code) throws {
        let mapped = try #require(AuthErrorMapping.map(IdentityToolkitError.server(ServerError(status: 400, message: server))) as? AuthErrorCode)
        #expect(mapped.code == code)
        let bridged = mapped as NSError
        #expect(bridged.domain == AuthErrorDomain)
        #expect(bridged.code == code.rawValue)
        #expect(bridged.userInfo[AuthErrorUserInfoNameKey] as? String == code.userInfoName)
        #expect(bridged.userInfo[NSLocalizedDescriptionKey] as? String != nil)
    }

    @Test func detailsBecomeTheDescriptionAndReasonsAreUsed() throws {
        let detailed = try #require(AuthErrorMapping.map(IdentityToolkitError.server(ServerError(status: 400, message: "WEAK_PASSWORD : Password should be at least 6 characters"))) as? AuthErrorCode)
        #expect(detailed.code == .weakPassword)
        #expect((detailed as NSError).localizedDescription == "Password should be at least 6 characters")
        let key = try #require(AuthErrorMapping.map(IdentityToolkitError.server(ServerError(status: 400, message: "API key not valid.", reasons: ["keyInvalid"]))) as? AuthErrorCode)
        #expect(key.code == .invalidAPIKey)
    }

    /// Production reports an invalid API key in `error.details[].reason`
    /// (`API_KEY_INVALID`), with a message that is no short code: it is
    /// read from there through the spec's error-body paths.
    @Test func anInvalidAPIKeyIsReadFromTheDetails() async throws {
        let body = #"{"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.", "status": "INVALID_ARGUMENT", "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID", "domain": "googleapis.com"}]}}"#
        let transport = RecordingTransport(status: 400, body: body)
        let accounts = AccountsClient(apiKey: "bad", configuration: ClientConfiguration(transport: transport, emulatorHost: nil))
        do {
            _ = try await accounts.signUp(SignUpRequest(returnSecureToken: true))
            Issue.record("expected an error")
        } catch {
            let mapped = try #require(AuthErrorMapping.map(error) as? AuthErrorCode)
            #expect(mapped.code == .invalidAPIKey)
        }
    }

    @Test func transportAndDecodingFailures() throws {
        struct Refused: Error {}
        let network = try #require(AuthErrorMapping.map(IdentityToolkitError.transport(Refused())) as? AuthErrorCode)
        #expect(network.code == .networkError)
        #expect(network.userInfo[NSUnderlyingErrorKey] is Refused)
        let undecodable = try #require(AuthErrorMapping.map(IdentityToolkitError.undecodableResponse(status: 200, underlying: Refused())) as? AuthErrorCode)
        #expect(undecodable.code == .internalError)
        #expect(undecodable.userInfo[NSUnderlyingErrorKey] is Refused)
        #expect(AuthErrorMapping.map(CancellationError()) is CancellationError)
    }

    @Test func theOptionalErrorCodeOfCompletions() {
        let none: (any Error)? = nil
        #expect(none.code == 0)
        let expired: (any Error)? = AuthErrorCode(.userTokenExpired)
        #expect(expired.code == AuthErrorCode.userTokenExpired.rawValue)
    }

    @Test func tableSizes() {
        #expect(AuthErrorCode.Code.allCases.count == 91)
        #expect(AuthErrorCode.errorDomain == "FIRAuthErrorDomain")
        #expect(AuthErrorCode.secondFactorRequired.rawValue == 17078)
        #expect(AuthErrorCode.Code.secondFactorRequired.userInfoName == "ERROR_SECOND_FACTOR_REQUIRED")
    }
}
