import Foundation
import IdentityToolkit

/// The secure-token API (`SecureTokenService`, generated from the spec).
struct SecureTokenEmulation: SecureTokenService {
    let store: EmulatorStore
    let tokens: SessionTokens

    func grantToken(_ body: GrantTokenRequest, request: APIServerRequest) async throws -> GrantTokenResponse {
        guard body.grantType == SecureTokenGrantType.refreshToken.rawValue else { throw APIServerError("INVALID_GRANT_TYPE") }
        guard let refreshToken = body.refreshToken, !refreshToken.isEmpty else { throw APIServerError("MISSING_REFRESH_TOKEN") }
        let grant = try await store.refresh(refreshToken)
        let idToken = try tokens.idToken(for: grant)
        return GrantTokenResponse(accessToken: idToken, idToken: idToken, refreshToken: grant.refreshToken,
                                  expiresIn: TokenIssuer.lifetime, tokenType: "Bearer", userId: grant.uid, projectId: tokens.project)
    }
}
