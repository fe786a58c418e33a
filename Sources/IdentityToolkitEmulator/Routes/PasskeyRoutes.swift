#if Emulator
import Foundation
import IdentityToolkit

/// The v2 passkey operations of `AccountsService`: enrollment and sign-in.
/// Each decodes (generated), verifies its ID token outside the serialised
/// state, runs one rule of ``PasskeyRules`` on the state, and encodes.
extension AccountsRoutes {
    func startPasskeyEnrollment(_ body: StartPasskeyEnrollmentRequest, request: APIServerRequest) async throws
        -> StartPasskeyEnrollmentResponse
    {
        let token = tokens.verify(body.idToken)
        let options = try await services.run { state, context in
            try PasskeyRules.startEnrollment(&state, body, token: token, context)
        }
        return StartPasskeyEnrollmentResponse(credentialCreationOptions: options)
    }

    func finalizePasskeyEnrollment(_ body: FinalizePasskeyEnrollmentRequest, request: APIServerRequest) async throws
        -> FinalizePasskeyEnrollmentResponse
    {
        let token = tokens.verify(body.idToken)
        let grant = try await services.run { state, context in
            try PasskeyRules.finalizeEnrollment(&state, body, token: token, context)
        }
        return FinalizePasskeyEnrollmentResponse(
            localId: grant.uid, idToken: try tokens.idToken(for: grant), refreshToken: grant.refreshToken)
    }

    func startPasskeySignIn(_ body: StartPasskeySignInRequest, request: APIServerRequest) async throws
        -> StartPasskeySignInResponse
    {
        let options = try await services.run { state, context in try PasskeyRules.startSignIn(&state, body, context) }
        return StartPasskeySignInResponse(credentialRequestOptions: options)
    }

    func finalizePasskeySignIn(_ body: FinalizePasskeySignInRequest, request: APIServerRequest) async throws
        -> FinalizePasskeySignInResponse
    {
        let grant = try await services.run { state, context in
            try PasskeyRules.finalizeSignIn(&state, body, context)
        }
        return FinalizePasskeySignInResponse(
            idToken: try tokens.idToken(for: grant), refreshToken: grant.refreshToken)
    }
}
#endif
