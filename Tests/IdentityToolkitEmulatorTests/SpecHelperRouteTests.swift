import Crypto
import Foundation
import HTTPTypes
import IdentitySupport
import IdentityToolkit
import Testing
import _CryptoExtras

@testable import IdentityToolkitEmulator

/// The helpers and the OAuth2 token endpoint are generated routes of
/// `Spec/emulator.yaml` and `Spec/oauth2.yaml`: the generated clients speak
/// to them, and their errors keep the shapes the spec gives them.
@Suite struct SpecHelperRouteTests {
    func helpers(_ h: Harness) -> EmulatorHelpersClient {
        EmulatorHelpersClient(
            configuration: ClientConfiguration(transport: h.transport, emulatorHost: h.hostAndPort))
    }

    @Test func theGeneratedHelperClientDrivesTheEmulator() async throws {
        try await withEmulator { h in
            let helpers = helpers(h)
            let user = try await h.verifiedUser()
            _ = try await h.accounts.sendOobCode(GetOobCodeRequest(requestType: .passwordReset, email: user.email))
            let codes = try await helpers.listOobCodes(project: Harness.project)
            #expect(codes.oobCodes.contains { $0.email == user.email && $0.requestType == .passwordReset })
            #expect(codes.oobCodes.allSatisfy { $0.oobLink.hasPrefix(h.baseURL + "/emulator/action?mode=") })
            // The codes are sensitive: never in a description.
            let first = try #require(codes.oobCodes.first)
            #expect(!String(describing: codes).contains(first.oobCode))

            let set = try await helpers.changeClock(ClockChange(setMillis: 1_900_000_000_000))
            #expect(set.nowMillis == 1_900_000_000_000)
            #expect(try await helpers.getClock().nowMillis == 1_900_000_000_000)
            let moved = try await helpers.changeClock(ClockChange(advanceSeconds: 30))
            #expect(moved.nowMillis == 1_900_000_030_000)
            await #expect(throws: IdentityToolkitError.self) {
                _ = try await helpers.changeClock(ClockChange(advanceSeconds: .greatestFiniteMagnitude))
            }
            _ = try await helpers.changeClock(ClockChange(release: true))

            // The published key is the one that signs the ID tokens.
            let keys = try await GooglePublicKeysClient(
                configuration: ClientConfiguration(transport: h.transport, emulatorHost: h.hostAndPort)
            )
            .getIDTokenSigningKeys()
            let header = try #require(JWTCompactForm(user.idToken)?.header)
            let kid = try JSONDecoder().decode(JOSEHeader.self, from: header).kid
            #expect(keys.keys?.map(\.kid) == [kid])
            #expect(keys.keys?.first?.kty == "RSA")

            _ = try await helpers.deleteAllAccounts(project: Harness.project)
            await #expect(throws: IdentityToolkitError.self) {
                _ = try await h.accounts.lookup(GetAccountInfoRequest(idToken: user.idToken))
            }
            #expect(try await helpers.listVerificationCodes(project: Harness.project).verificationCodes.isEmpty)
        }
    }

    @Test func theTokenEndpointAnswersInRFC6749Shape() async throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let email = "svc@example.iam.gserviceaccount.com"
        try await withEmulator { h in
            _ = try await helpers(h).registerServiceAccount(
                ServiceAccountRegistration(clientEmail: email, publicKeyPem: key.publicKey.pemRepresentation))
            let client = OAuth2TokenClient(
                configuration: ClientConfiguration(
                    transport: h.transport, emulatorHost: nil, baseURL: h.baseURL + "/oauth2.googleapis.com"))

            func assertion(scope: String) throws -> String {
                let now = Int64(Date().timeIntervalSince1970)
                let encoder = JSONEncoder()
                let header = try encoder.encode(JOSEHeader(alg: .rs256, typ: "JWT")).base64URLEncoded
                let claims = try encoder.encode(
                    JWTBearerClaims(
                        iss: email, scope: scope, aud: OAuth2TokenClient.productionBaseURL + "/token",
                        iat: now, exp: now + 600)
                ).base64URLEncoded
                let signature = try key.signature(for: Data("\(header).\(claims)".utf8), padding: .insecurePKCS1v1_5)
                return "\(header).\(claims).\(signature.rawRepresentation.base64URLEncoded)"
            }
            // Both scopes Google's discovery document lists for the admin API are accepted.
            for scope in OAuthScope.allKnownValues {
                let granted = try await client.requestAccessToken(
                    AccessTokenRequest(
                        grantType: OAuthGrantType.jwtBearer.rawValue, assertion: try assertion(scope: scope.rawValue)))
                #expect(granted.accessToken.hasPrefix("emulator-"))
                #expect(granted.expiresIn == 3600)
                #expect(!String(describing: granted).contains(granted.accessToken))
            }
            do {
                _ = try await client.requestAccessToken(
                    AccessTokenRequest(
                        grantType: "password", assertion: try assertion(scope: OAuthScope.firebase.rawValue)))
                Issue.record("expected unsupported_grant_type")
            } catch let failure as IdentityToolkitError where failure.code == .server {
                let error = try #require(failure.serverError)
                #expect(error.status == 400)
                #expect(error.shortCode == "unsupported_grant_type")
            }
            do {
                _ = try await client.requestAccessToken(
                    AccessTokenRequest(
                        grantType: OAuthGrantType.jwtBearer.rawValue,
                        assertion: try assertion(scope: "https://www.googleapis.com/auth/drive")))
                Issue.record("expected invalid_scope")
            } catch let failure as IdentityToolkitError where failure.code == .server {
                let error = try #require(failure.serverError)
                #expect(error.shortCode == "invalid_scope")
            }
            // A request the route cannot read is RFC 6749's invalid_request, not Google's API error.
            let missing = try await h.raw(
                .post, "/oauth2.googleapis.com/token", body: Data("grant_type=x".utf8),
                headers: [.contentType: "application/x-www-form-urlencoded"])
            #expect(missing.status == 400)
            #expect(missing.json["error"] as? String == "invalid_request")
            #expect((missing.json["error_description"] as? String)?.contains("assertion") == true)
        }
    }
}
