import Foundation
import IdentityToolkit
import Testing
import _CryptoExtras

/// `accounts:signInWithCustomToken`: firebase-admin's unsigned emulator
/// tokens, production's RS256 tokens from a trusted service account, and
/// every refusal.
@Suite struct CustomTokenTests {
    static let audience = CustomTokenAudience.identityToolkit.rawValue
    static let serviceAccount = "signer@demo-mfa.iam.gserviceaccount.com"
    static let key = try! _RSA.Signing.PrivateKey(keySize: .bits2048)

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func token(_ claims: [String: Any], alg: String = "none", key: _RSA.Signing.PrivateKey? = nil) throws
        -> String
    {
        let header = base64URL(try JSONSerialization.data(withJSONObject: ["alg": alg, "typ": "JWT"]))
        let input = header + "." + base64URL(try JSONSerialization.data(withJSONObject: claims))
        guard let key else { return input + "." }
        return input + "."
            + base64URL(try key.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5).rawRepresentation)
    }

    func signIn(_ harness: Harness, _ token: String, tenant: String? = nil) async throws
        -> SignInWithCustomTokenResponse
    {
        try await harness.accounts.signInWithCustomToken(
            SignInWithCustomTokenRequest(token: token, returnSecureToken: true, tenantId: tenant))
    }

    func expect(_ shortCode: String, _ harness: Harness, _ token: String, tenant: String? = nil) async {
        do {
            _ = try await signIn(harness, token, tenant: tenant)
            Issue.record("expected \(shortCode)")
        } catch let failure as IdentityToolkitError where failure.code == .server {
            guard let error = failure.serverError else { return }
            #expect(error.shortCode == shortCode, "\(error)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func unsignedEmulatorTokensSignInAndCreateTheUser() async throws {
        try await withEmulator { harness in
            let first = try await signIn(
                harness, try Self.token(["aud": Self.audience, "uid": "custom-1", "claims": ["role": "desk"]]))
            #expect(first.isNewUser == true)
            let firstToken = try #require(first.idToken)
            let claims = try #require(JWTCompactForm(firstToken)).payload
            let decoded = try #require(try JSONSerialization.jsonObject(with: claims) as? [String: Any])
            #expect(decoded["sub"] as? String == "custom-1" && decoded["role"] as? String == "desk")
            #expect((decoded["firebase"] as? [String: Any])?["sign_in_provider"] as? String == "custom")
            // The developer claims survive a refresh.
            let refreshed = try await harness.tokens.grantToken(
                GrantTokenRequest(
                    grantType: SecureTokenGrantType.refreshToken.rawValue, refreshToken: first.refreshToken))
            let refreshedToken = try #require(refreshed.idToken)
            let refreshedJWT = try #require(JWTCompactForm(refreshedToken))
            let again = try #require(try JSONSerialization.jsonObject(with: refreshedJWT.payload) as? [String: Any])
            #expect(again["role"] as? String == "desk")
            // A second sign-in finds the user.
            #expect(
                try await signIn(harness, try Self.token(["aud": Self.audience, "uid": "custom-1"])).isNewUser == false)

            await expect("INVALID_CUSTOM_TOKEN", harness, "not a jwt")
            await expect("INVALID_CUSTOM_TOKEN", harness, try Self.token(["aud": "my-project", "uid": "u"]))
            await expect("MISSING_IDENTIFIER", harness, try Self.token(["aud": Self.audience]))
            await expect(
                "INVALID_CUSTOM_TOKEN", harness,
                try Self.token(["aud": Self.audience, "uid": String(repeating: "u", count: 129)]))
            await expect(
                "FORBIDDEN_CLAIM", harness, try Self.token(["aud": Self.audience, "uid": "u", "claims": ["sub": "x"]]))
            await expect(
                "INVALID_CLAIMS", harness, try Self.token(["aud": Self.audience, "uid": "u", "claims": [1, 2]]))
            await expect(
                "INVALID_CUSTOM_TOKEN", harness, try Self.token(["aud": Self.audience, "uid": "u"], alg: "HS256"))
            _ = try await harness.admin.updateAccount(
                targetProjectId: Harness.project, body: SetAccountInfoRequest(localId: "custom-1", disableUser: true))
            await expect("USER_DISABLED", harness, try Self.token(["aud": Self.audience, "uid": "custom-1"]))
        }
    }

    @Test func signedTokensNeedATrustedServiceAccount() async throws {
        try await withEmulator(configure: {
            $0.serviceAccounts = [Self.serviceAccount: Self.key.publicKey.pemRepresentation]
        }) { harness in
            let now = Int(harness.clock.now.timeIntervalSince1970)
            let good: [String: Any] = [
                "aud": Self.audience, "uid": "signed-1", "iss": Self.serviceAccount, "sub": Self.serviceAccount,
                "iat": now,
                "exp": now + 3600,
            ]
            #expect(try await signIn(harness, try Self.token(good, alg: "RS256", key: Self.key)).isNewUser == true)

            let stranger = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            await expect("INVALID_CUSTOM_TOKEN", harness, try Self.token(good, alg: "RS256", key: stranger))
            var unknown = good
            unknown["iss"] = "someone@else.iam.gserviceaccount.com"
            await expect("INVALID_CUSTOM_TOKEN", harness, try Self.token(unknown, alg: "RS256", key: Self.key))
            var expired = good
            expired["iat"] = now - 7200
            expired["exp"] = now - 3600
            await expect("INVALID_CUSTOM_TOKEN", harness, try Self.token(expired, alg: "RS256", key: Self.key))
            var tooLong = good
            tooLong["exp"] = now + 7200
            await expect("INVALID_CUSTOM_TOKEN", harness, try Self.token(tooLong, alg: "RS256", key: Self.key))
        }
    }

    @Test func aTokensTenantMustBeTheRequestsTenant() async throws {
        try await withEmulator { harness in
            let tenant = String(
                try await harness.admin.createTenant(
                    project: Harness.project, body: Tenant(displayName: "Shop", allowPasswordSignup: true)
                ).name?.split(separator: "/").last ?? "")
            let signedIn = try await signIn(
                harness, try Self.token(["aud": Self.audience, "uid": "t-user", "tenant_id": tenant]), tenant: tenant)
            let tenantToken = try #require(signedIn.idToken)
            let tenantJWT = try #require(JWTCompactForm(tenantToken))
            let payload = try #require(try JSONSerialization.jsonObject(with: tenantJWT.payload) as? [String: Any])
            #expect((payload["firebase"] as? [String: Any])?["tenant"] as? String == tenant)
            await expect(
                "TENANT_ID_MISMATCH", harness,
                try Self.token(["aud": Self.audience, "uid": "t-user", "tenant_id": tenant]), tenant: "other")
            await expect(
                "TENANT_NOT_FOUND", harness, try Self.token(["aud": Self.audience, "uid": "t-user"]), tenant: "nope")
        }
    }
}
