#if Emulator
import Foundation
import IdentityToolkit
import IdentityToolkitJWT
import _CryptoExtras
import IdentitySupport

/// The emulator's stand-in for `https://oauth2.googleapis.com/token`
/// (`OAuth2TokenService`, generated from `Spec/oauth2.yaml`; RFC 7523 JWT
/// bearer grant), for testing service-account credentials: it verifies the
/// assertion's RS256 signature with the public key it was given for the
/// issuer, checks the claims, and issues access tokens that the admin routes
/// accept besides `owner`. Its errors are RFC 6749 §5.2 bodies
/// (``RouteErrorMiddleware`` renders them).
final class OAuthTokenEndpoint: OAuth2TokenService {
    static let lifetime: Int64 = 3600
    /// The end of the audience an assertion must name: the production
    /// endpoint and the emulator's form of it both end with the route's
    /// emulator path (`/oauth2.googleapis.com/token`, from the spec).
    private var audienceSuffix: String { Self.requestAccessTokenPath }

    private let keys: Locked<[String: _RSA.Signing.PublicKey]>
    private let tokens = Locked<[String: Date]>([:])
    private let clock: EmulatorClock

    init(serviceAccounts: [String: String], clock: EmulatorClock) throws {
        var keys: [String: _RSA.Signing.PublicKey] = [:]
        for (email, pem) in serviceAccounts {
            keys[email] = try _RSA.Signing.PublicKey(pemRepresentation: pem)
        }
        self.keys = Locked(keys)
        self.clock = clock
    }

    /// Trusts `pem` for assertions issued by `email`.
    func register(email: String, publicKeyPEM pem: String) throws {
        let key = try _RSA.Signing.PublicKey(pemRepresentation: pem)
        keys.withLock { $0[email] = key }
    }

    /// The public key trusted for `email`'s assertions (and custom tokens).
    func publicKey(of email: String) -> _RSA.Signing.PublicKey? { keys.current[email] }

    /// How many access tokens are remembered (expired ones go at the next issue).
    var rememberedTokenCount: Int { tokens.current.count }

    /// Whether `token` is an unexpired access token this endpoint issued.
    func isValid(_ token: String) -> Bool {
        guard let expiry = tokens.current[token] else { return false }
        return clock.now < expiry
    }

    func requestAccessToken(_ body: AccessTokenRequest, request: APIServerRequest) async throws
        -> AccessTokenResponse
    {
        try ServiceAccountGrantRules.check(
            body, trusting: keys.current, audienceSuffix: audienceSuffix, now: Int64(clock.now.timeIntervalSince1970))
        let token = "emulator-" + Data.randomToken(bytes: 24)
        let issuedAt = clock.now
        tokens.withLock { tokens in
            // Expired tokens go as new ones come, so the map holds at most an hour's worth.
            tokens = tokens.filter { issuedAt < $0.value }
            tokens[token] = issuedAt.addingTimeInterval(TimeInterval(Self.lifetime))
        }
        return AccessTokenResponse(accessToken: token, tokenType: "Bearer", expiresIn: Self.lifetime)
    }
}
#endif
