#if Emulator
import Foundation
import IdentityToolkit
import IdentityOTP

/// The v2 multi-factor operations of `AccountsService`: enrollment, sign-in
/// and withdrawal, TOTP and SMS. Each decodes (generated), verifies its ID
/// token outside the serialised state, runs one rule of
/// `MultiFactorRules` on the state, and encodes.
extension AccountsRoutes {
    func startMfaEnrollment(_ body: StartMfaEnrollmentRequest, request: APIServerRequest) async throws
        -> StartMfaEnrollmentResponse
    {
        let token = tokens.verify(body.idToken)
        switch try await services.run({ state, context in
            try MultiFactorRules.startEnrollment(&state, body, token: token, context)
        }) {
        case .totp(let sessionInfo, let secret, let deadline):
            return StartMfaEnrollmentResponse(
                totpSessionInfo: StartTotpMfaEnrollmentResponseInfo(
                    sharedSecretKey: Base32.encode(secret),
                    verificationCodeLength: Int32(IdentityPlatformLimits.totpDigits),
                    hashingAlgorithm: HashAlgorithm.sha1.rawValue,
                    periodSec: Int32(IdentityPlatformLimits.totpPeriodSeconds),
                    sessionInfo: sessionInfo, finalizeEnrollmentTime: deadline))
        case .phone(let sessionInfo):
            return StartMfaEnrollmentResponse(phoneSessionInfo: StartMfaPhoneResponseInfo(sessionInfo: sessionInfo))
        }
    }

    func finalizeMfaEnrollment(_ body: FinalizeMfaEnrollmentRequest, request: APIServerRequest) async throws
        -> FinalizeMfaEnrollmentResponse
    {
        let token = tokens.verify(body.idToken)
        let grant = try await services.run { state, context in
            try MultiFactorRules.finalizeEnrollment(&state, body, token: token, context)
        }
        return FinalizeMfaEnrollmentResponse(idToken: try tokens.idToken(for: grant), refreshToken: grant.refreshToken)
    }

    func withdrawMfa(_ body: WithdrawMfaRequest, request: APIServerRequest) async throws -> WithdrawMfaResponse {
        let token = tokens.verify(body.idToken)
        let grant = try await services.run { state, context in
            try MultiFactorRules.withdraw(&state, body, token: token, context)
        }
        // No grant: every session ended, the caller's too; the response has no tokens.
        guard let grant else { return WithdrawMfaResponse() }
        return WithdrawMfaResponse(idToken: try tokens.idToken(for: grant), refreshToken: grant.refreshToken)
    }

    func startMfaSignIn(_ body: StartMfaSignInRequest, request: APIServerRequest) async throws
        -> StartMfaSignInResponse
    {
        let sessionInfo = try await services.run { state, context in
            try MultiFactorRules.startSignIn(&state, body, context)
        }
        return StartMfaSignInResponse(phoneResponseInfo: StartMfaPhoneResponseInfo(sessionInfo: sessionInfo))
    }

    func finalizeMfaSignIn(_ body: FinalizeMfaSignInRequest, request: APIServerRequest) async throws
        -> FinalizeMfaSignInResponse
    {
        let grant = try await services.run { state, context in
            try MultiFactorRules.finalizeSignIn(&state, body, context)
        }
        // The second factor finishes the sign-in: production calls beforeSignIn now.
        let signedIn = try await services.blockingFunctions.signIn(
            grant,
            .init(method: grant.facts.provider.rawValue, userAgent: BlockingFunctionCalls.userAgent(of: request)))
        return FinalizeMfaSignInResponse(
            idToken: try tokens.idToken(for: signedIn), refreshToken: signedIn.refreshToken)
    }
}
#endif
