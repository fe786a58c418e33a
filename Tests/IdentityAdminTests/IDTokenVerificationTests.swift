import AdminTestSupport
import Crypto
import Foundation
import HTTPTypes
import IdentityOTP
import IdentitySupport
import IdentityToolkit
import IdentityToolkitAsyncHTTPClient
import IdentityToolkitEmulator
import Testing
import _CryptoExtras

@testable import IdentityAdmin

/// `verifyIDToken` against tokens the emulator issues (a TOTP sign-in, a
/// password one, a tenant's), through the key route the spec describes.
@Suite struct EmulatorIDTokenTests {
    static let project = "demo-verify"

    /// Withdrawing a factor ends the user's other sessions, and the tokens it
    /// returns start a new one that passes `checkRevoked` (a server makes a
    /// session cookie from them at once).
    @Test func theTokensAWithdrawalReturnsPassTheRevocationCheck() async throws {
        try await EmulatorSetup.with(project: Self.project) { setup in
            let (configuration, admin, accounts) = (setup.configuration, setup.admin, setup.accounts)
            let helpers = EmulatorHelpersClient(configuration: configuration)
            let email = "withdraw@example.com"
            let password = "correct horse"
            let created = try await accounts.signUp(
                SignUpRequest(email: email, password: password, returnSecureToken: true))
            let firstToken = try #require(created.idToken)
            _ = try await accounts.sendOobCode(GetOobCodeRequest(requestType: .verifyEmail, idToken: firstToken))
            let code = try #require(try await helpers.listOobCodes(project: Self.project).oobCodes.last?.oobCode)
            _ = try await accounts.update(SetAccountInfoRequest(oobCode: code))
            let totp = try await setup.enrollTOTP(idToken: firstToken, displayName: "Phone app")
            let signedIn = try await setup.signInWithTOTP(email: email, password: password, totp: totp)
            let oldToken = try #require(signedIn.idToken)
            let enrollmentID = try #require(
                try await admin.getUser(uid: created.localId).multiFactor.enrolledFactors.first?.uid)

            // Revocation is judged in whole seconds: the withdrawal comes later.
            setup.clock.advance(by: 2)
            let withdrawn = try await accounts.withdrawMfa(
                WithdrawMfaRequest(idToken: oldToken, mfaEnrollmentId: enrollmentID))
            let newToken = try #require(withdrawn.idToken)
            await #expect(throws: TokenVerificationError.revoked) {
                _ = try await admin.verifyIDToken(oldToken, checkRevoked: true)
            }
            _ = try await admin.verifyIDToken(newToken, checkRevoked: true)
            let cookie = try await admin.createSessionCookie(newToken, expiresIn: .seconds(3600))
            _ = try await admin.verifySessionCookie(cookie, checkRevoked: true)
        }
    }

    @Test func aTOTPSignInIsVerifiedWithItsSecondFactor() async throws {
        try await EmulatorSetup.with(project: Self.project) { setup in
            let (configuration, admin, accounts) = (setup.configuration, setup.admin, setup.accounts)
            let helpers = EmulatorHelpersClient(configuration: configuration)

            // A verified user: the password sign-in has no second factor.
            let email = "verify@example.com"
            let password = "correct horse"
            let created = try await accounts.signUp(
                SignUpRequest(email: email, password: password, returnSecureToken: true))
            let firstToken = try #require(created.idToken)
            _ = try await accounts.sendOobCode(GetOobCodeRequest(requestType: .verifyEmail, idToken: firstToken))
            let code = try #require(try await helpers.listOobCodes(project: Self.project).oobCodes.last?.oobCode)
            _ = try await accounts.update(SetAccountInfoRequest(oobCode: code))
            let passwordOnly = try await admin.verifyIDToken(firstToken)
            #expect(passwordOnly.uid == created.localId)
            #expect(passwordOnly.signInProvider == "password")
            #expect(passwordOnly.signInSecondFactor == nil)
            #expect(passwordOnly.audience == Self.project)
            #expect(passwordOnly.claims["firebase"]?["sign_in_provider"]?.stringValue == "password")
            #expect(throws: TokenVerificationError.secondFactorRequired) { try passwordOnly.requireSecondFactor() }

            // Enroll TOTP, sign in again with the password and a code.
            let totp = try await setup.enrollTOTP(idToken: firstToken, displayName: "Phone app")
            let signedIn = try await setup.signInWithTOTP(email: email, password: password, totp: totp)
            let enrollmentID = try #require(
                try await admin.getUser(uid: created.localId).multiFactor.enrolledFactors.first?.uid)
            let decoded = try await admin.verifyIDToken(try #require(signedIn.idToken))
            #expect(decoded.signInSecondFactor == "totp")
            #expect(decoded.secondFactorIdentifier == enrollmentID)
            #expect(decoded.email == email && decoded.emailVerified == true)
            #expect(try decoded.requireSecondFactor() == "totp")
            // A step-up policy: the sign-in must be recent.
            #expect(throws: TokenVerificationError.self) {
                try decoded.requireSecondFactor(
                    maximumAuthenticationAge: .seconds(60), now: decoded.authTime.addingTimeInterval(61))
            }

            // Revocation: the admin ends the user's sessions ("lost the phone").
            let signedInToken = try #require(signedIn.idToken)
            _ = try await admin.verifyIDToken(signedInToken, checkRevoked: true)
            try await admin.revokeRefreshTokens(uid: decoded.uid, now: decoded.authTime.addingTimeInterval(1))
            await #expect(throws: TokenVerificationError.revoked) {
                _ = try await admin.verifyIDToken(signedInToken, checkRevoked: true)
            }
            // Without the check the signature and claims still hold, as in firebase-admin.
            _ = try await admin.verifyIDToken(signedInToken)
            // The refresh token is dead too.
            let secureToken = SecureTokenClient(apiKey: "k", configuration: configuration)
            await #expect(throws: IdentityToolkitError.self) {
                _ = try await secureToken.grantToken(
                    GrantTokenRequest(
                        grantType: SecureTokenGrantType.refreshToken.rawValue, refreshToken: signedIn.refreshToken))
            }
            // An admin lookup of an unknown uid is the absence of users, not an error.
            #expect(
                try await admin.client.lookupAccounts(
                    targetProjectId: Self.project, body: GetAccountInfoRequest(localId: ["nobody"])
                ).users == nil)
            // A disabled account, then a deleted one.
            let fresh = try await setup.signInWithTOTP(email: email, password: password, totp: totp)
            let freshToken = try #require(fresh.idToken)
            _ = try await admin.verifyIDToken(freshToken, checkRevoked: true)
            // Changed through this admin, so the account state its last check
            // remembered is forgotten at once (TokenCacheTests has the change
            // made elsewhere).
            _ = try await admin.updateUser(decoded.uid, UpdateUserRequest(disabled: true))
            await #expect(throws: TokenVerificationError.userDisabled) {
                _ = try await admin.verifyIDToken(freshToken, checkRevoked: true)
            }
            try await admin.deleteUser(uid: decoded.uid)
            await #expect(throws: TokenVerificationError.userNotFound) {
                _ = try await admin.verifyIDToken(freshToken, checkRevoked: true)
            }

            // A tenant-scoped verifier refuses the project's users.
            await #expect(throws: TokenVerificationError.tenantMismatch(expected: "t-1", found: nil)) {
                _ = try await admin.idTokenVerifier.forTenant("t-1").verify(try #require(signedIn.idToken))
            }
            // Another project's verifier refuses the token, whatever the token says about itself.
            let other = IdentityAdmin.emulator(
                projectID: "another-project", hostAndPort: setup.hostAndPort, transport: configuration.transport)
            await #expect(
                throws: TokenVerificationError.wrongAudience(expected: "another-project", found: Self.project)
            ) {
                _ = try await other.verifyIDToken(try #require(signedIn.idToken))
            }
        }
    }
}

