import Foundation
import IdentityToolkit
import IdentityToolkitTestSupport
import Testing

@testable import MultiFactorAuth

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
        ("SOMETHING_NEW", .internalError),
        // Beyond FirebaseAuth's table: codes that reach users of TOTP MFA.
        ("INVALID_REFRESH_TOKEN", .invalidUserToken),
        ("PROJECT_NUMBER_MISMATCH", .invalidUserToken),
        ("TOTP_CHALLENGE_TIMEOUT", .invalidMultiFactorSession),
        ("MISSING_CODE", .missingVerificationCode),
        ("MISSING_SESSION_INFO", .missingVerificationID),
        ("INVALID_MFA_ENROLLMENT_ID", .multiFactorInfoNotFound),
        ("TOO_MANY_ENROLLMENT_ATTEMPTS", .tooManyRequests),
        ("RECAPTCHA_NOT_ENABLED", .recaptchaNotEnabled),
        ("MISSING_RECAPTCHA_TOKEN", .missingRecaptchaToken),
        ("INVALID_RECAPTCHA_TOKEN", .invalidRecaptchaToken),
        ("INVALID_RECAPTCHA_ACTION", .invalidRecaptchaAction),
        ("MISSING_CLIENT_TYPE", .missingClientType),
        ("MISSING_RECAPTCHA_VERSION", .missingRecaptchaVersion),
        ("INVALID_RECAPTCHA_VERSION", .invalidRecaptchaVersion),
        ("INVALID_REQ_TYPE", .invalidReqType),
    ])
    func serverCodesMapPerTheTable(server: String, code: AuthErrorCode.Code) throws {
        let mapped = try #require(
            AuthErrorMapping.map(IdentityToolkitError.server(ServerError(status: 400, message: server)))
                as? AuthErrorCode)
        #expect(mapped.code == code)
        let bridged = mapped as NSError
        #expect(bridged.domain == AuthErrorDomain)
        #expect(bridged.code == code.rawValue)
        #expect(bridged.userInfo[AuthErrorUserInfoNameKey] as? String == code.userInfoName)
        #expect(bridged.userInfo[NSLocalizedDescriptionKey] as? String != nil)
    }

    private func mapped(_ message: String) throws -> AuthErrorCode {
        try #require(
            AuthErrorMapping.map(IdentityToolkitError.server(ServerError(status: 400, message: message)))
                as? AuthErrorCode)
    }

    /// The server's detail lands where FirebaseAuth puts it.
    @Test func detailsLandInFirebasesUserInfoKeys() throws {
        let challenge = try mapped("TOTP_CHALLENGE_TIMEOUT : TOTP challenge timeout, provide first factor again.")
        #expect(challenge.localizedDescription == "TOTP challenge timeout, provide first factor again.")
        // WEAK_PASSWORD: the reason is the failure reason; the description stays Firebase's.
        let weak = try mapped("WEAK_PASSWORD : Password should be at least 6 characters")
        #expect(weak.code == .weakPassword)
        #expect(weak.localizedDescription == "The password must be 6 characters long or more.")
        #expect(
            (weak as NSError).userInfo[NSLocalizedFailureReasonErrorKey] as? String
                == "Password should be at least 6 characters")
        // EMAIL_EXISTS: the detail is dropped.
        let exists = try mapped("EMAIL_EXISTS : some detail")
        #expect(exists.localizedDescription == "The email address is already in use by another account.")
        #expect(exists.userInfo[NSLocalizedFailureReasonErrorKey] == nil)
        // A blocking function: its own message, from the JSON in the detail.
        let blocked = try mapped(
            #"BLOCKING_FUNCTION_ERROR_RESPONSE : ((HTTP request to http://127.0.0.1:9999/beforeCreate returned HTTP error 400: {"error":{"details":{},"message":"Sign-ups are closed.","status":"PERMISSION_DENIED"}}))"#
        )
        #expect(blocked.code == .blockingCloudFunctionError)
        #expect(blocked.localizedDescription == "Sign-ups are closed.")
        #expect(
            try mapped("BLOCKING_FUNCTION_ERROR_RESPONSE : the function failed").localizedDescription
                == "the function failed")
        #expect(
            try mapped(#"BLOCKING_FUNCTION_ERROR_RESPONSE : {"error":{}}"#).localizedDescription
                == "Blocking cloud function returned an error.")
        // No detail, or an empty one: Firebase's default.
        #expect(
            try mapped("USER_DISABLED").localizedDescription
                == "The user account has been disabled by an administrator.")
        #expect(
            try mapped("USER_DISABLED : ").localizedDescription
                == "The user account has been disabled by an administrator.")
        // An unknown code keeps the short code for whoever reads the log.
        #expect(try mapped("HTTP_503").localizedDescription.contains("HTTP_503"))
    }

    /// The default descriptions are FirebaseAuth's, word for word.
    @Test func defaultDescriptionsAreFirebases() {
        #expect(
            AuthErrorCode.Code.wrongPassword.defaultDescription
                == "The password is invalid or the user does not have a password.")
        #expect(
            AuthErrorCode.Code.secondFactorRequired.defaultDescription
                == "Please complete a second factor challenge to finish signing into this account.")
        #expect(
            AuthErrorCode.Code.invalidCredential.defaultDescription
                == "The supplied auth credential is malformed or has expired.")
        #expect(
            AuthErrorCode.Code.tooManyRequests.defaultDescription
                == "We have blocked all requests from this device due to unusual activity. Try again later.")
        #expect(
            AuthErrorCode.Code.networkError.defaultDescription
                == "Network error (such as timeout, interrupted connection or unreachable host) has occurred.")
        #expect(
            AuthErrorCode(.userTokenExpired).localizedDescription
                == "The user's credential is no longer valid. The user must sign in again.")
    }

    /// The 11+ spellings and pattern matching, beside the 10.x shapes.
    @Test func elevenPlusSpellingsAndPatternMatching() throws {
        #expect(AuthErrors.domain == "FIRAuthErrorDomain" && AuthErrorDomain == AuthErrors.domain)
        #expect(AuthErrors.userInfoNameKey == AuthErrorUserInfoNameKey)
        #expect(AuthErrors.userInfoMultiFactorResolverKey == "FIRAuthErrorUserInfoMultiFactorResolverKey")
        let fromRaw = try #require(AuthErrorCode(rawValue: 17078))
        #expect(fromRaw == .secondFactorRequired && fromRaw.rawValue == 17078)
        #expect(fromRaw.localizedDescription == AuthErrorCode.Code.secondFactorRequired.defaultDescription)
        #expect(AuthErrorCode(rawValue: 1) == nil)
        #expect(AuthErrorCode(rawValue: 17020) == .networkError)
        #expect(AuthErrorCode(.networkError) == AuthErrorCode(.networkError, message: "other words"))
        #expect(AuthErrorCode(.networkError) != AuthErrorCode(.internalError))

        let thrown: any Error = AuthErrorCode(.wrongPassword)
        #expect(AuthErrorCode.wrongPassword ~= thrown)
        #expect(!(AuthErrorCode.userNotFound ~= thrown))
        struct Other: Error {}
        #expect(!(AuthErrorCode.wrongPassword ~= Other()))
        switch AuthErrorCode(rawValue: 17009) {
        case .wrongPassword: break
        default: Issue.record("switch on AuthErrorCode(rawValue:) missed")
        }
    }

    /// On Linux an `AuthErrorCode` is an `NSError` to `as` casts, and an
    /// `NSError` of the domain is an `AuthErrorCode`; other errors are neither.
    @Test func bridgingBothWays() throws {
        let thrown: any Error = AuthErrorCode(.secondFactorRequired, userInfo: ["extra": 1])
        let nsError = thrown as NSError
        #expect(nsError.domain == AuthErrors.domain && nsError.code == 17078)
        #expect(nsError.userInfo["extra"] as? Int == 1)
        #expect(nsError.userInfo[AuthErrors.userInfoNameKey] as? String == "ERROR_SECOND_FACTOR_REQUIRED")

        let foreign: any Error = NSError(domain: AuthErrors.domain, code: 17009)
        let back = try #require(foreign as? AuthErrorCode)
        #expect(back.code == .wrongPassword)
        #expect(back.localizedDescription == AuthErrorCode.Code.wrongPassword.defaultDescription)
        #expect(AuthErrorCode.wrongPassword ~= foreign)
        #expect((NSError(domain: "other", code: 17009) as any Error) as? AuthErrorCode == nil)
        #expect((NSError(domain: AuthErrors.domain, code: 5) as any Error) as? AuthErrorCode == nil)
        #expect(!(AuthErrorCode.wrongPassword ~= NSError(domain: "other", code: 17009)))
    }

    @Test func reasonsAreUsed() throws {
        let key = try #require(
            AuthErrorMapping.map(
                IdentityToolkitError.server(
                    ServerError(status: 400, message: "API key not valid.", reasons: ["keyInvalid"]))) as? AuthErrorCode
        )
        #expect(key.code == .invalidAPIKey)
    }

    /// Production reports an invalid API key in `error.details[].reason`
    /// (`API_KEY_INVALID`), with a message that is no short code: it is
    /// read from there through the spec's error-body paths.
    @Test func anInvalidAPIKeyIsReadFromTheDetails() async throws {
        let body =
            #"{"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.", "status": "INVALID_ARGUMENT", "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID", "domain": "googleapis.com"}]}}"#
        let transport = RecordingTransport(status: 400, body: body)
        let accounts = AccountsClient(
            apiKey: "bad", configuration: ClientConfiguration(transport: transport, emulatorHost: nil))
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
        let undecodable = try #require(
            AuthErrorMapping.map(IdentityToolkitError.undecodableResponse(status: 200, underlying: Refused()))
                as? AuthErrorCode)
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
