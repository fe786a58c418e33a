import AdminTestSupport
import Foundation
import HTTPTypes
import IdentitySupport
import IdentityToolkit
import Testing
import _CryptoExtras

@testable import IdentityAdmin

/// The verified-token cache and the account states `checkRevoked` remembers.
@Suite struct TokenCacheTests {
    typealias Forged = ForgedIDTokenTests

    /// A verifier over `route` at `time`, with a cache as `options` say.
    static func verifier(_ route: Forged.KeyRoute, at time: Locked<Date>, options: TokenCacheOptions = .default)
        -> IDTokenVerifier
    {
        Forged.verifier(route, at: time).withCache(options)
    }

    @Test func aRepeatedTokenIsRecognisedUntilTheBound() async throws {
        let route = Forged.KeyRoute(try Forged.jwks([("k1", Forged.key)]), cacheControl: "max-age=86400")
        let time = Locked(Forged.now)
        let verifier = Self.verifier(
            route, at: time, options: TokenCacheOptions(verifiedTokenMaximumAge: .seconds(300)))
        let cache = try #require(verifier.cache)
        let token = try Forged.token()
        let first = try await verifier.verify(token)
        #expect(cache.statistics == (hits: 0, misses: 1))
        #expect(try await verifier.verify(token) == first)
        #expect(cache.statistics == (hits: 1, misses: 1))
        // Past the bound (the token itself lives for another hour) it is checked in full again.
        time.withLock { $0 = $0.addingTimeInterval(301) }
        #expect(try await verifier.verify(token) == first)
        #expect(cache.statistics == (hits: 1, misses: 2))
        // One byte more is another token: its full checks refuse it.
        await #expect(throws: TokenVerificationError.self) { _ = try await verifier.verify(token + "A") }
        #expect(cache.count == 1)
    }