/// Tokens forged with the test's own key: every refusal, and the key cache.
@Suite struct ForgedIDTokenTests {
    static let project = "forge-project"
    static let key = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    static let otherKey = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func jwks(_ keys: [(String, _RSA.Signing.PrivateKey)]) throws -> JSONWebKeySet {
        JSONWebKeySet(
            keys: try keys.map { kid, key in
                let primitives = try key.publicKey.getKeyPrimitives()
                return JSONWebKey(
                    kty: "RSA", alg: "RS256", use: "sig", kid: kid, n: primitives.modulus.base64URLEncoded,
                    e: primitives.publicExponent.base64URLEncoded)
            })
    }

    /// Counts fetches; answers the given key set and Cache-Control.
    final class KeyRoute: Sendable {
        let fetches = Locked(0)
        let answer: Locked<Result<(JSONWebKeySet, HTTPFields), any Error>>
        init(_ set: JSONWebKeySet, cacheControl: String? = "public, max-age=600") {
            var fields = HTTPFields()
            if let cacheControl { fields[.cacheControl] = cacheControl }
            answer = Locked(.success((set, fields)))
        }
        func fetch() async throws -> (JSONWebKeySet, HTTPFields) {
            fetches.withLock { $0 += 1 }
            try await Task.sleep(for: .milliseconds(20))
            return try answer.current.get()
        }
    }

