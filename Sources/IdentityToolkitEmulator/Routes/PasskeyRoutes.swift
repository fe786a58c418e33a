#if Emulator
import Foundation
import IdentityToolkit

/// The v2 passkey operations of `AccountsService`: enrollment and sign-in,
/// each checked in Google's emulator's order (the realm's switches, then
/// the request's fields, then the token), the rules in ``PasskeyRules``.
/// As in Google's emulator, a passkey sign-in calls no blocking function.
extension AccountsRoutes {
    func startPasskeyEnrollment(_ body: StartPasskeyEnrollmentRequest, request: APIServerRequest) async throws
        -> StartPasskeyEnrollmentResponse
    {
        let token = tokens.verify(body.idToken)
        let options = try await services.run { state, context in
            let realm = try Self.realm(state, tenant: body.tenantId, idToken: body.idToken, isAdmin: false, context)
            try TenantRules.checkAuthEnabled(state, realm)
            guard !body.idToken.isEmpty else { throw APIServerError.missingIdToken }
            let user = try AccountRules.user(state, for: try token.get(), requestTenant: nil, context)
            return PasskeyRules.creationOptions(&state, for: user, context)
        }
        return StartPasskeyEnrollmentResponse(credentialCreationOptions: options)
    }

    func finalizePasskeyEnrollment(_ body: FinalizePasskeyEnrollmentRequest, request: APIServerRequest) async throws
        -> FinalizePasskeyEnrollmentResponse
    {
        let token = tokens.verify(body.idToken)
        let grant = try await services.run { state, context in
            let realm = try Self.realm(state, tenant: body.tenantId, idToken: body.idToken, isAdmin: false, context)
            try TenantRules.checkAuthEnabled(state, realm)
            guard !body.idToken.isEmpty else { throw APIServerError.missingIdToken }
            guard let response = body.authenticatorRegistrationResponse else {
                throw APIServerError.missingAuthenticatorResponse
            }
            let user = try AccountRules.user(state, for: try token.get(), requestTenant: nil, context)
            let enrolled = try PasskeyRules.enroll(
                &state, user: user, response: response, name: body.name, displayName: body.displayName, context)
            return SessionRules.grant(
                &state, for: enrolled, facts: SessionFacts(provider: .passkey, authTime: context.now), context)
        }
        return FinalizePasskeyEnrollmentResponse(
            localId: grant.uid, idToken: try tokens.idToken(for: grant), refreshToken: grant.refreshToken)
    }

    func startPasskeySignIn(_ body: StartPasskeySignInRequest, request: APIServerRequest) async throws
        -> StartPasskeySignInResponse
    {
        let options = try await services.run { state, context in
            let realm = try Self.realm(state, tenant: body.tenantId, isAdmin: false, context)
            try TenantRules.checkAuthEnabled(state, realm)
            return PasskeyRules.requestOptions(&state, realm: realm, context)
        }
        return StartPasskeySignInResponse(credentialRequestOptions: options)
    }

    func finalizePasskeySignIn(_ body: FinalizePasskeySignInRequest, request: APIServerRequest) async throws
        -> FinalizePasskeySignInResponse
    {
        let grant = try await services.run { state, context in
            let realm = try Self.realm(state, tenant: body.tenantId, isAdmin: false, context)
            try TenantRules.checkAuthEnabled(state, realm)
            guard let response = body.authenticatorAuthenticationResponse else {
                throw APIServerError.missingAuthenticatorResponse
            }
            return try PasskeyRules.signIn(&state, realm: realm, response: response, context)
        }
        return FinalizePasskeySignInResponse(
            idToken: try tokens.idToken(for: grant), refreshToken: grant.refreshToken)
    }
}
#endif
