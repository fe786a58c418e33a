#if Emulator
import Foundation
import IdentityToolkit

/// The secure-token API (`SecureTokenService`, generated from
/// `Spec/securetoken.yaml`): decode, one rule (``SessionRules/grantToken(_:_:_:)``), encode.
struct SecureTokenRoutes: SecureTokenService {
    let services: EmulatorServices

    func grantToken(_ body: GrantTokenRequest, request: APIServerRequest) async throws -> GrantTokenResponse {
        let grant = try await services.run { state, context in try SessionRules.grantToken(&state, body, context) }
        let idToken = try services.tokens.idToken(for: grant)
        return GrantTokenResponse(
            accessToken: idToken, idToken: idToken, refreshToken: grant.refreshToken,
            expiresIn: IdentityPlatformLimits.idTokenLifetimeSeconds, tokenType: "Bearer", userId: grant.uid,
            projectId: services.projectNumber)
    }
}
#endif
