import Foundation
import IdentitySupport
import IdentityToolkit
import Testing
import _CryptoExtras

@testable import IdentityToolkitEmulator

/// Maps keyed by what callers send must shrink as entries expire.
@Suite struct MemoryBoundTests {
    /// The OAuth2 endpoint's access tokens: a stream of exchanges over
    /// hours keeps about an hour's worth, not every token ever issued.
    @Test func theTokenEndpointForgetsExpiredAccessTokens() async throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let email = "svc@example.iam.gserviceaccount.com"
        let clock = EmulatorClock()
        clock.set(Date(timeIntervalSince1970: 1_800_000_000))
        let endpoint = try OAuthTokenEndpoint(serviceAccounts: [email: key.publicKey.pemRepresentation], clock: clock)
        let request = APIServerRequest(method: .post, headerFields: [:], query: [:], body: Data())
        var largest = 0
        for _ in 0..<600 {
            // One exchange every 30 s of the emulator's clock: 5 hours in all.
            clock.advance(by: 30)
            let now = Int64(clock.now.timeIntervalSince1970)
            let header = try JSONEncoder().encode(JOSEHeader(alg: .rs256, typ: "JWT")).base64URLEncoded
            let claims = try JSONEncoder().encode(
                JWTBearerClaims(
                    iss: email, scope: OAuthScope.cloudPlatform.rawValue,
                    aud: OAuth2TokenClient.productionBaseURL + "/token", iat: now, exp: now + 600)
            ).base64URLEncoded
            let signature = try key.signature(for: Data("\(header).\(claims)".utf8), padding: .insecurePKCS1v1_5)
                .rawRepresentation.base64URLEncoded
            let granted = try await endpoint.requestAccessToken(
                AccessTokenRequest(
                    grantType: OAuthGrantType.jwtBearer.rawValue, assertion: "\(header).\(claims).\(signature)"),
                request: request)
            #expect(endpoint.isValid(granted.accessToken))
            largest = max(largest, endpoint.rememberedTokenCount)
        }
        // An hour of tokens at two a minute: 120, never the 600 issued.
        #expect(largest <= 121, "largest \(largest)")
    }
}
