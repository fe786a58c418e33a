#if Emulator
import Foundation
import IdentityToolkit

/// The v2 passkey operations of `AccountsService`, each one rule on the
/// state in Google's emulator's order (the realm's switches, then the
/// request's fields, then the token, verified before the state was
/// entered), then the change. As in Google's emulator, a passkey sign-in
/// calls no blocking function.
extension PasskeyRules {
    static func startEnrollment(
        _ state: inout EmulatorState, _ body: StartPasskeyEnrollmentRequest, token: VerifiedIDToken,
        _ context: RuleContext
    ) throws -> PasskeyCreationOptions {
        let realm = try TenantRules.requestRealm(state, tenant: body.tenantId, idToken: body.idToken, context)
        try TenantRules.checkAuthEnabled(state, realm)
        guard !body.idToken.isEmpty else { throw APIServerError.missingIdToken }
        let user = try AccountRules.user(state, for: try token.get(), requestTenant: nil, context)
        return creationOptions(&state, for: user, context)
    }

    static func finalizeEnrollment(
        _ state: inout EmulatorState, _ body: FinalizePasskeyEnrollmentRequest, token: VerifiedIDToken,
        _ context: RuleContext
    ) throws -> SessionGrant {
        let realm = try TenantRules.requestRealm(state, tenant: body.tenantId, idToken: body.idToken, context)
        try TenantRules.checkAuthEnabled(state, realm)
        guard !body.idToken.isEmpty else { throw APIServerError.missingIdToken }
        guard let response = body.authenticatorRegistrationResponse else {
            throw APIServerError.missingAuthenticatorResponse
        }
        let user = try AccountRules.user(state, for: try token.get(), requestTenant: nil, context)
        let enrolled = try enroll(
            &state, user: user, response: response, name: body.name, displayName: body.displayName, context)
        return SessionRules.grant(
            &state, for: enrolled, facts: SessionFacts(provider: .passkey, authTime: context.now), context)
    }

    static func startSignIn(_ state: inout EmulatorState, _ body: StartPasskeySignInRequest, _ context: RuleContext)
        throws -> PasskeyRequestOptions
    {
        let realm = try TenantRules.requestRealm(state, tenant: body.tenantId, idToken: nil, context)
        try TenantRules.checkAuthEnabled(state, realm)
        return requestOptions(&state, realm: realm, context)
    }

    static func finalizeSignIn(
        _ state: inout EmulatorState, _ body: FinalizePasskeySignInRequest, _ context: RuleContext
    ) throws -> SessionGrant {
        let realm = try TenantRules.requestRealm(state, tenant: body.tenantId, idToken: nil, context)
        try TenantRules.checkAuthEnabled(state, realm)
        guard let response = body.authenticatorAuthenticationResponse else {
            throw APIServerError.missingAuthenticatorResponse
        }
        return try signIn(&state, realm: realm, response: response, context)
    }
}
#endif
