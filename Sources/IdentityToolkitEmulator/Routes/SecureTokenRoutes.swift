#if Emulator
import Foundation
import IdentityToolkit

/// The secure-token API (`SecureTokenService`, generated from `Spec/securetoken.yaml`).
struct SecureTokenRoutes: SecureTokenService {
    let services: EmulatorServices

    func grantToken(_ body: GrantTokenRequest, request: APIServerRequest) async throws -> GrantTokenResponse {
        guard !body.grantType.isEmpty else { throw APIServerError.missingGrantType }
        guard body.grantType == SecureTokenGrantType.refreshToken.rawValue else {
            throw APIServerError.invalidGrantType
        }
        guard let refreshToken = body.refreshToken, !refreshToken.isEmpty else {
            throw APIServerError.missingRefreshToken
        }
        let grant = try await services.run { state, context in
            let grant = try SessionRules.refresh(
                state, token: refreshToken, googleCompatible: context.googleCompatible)
            if var user = state.user(grant.uid, in: grant.realm) {
                user.lastRefreshAt = context.now
                state.store(user)
            }
            return grant
        }
        let idToken = try services.tokens.idToken(for: grant)
        return GrantTokenResponse(
            accessToken: idToken, idToken: idToken, refreshToken: grant.refreshToken,
            expiresIn: IdentityPlatformLimits.idTokenLifetimeSeconds, tokenType: "Bearer", userId: grant.uid,
            projectId: services.projectNumber)
    }
}
#endif