    @Test func aRecognisedTokenStillExpiresAndStillHasItsTimesChecked() async throws {
        let route = Forged.KeyRoute(try Forged.jwks([("k1", Forged.key)]), cacheControl: "max-age=86400")
        let time = Locked(Forged.now)
        let verifier = Self.verifier(route, at: time)
        let t = Int(Forged.now.timeIntervalSince1970)
        let shortLived = try Forged.token(claims: Forged.claims { $0["exp"] = t + 120 })
        _ = try await verifier.verify(shortLived)
        _ = try await verifier.verify(shortLived)
        time.withLock { $0 = Forged.now.addingTimeInterval(120) }
        await #expect(throws: TokenVerificationError.expired(at: Forged.now.addingTimeInterval(120))) {
            _ = try await verifier.verify(shortLived)
        }
        // A clock set back puts a remembered token's iat in the future again.
        let token = try Forged.token()
        time.withLock { $0 = Forged.now }
        _ = try await verifier.verify(token)
        time.withLock { $0 = Forged.now.addingTimeInterval(-120) }
        await #expect(throws: TokenVerificationError.issuedInTheFuture(at: Forged.now.addingTimeInterval(-10))) {
            _ = try await verifier.verify(token)
        }
        #expect(verifier.cache?.statistics.hits == 2)
    }

    @Test func aTenantVerifierSharingTheCacheStillChecksTheTenant() async throws {
        let route = Forged.KeyRoute(try Forged.jwks([("k1", Forged.key)]))
        let time = Locked(Forged.now)
        let project = Self.verifier(route, at: time)
        let token = try Forged.token(
            claims: Forged.claims {
                $0["firebase"] = ["identities": [String: Any](), "sign_in_provider": "password", "tenant": "t-1"]
            })
        _ = try await project.verify(token)
        #expect(try await project.forTenant("t-1").verify(token).tenant == "t-1")
        await #expect(throws: TokenVerificationError.tenantMismatch(expected: "t-2", found: "t-1")) {
            _ = try await project.forTenant("t-2").verify(token)
        }
        #expect(try #require(project.cache).statistics == (hits: 2, misses: 1))
    }

    /// A fetched key set without the key a token was verified with makes
    /// the token's entry stale: the token is refused as any token of a
    /// withdrawn key. A key added beside the old one changes nothing.
    @Test func aKeyRotationThatDropsTheKeyForgetsItsTokens() async throws {
        let route = Forged.KeyRoute(try Forged.jwks([("k1", Forged.key)]))
        let time = Locked(Forged.now)
        // A bound beyond the token's life: only the rotation can forget it.
        let verifier = Self.verifier(
            route, at: time, options: TokenCacheOptions(verifiedTokenMaximumAge: .seconds(7200)))
        let oldToken = try Forged.token()
        _ = try await verifier.verify(oldToken)
        let newToken = try Forged.token(header: ["alg": "RS256", "kid": "k2", "typ": "JWT"], key: Forged.otherKey)

        // k2 published beside k1: the remembered token stays remembered.
        route.answer.withLock {
            $0 = .success(
                (try! Forged.jwks([("k1", Forged.key), ("k2", Forged.otherKey)]), [.cacheControl: "max-age=600"]))
        }
        time.withLock { $0 = $0.addingTimeInterval(601) }
        _ = try await verifier.verify(newToken)
        _ = try await verifier.verify(oldToken)
        #expect(verifier.cache?.statistics.hits == 1)
        // The expired set also started a refresh behind the fetch for k2;
        // until that one has ended, no second one starts.
        await verifier.keys.awaitBackgroundRefresh()

        // k1 withdrawn. Only remembered tokens arrive, yet the expired key
        // set is refreshed behind them, and the refresh drops k1's tokens.
        route.answer.withLock {
            $0 = .success((try! Forged.jwks([("k2", Forged.otherKey)]), [.cacheControl: "max-age=600"]))
        }
        time.withLock { $0 = $0.addingTimeInterval(601) }
        _ = try await verifier.verify(newToken)
        await verifier.keys.awaitBackgroundRefresh()
        await #expect(throws: TokenVerificationError.unknownKey(kid: "k1")) { _ = try await verifier.verify(oldToken) }
        #expect(try await verifier.verify(newToken).uid == "uid-1")
    }

    @Test func aFloodOfDistinctValidTokensKeepsTheCacheAtItsCapacity() async throws {
        let route = Forged.KeyRoute(try Forged.jwks([("k1", Forged.key)]))
        let verifier = Self.verifier(
            route, at: Locked(Forged.now), options: TokenCacheOptions(verifiedTokenCapacity: 50))
        for index in 0..<300 {
            _ = try await verifier.verify(
                try Forged.token(
                    claims: Forged.claims {
                        $0["sub"] = "uid-\(index)"
                        $0["user_id"] = "uid-\(index)"
                    }))
            #expect((verifier.cache?.count ?? .max) <= 50)
        }
        #expect(verifier.cache?.count == 50)
    }

    @Test func aDisabledCacheChecksEverySignature() async throws {
        let route = Forged.KeyRoute(try Forged.jwks([("k1", Forged.key)]))
        let verifier = Self.verifier(route, at: Locked(Forged.now), options: .disabled)
        #expect(verifier.cache == nil)
        let token = try Forged.token()
        #expect(try await verifier.verify(token) == verifier.verify(token))
        #expect(AccountStateCache(.disabled) == nil)
    }

    /// A change made elsewhere (another instance, the console) reaches the
    /// `checkRevoked` checks once the remembered state is as old as
    /// `revocationMaximumAge`; a change through this admin at once.
    @Test func aRevocationMadeElsewhereIsSeenAfterTheMaximumAge() async throws {
        let project = "demo-token-cache"
        try await EmulatorSetup.with(project: project) { setup in
            let time = Locked(Date())
            let admin = IdentityAdmin(
                projectID: project, credential: EmulatorOwnerCredential(), configuration: setup.configuration,
                tokenCache: TokenCacheOptions(revocationMaximumAge: .seconds(10)), accountStateClock: { time.current })
            let created = try await setup.accounts.signUp(
                SignUpRequest(email: "cache@example.com", password: "correct horse", returnSecureToken: true))
            let token = try #require(created.idToken)
            _ = try await admin.verifyIDToken(token, checkRevoked: true)

            // Disabled behind this admin's back: the remembered state answers for up to 10 s.
            let elsewhere = IdentityAdmin.emulator(
                projectID: project, hostAndPort: setup.hostAndPort, transport: setup.configuration.transport)
            _ = try await elsewhere.updateUser(created.localId, UpdateUserRequest(disabled: true))
            time.withLock { $0 = $0.addingTimeInterval(9.9) }
            _ = try await admin.verifyIDToken(token, checkRevoked: true)
            time.withLock { $0 = $0.addingTimeInterval(0.1) }
            await #expect(throws: TokenVerificationError.userDisabled) {
                _ = try await admin.verifyIDToken(token, checkRevoked: true)
            }

            // Enabled again through this admin: seen at once.
            _ = try await admin.updateUser(created.localId, UpdateUserRequest(disabled: false))
            _ = try await admin.verifyIDToken(token, checkRevoked: true)
            // A tenant's instance shares the admin's states (and refuses the project's token).
            #expect(admin.tenantManager().authForTenant("t-1").accountStates === admin.accountStates)
        }
    }
}