    static func claims(_ edit: (inout [String: Any]) -> Void = { _ in }) -> [String: Any] {
        let t = Int(now.timeIntervalSince1970)
        var claims: [String: Any] = [
            "iss": "https://securetoken.google.com/\(project)", "aud": project, "auth_time": t - 100,
            "user_id": "uid-1", "sub": "uid-1",
            "iat": t - 10, "exp": t + 3590, "email": "ada@example.com", "email_verified": true, "role": "admin",
            "firebase": [
                "identities": ["email": ["ada@example.com"]], "sign_in_provider": "password",
                "sign_in_second_factor": "totp",
                "second_factor_identifier": "enr-1",
            ] as [String: Any],
        ]
        edit(&claims)
        return claims
    }

    static func token(
        header: [String: Any] = ["alg": "RS256", "kid": "k1", "typ": "JWT"], claims: [String: Any] = claims(),
        key: _RSA.Signing.PrivateKey = key
    ) throws -> String {
        let input =
            try JSONSerialization.data(withJSONObject: header).base64URLEncoded + "."
            + JSONSerialization.data(withJSONObject: claims).base64URLEncoded
        return input + "."
            + (try key.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5)).rawRepresentation.base64URLEncoded
    }

    static func verifier(_ route: KeyRoute, at time: Locked<Date> = Locked(now), tenant: String? = nil)
        -> IDTokenVerifier
    {
        IDTokenVerifier(
            projectID: project, kind: .idToken, tenantID: tenant, clockSkew: .seconds(60),
            keys: SigningKeyCache(now: { time.current }, fetch: { try await route.fetch() }), now: { time.current })
    }

    @Test func aGoodTokenGivesItsClaims() async throws {
        let route = KeyRoute(try Self.jwks([("k1", Self.key)]))
        let decoded = try await Self.verifier(route).verify(try Self.token())
        #expect(
            decoded.uid == "uid-1" && decoded.signInSecondFactor == "totp" && decoded.secondFactorIdentifier == "enr-1")
        #expect(decoded.claims["role"] == .string("admin"))
        #expect(decoded.expiresAt == Self.now.addingTimeInterval(3590))
    }

    @Test func everyRefusalIsTypedAndNamesTheClaimNotTheToken() async throws {
        let route = KeyRoute(try Self.jwks([("k1", Self.key)]))
        let verifier = Self.verifier(route)
        let t = Int(Self.now.timeIntervalSince1970)
        let cases: [(String, TokenVerificationError)] = [
            ("not a token", .malformed("not a JWT (three strict base64url parts, at most 16 KB)")),
            ("e30.e30", .malformed("not a JWT (three strict base64url parts, at most 16 KB)")),
            ("e30.e30.c2ln.c2ln", .malformed("not a JWT (three strict base64url parts, at most 16 KB)")),
            (".e30.c2ln", .malformed("not a JWT (three strict base64url parts, at most 16 KB)")),
            ("e30..c2ln", .malformed("not a JWT (three strict base64url parts, at most 16 KB)")),
            ("e3!.e30.c2ln", .malformed("not a JWT (three strict base64url parts, at most 16 KB)")),
            (
                "e30.e30.c2ln" + String(repeating: "A", count: 16 * 1024),
                .malformed("not a JWT (three strict base64url parts, at most 16 KB)")
            ),
            (try Self.token(header: ["alg": "none", "kid": "k1"]), .unsupportedAlgorithm("none")),
            (try Self.token(header: ["alg": "HS256", "kid": "k1"]), .unsupportedAlgorithm("HS256")),
            (try Self.token(header: ["alg": "RS256"]), .malformed("the header has no kid")),
            (try Self.token(header: ["alg": "RS256", "kid": "k9"]), .unknownKey(kid: "k9")),
            (try Self.token(key: Self.otherKey), .badSignature),
            (
                try Self.token(claims: Self.claims { $0["aud"] = "other" }),
                .wrongAudience(expected: Self.project, found: "other")
            ),
            (
                try Self.token(claims: Self.claims { $0["iss"] = "https://securetoken.google.com/other" }),
                .wrongIssuer(
                    expected: "https://securetoken.google.com/\(Self.project)",
                    found: "https://securetoken.google.com/other")
            ),
            (try Self.token(claims: Self.claims { $0["exp"] = t }), .expired(at: Self.now)),
            (
                try Self.token(claims: Self.claims { $0["iat"] = t + 61 }),
                .issuedInTheFuture(at: Self.now.addingTimeInterval(61))
            ),
            (
                try Self.token(claims: Self.claims { $0["auth_time"] = t + 61 }),
                .authenticatedInTheFuture(at: Self.now.addingTimeInterval(61))
            ),
            (try Self.token(claims: Self.claims { $0["sub"] = "" }), .invalidSubject),
            (try Self.token(claims: Self.claims { $0["sub"] = String(repeating: "u", count: 129) }), .invalidSubject),
            (
                try Self.token(claims: Self.claims { $0["firebase"] = nil }),
                .malformed("the claims do not decode (missing firebase)")
            ),
            (
                try Self.token(claims: Self.claims { $0["exp"] = "soon" }),
                .malformed("the claims do not decode (wrong type at exp)")
            ),
        ]
        for (token, expected) in cases {
            do {
                _ = try await verifier.verify(token)
                Issue.record("accepted: \(expected)")
            } catch {
                #expect(error == expected)
                #expect(!error.description.contains(token) || token == "not a token")
            }
        }
        // Within the clock-skew allowance, iat and auth_time a little ahead are accepted.
        _ = try await verifier.verify(
            try Self.token(
                claims: Self.claims {
                    $0["iat"] = t + 59
                    $0["auth_time"] = t + 59
                }))
        // A tenant-scoped verifier.
        await #expect(throws: TokenVerificationError.tenantMismatch(expected: "t-1", found: nil)) {
            _ = try await verifier.forTenant("t-1").verify(try Self.token())
        }
        let tenantToken = try Self.token(
            claims: Self.claims { claims in
                var firebase = claims["firebase"] as? [String: Any] ?? [:]
                firebase["tenant"] = "t-1"
                claims["firebase"] = firebase
            })
        #expect(try await verifier.forTenant("t-1").verify(tenantToken).tenant == "t-1")
    }

    @Test func keysAreCachedForMaxAgeAndFetchedOnceByConcurrentCallers() async throws {
        let route = KeyRoute(try Self.jwks([("k1", Self.key)]), cacheControl: "public, max-age=600, must-revalidate")
        let time = Locked(Self.now)
        let verifier = Self.verifier(route, at: time)
        let token = try Self.token()
        // 1,000 concurrent verifications with a cold cache: one fetch.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<1000 { group.addTask { _ = try await verifier.verify(token) } }
            try await group.waitForAll()
        }
        #expect(route.fetches.current == 1)
        time.withLock { $0 = $0.addingTimeInterval(599) }
        _ = try await verifier.verify(
            try Self.token(claims: Self.claims { $0["exp"] = Int(Self.now.timeIntervalSince1970) + 3590 }))
        #expect(route.fetches.current == 1)
        // Expired: the stale set answers at once while one refresh runs behind.
        time.withLock { $0 = $0.addingTimeInterval(2) }
        _ = try await verifier.verify(token)
        await verifier.keys.awaitBackgroundRefresh()
        #expect(route.fetches.current == 2)
    }

    @Test func aRotatedKeyIsFetchedOnceAndForgedKidsCannotForceFetches() async throws {
        let route = KeyRoute(try Self.jwks([("k1", Self.key)]))
        let time = Locked(Self.now)
        let verifier = Self.verifier(route, at: time)
        _ = try await verifier.verify(try Self.token())
        // Google rotates: k2 appears. Within the refetch interval an unknown kid is refused without a fetch.
        route.answer.withLock {
            $0 = .success((try! Self.jwks([("k1", Self.key), ("k2", Self.otherKey)]), [.cacheControl: "max-age=600"]))
        }
        let rotated = try Self.token(header: ["alg": "RS256", "kid": "k2"], key: Self.otherKey)
        await #expect(throws: TokenVerificationError.unknownKey(kid: "k2")) { _ = try await verifier.verify(rotated) }
        #expect(route.fetches.current == 1)
        time.withLock { $0 = $0.addingTimeInterval(31) }
        _ = try await verifier.verify(rotated)
        _ = try await verifier.verify(rotated)
        #expect(route.fetches.current == 2)
        for index in 0..<20 {
            await #expect(throws: TokenVerificationError.unknownKey(kid: "forged-\(index)")) {
                _ = try await verifier.verify(try Self.token(header: ["alg": "RS256", "kid": "forged-\(index)"]))
            }
        }
        #expect(route.fetches.current == 2)
    }

    @Test func staleKeysServeWhileTheRouteIsDownForABoundedTime() async throws {
        let route = KeyRoute(try Self.jwks([("k1", Self.key)]), cacheControl: "max-age=60")
        let time = Locked(Self.now)
        let verifier = Self.verifier(route, at: time)
        _ = try await verifier.verify(try Self.token())
        struct Down: Error {}
        route.answer.withLock { $0 = .failure(Down()) }
        // Expired keys, failing refresh: still verified within the grace period (an hour).
        time.withLock { $0 = $0.addingTimeInterval(60 + 1800) }
        _ = try await verifier.verify(
            try Self.token(claims: Self.claims { $0["exp"] = Int(Self.now.timeIntervalSince1970) + 7200 }))
        time.withLock { $0 = $0.addingTimeInterval(1801) }
        do {
            _ = try await verifier.verify(
                try Self.token(claims: Self.claims { $0["exp"] = Int(Self.now.timeIntervalSince1970) + 7200 }))
            Issue.record("stale keys used past the grace period")
        } catch let error as TokenVerificationError {
            guard case .keysUnavailable = error else {
                Issue.record("\(error)")
                return
            }
        }
    }

    @Test func cacheControlIsRead() {
        #expect(CacheControl.maxAge("public, max-age=19682, must-revalidate, no-transform") == 19682)
        #expect(CacheControl.maxAge("no-store") == 0)
        #expect(CacheControl.maxAge("MAX-AGE=5") == 5)
        #expect(CacheControl.maxAge("max-age=\"30\"") == 30)
        #expect(CacheControl.maxAge("  max-age = 7 ") == 7)
        #expect(CacheControl.maxAge("max-age=99999999999999999999999") == CacheControl.longestMaxAge)
        #expect(CacheControl.maxAge("private") == nil)
        #expect(CacheControl.maxAge(nil) == nil)
        #expect(CacheControl.maxAge("max-age=-1") == nil)
        #expect(CacheControl.maxAge("max-age=1e3") == nil)
    }

    /// Any bytes a key route sends in Cache-Control give a lifetime or none:
    /// `=` alone once trapped every verifier (`parts[0]` of an empty split).
    @Test(arguments: [
        "=", ",", "=,=", ", ,", "==max-age", "max-age=", "\"", "max-age=\"", "\u{0}=\u{0}", "\u{1F600}=1",
        String(repeating: "=,", count: 1000),
    ])
    func malformedCacheControlNeverTraps(_ value: String) async throws {
        #expect(CacheControl.maxAge(value) == nil)
        // And through the verifier: the default lifetime, a verified token.
        let route = KeyRoute(try Self.jwks([("k1", Self.key)]), cacheControl: value)
        let verifier = Self.verifier(route, at: Locked(Self.now))
        _ = try await verifier.verify(try Self.token())
        #expect(route.fetches.current == 1)
    }
}
