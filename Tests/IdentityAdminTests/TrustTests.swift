import Crypto
import Foundation
import HTTPTypes
import IdentitySupport
import IdentityToolkit
import IdentityToolkitAsyncHTTPClient
import IdentityToolkitEmulator
import IdentityToolkitTestSupport
import Testing
import _CryptoExtras

@testable import IdentityAdmin

/// What a security review of the server half found, one test per defect.
@Suite struct TrustTests {
    /// A service account key file whose token endpoint is `tokenEndpoint`.
    static func serviceAccountKey(tokenEndpoint: String) throws -> Data {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        return try JSONSerialization.data(withJSONObject: [
            "type": "service_account", "project_id": "p", "private_key_id": "k1", "private_key": key.pemRepresentation,
            "client_email": "admin@p.iam.gserviceaccount.com", "token_uri": tokenEndpoint,
        ])
    }

    /// In emulator mode the real credential is never asked: every call
    /// carries `Bearer owner`, and the token endpoint hears nothing.
    @Test func emulatorModeSendsOwnerAndNeverTheRealAccessToken() async throws {
        let tokenEndpoint = try await LoopbackHTTPServer()
        let fakeEmulator = try await LoopbackHTTPServer()
        defer {
            Task {
                try? await tokenEndpoint.shutdown()
                try? await fakeEmulator.shutdown()
            }
        }
        let credential = try ServiceAccountCredential(
            json: try Self.serviceAccountKey(tokenEndpoint: "\(tokenEndpoint.baseURL)/token"),
            transport: AsyncHTTPClientTransport.failingFast)
        let admin = IdentityAdmin(
            projectID: "p", credential: credential,
            configuration: ClientConfiguration(
                transport: AsyncHTTPClientTransport.failingFast, emulatorHost: "127.0.0.1:\(fakeEmulator.port)"))
        _ = try? await admin.getUser(uid: "someone")
        _ = try? await admin.projectConfigManager().getProjectConfig()
        #expect(tokenEndpoint.requests.isEmpty, "the token endpoint was asked: \(tokenEndpoint.requests)")
        let seen = fakeEmulator.requests
        #expect(seen.count == 2)
        #expect(seen.allSatisfy { $0.authorization == "Bearer owner" }, "\(seen)")
    }

    /// The same through the environment variable, in a separate process as a
    /// leaked `.env` would set it: one warning line, the lookup answered by
    /// the emulator, the service account's token endpoint never called.
    @Test func theEnvironmentVariableWarnsOnceAndKeepsTheKeyFileUnused() async throws {
        let project = "demo-env"
        try await IdentityToolkitEmulator(
            configuration: EmulatorConfiguration(port: 0, projectID: project)
        ).serving { running in
            let tokenEndpoint = try await LoopbackHTTPServer()
            defer {
                Task {
                    try? await tokenEndpoint.shutdown()
                }
            }
            let admin = IdentityAdmin.emulator(
                projectID: project, hostAndPort: running.hostAndPort, transport: AsyncHTTPClientTransport.failingFast)
            let user = try await admin.createUser(
                CreateUserRequest(email: "ada@example.com", password: "correct horse"))
            let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("key-\(UUID().uuidString).json")
            try Self.serviceAccountKey(tokenEndpoint: "\(tokenEndpoint.baseURL)/token").write(to: keyFile)
            defer { try? FileManager.default.removeItem(at: keyFile) }

            let result = try await BuiltExecutable("TopLevelConsumer").run(
                ["get-user", "ada@example.com"],
                environment: [
                    "FIREBASE_AUTH_EMULATOR_HOST": running.hostAndPort, "GOOGLE_APPLICATION_CREDENTIALS": keyFile.path,
                    "PROJECT_ID": project,
                ])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("found UserRecord(") && result.stdout.contains(user.uid), "\(result.stdout)")
            let warnings = result.stderr.split(separator: "\n").filter {
                $0.contains("FIREBASE_AUTH_EMULATOR_HOST is set")
            }
            #expect(warnings.count == 1, "\(result.stderr)")
            #expect(tokenEndpoint.requests.isEmpty, "the token endpoint was asked: \(tokenEndpoint.requests)")
        }
    }

    /// The emulator-mode line names the setting that decided where admin
    /// calls go, and says which won when code and environment disagree.
    @Test func theEmulatorModeLineSaysWhichSettingWon() throws {
        #expect(IdentityAdmin.emulatorModeLine(configured: nil, environment: nil, namedInCode: false) == nil)
        let fromEnvironment = try #require(
            IdentityAdmin.emulatorModeLine(
                configured: "127.0.0.1:9099", environment: "127.0.0.1:9099", namedInCode: false))
        #expect(
            fromEnvironment.level == .warning
                && fromEnvironment.message.hasPrefix("FIREBASE_AUTH_EMULATOR_HOST is set"), "\(fromEnvironment)")
        let inCode = try #require(
            IdentityAdmin.emulatorModeLine(configured: "127.0.0.1:9099", environment: nil, namedInCode: true))
        #expect(
            inCode.level == .debug && inCode.message.contains("named in code")
                && !inCode.message.contains("FIREBASE_AUTH_EMULATOR_HOST"), "\(inCode)")
        let both = try #require(
            IdentityAdmin.emulatorModeLine(
                configured: "127.0.0.1:9099", environment: "127.0.0.1:9099", namedInCode: true))
        #expect(
            both.level == .debug
                && both.message.contains("named in code (FIREBASE_AUTH_EMULATOR_HOST names the same host)"), "\(both)")
        let disagree = try #require(
            IdentityAdmin.emulatorModeLine(
                configured: "127.0.0.1:9099", environment: "10.0.0.7:9099", namedInCode: false))
        #expect(
            disagree.level == .warning
                && disagree.message.contains(
                    "names 10.0.0.7:9099, but the emulator host named in code, 127.0.0.1:9099, wins"),
            "\(disagree)")
        let production = try #require(
            IdentityAdmin.emulatorModeLine(configured: nil, environment: "10.0.0.7:9099", namedInCode: false))
        #expect(
            production.level == .warning
                && production.message.contains("emulatorHost is nil, which wins: admin calls go to Google"),
            "\(production)")
        let hostile = try #require(
            IdentityAdmin.emulatorModeLine(configured: nil, environment: "evil\ninfo: forged", namedInCode: false))
        #expect(!hostile.message.contains("\n"))
    }

    /// Values from an unverified token reach messages escaped and bounded:
    /// a `kid` with a newline cannot forge a second log line.
    @Test func tokenValuesInMessagesAreEscapedAndBounded() {
        let forged = "k1\n2026-11-24T12:00:00Z info: admin signed in\u{1B}[2J\u{202E}"
        let description = TokenVerificationError.unknownKey(kid: forged).description
        #expect(!description.contains("\n") && !description.contains("\u{1B}") && !description.contains("\u{202E}"))
        #expect(description.contains("\\u{A}") && description.contains("\\u{1B}"))
        let long = TokenVerificationError.unsupportedAlgorithm(String(repeating: "A", count: 10_000)).description
        #expect(long.count < 200)
        let audience = TokenVerificationError.wrongAudience(expected: "p", found: "x\r\ny").description
        #expect(!audience.contains("\r") && !audience.contains("\n"))
        #expect(TokenVerificationError.malformed("a\u{0}b").description.contains("\\u{0}"))
    }

    /// A verifier of the project accepts every tenant's tokens (as
    /// firebase-admin's does); `requireTenant` narrows it in one call.
    @Test func requireTenantRefusesOtherTenants() async throws {
        let route = ForgedIDTokenTests.KeyRoute(try ForgedIDTokenTests.jwks([("k1", ForgedIDTokenTests.key)]))
        let verifier = ForgedIDTokenTests.verifier(route)
        let tenantToken = try ForgedIDTokenTests.token(
            claims: ForgedIDTokenTests.claims { claims in
                var firebase = claims["firebase"] as? [String: Any] ?? [:]
                firebase["tenant"] = "shop-1"
                claims["firebase"] = firebase
            })
        let decoded = try await verifier.verify(tenantToken)
        #expect(try decoded.requireTenant("shop-1").uid == "uid-1")
        #expect(throws: TokenVerificationError.tenantMismatch(expected: "shop-2", found: "shop-1")) {
            try decoded.requireTenant("shop-2")
        }
        let projectUser = try await verifier.verify(try ForgedIDTokenTests.token())
        #expect(throws: TokenVerificationError.tenantMismatch(expected: "shop-1", found: nil)) {
            try projectUser.requireTenant("shop-1")
        }
    }
}

/// The key cache against a key route that stalls or fails: verification
/// keeps the cached path's latency, and a failing route is asked again only
/// after a growing backoff.
@Suite struct KeyRouteOutageTests {
    typealias V = ForgedIDTokenTests

    /// Answers once, then stalls every later fetch for `stall`.
    final class StallingRoute: Sendable {
        let fetches = Locked(0)
        let set: JSONWebKeySet
        let stall: Duration
        init(_ set: JSONWebKeySet, stall: Duration) {
            self.set = set
            self.stall = stall
        }
        func fetch() async throws -> (JSONWebKeySet, HTTPFields) {
            let count = fetches.withLock {
                $0 += 1
                return $0
            }
            if count > 1 { try await Task.sleep(for: stall) }
            return (set, [.cacheControl: "max-age=60"])
        }
    }

    @Test func aStalledRouteDoesNotDelayVerificationWithStaleKeys() async throws {
        let route = StallingRoute(try V.jwks([("k1", V.key)]), stall: .seconds(20))
        let time = Locked(V.now)
        let cache = SigningKeyCache(now: { time.current }, fetch: { try await route.fetch() })
        let verifier = IDTokenVerifier(
            projectID: V.project, kind: .idToken, tenantID: nil, clockSkew: .seconds(60), keys: cache,
            now: { time.current })
        let token = try V.token(claims: V.claims { $0["exp"] = Int(V.now.timeIntervalSince1970) + 3590 })
        _ = try await verifier.verify(token)
        // The cached path's time, measured here.
        let clock = ContinuousClock()
        var cached: [Duration] = []
        for _ in 0..<20 { cached.append(try await clock.measure { _ = try await verifier.verify(token) }) }
        // The keys expire; the route now stalls for 20 s.
        time.withLock { $0 = $0.addingTimeInterval(120) }
        var stale: [Duration] = []
        for _ in 0..<20 { stale.append(try await clock.measure { _ = try await verifier.verify(token) }) }
        let cachedMedian = cached.sorted()[10]
        let staleMax = stale.max() ?? .zero
        // Far from the route's 20 s stall; the margin is for a suite that
        // keeps both cores busy (one scheduling hiccup there lasted 2 s).
        #expect(staleMax < cachedMedian * 20 + .seconds(3), "stale \(staleMax) vs cached \(cachedMedian)")
        // One background refresh, shared by the 20 stale verifications.
        for _ in 0..<200 where route.fetches.current < 2 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(route.fetches.current == 2)
    }

    @Test func aFailingRouteIsRetriedWithExponentialBackoff() async throws {
        let attempts = Locked(0)
        let time = Locked(V.now)
        struct Down: Error {}
        let cache = SigningKeyCache(initialBackoff: 1, maximumBackoff: 8, now: { time.current }) {
            attempts.withLock { $0 += 1 }
            throw Down()
        }
        // Cold cache, route down: the first call fetches and fails; the
        // next ones fail at once, without a fetch, until the backoff passes.
        await #expect(
            performing: { _ = try await cache.key(for: "k1") },
            throws: { ($0 as? TokenVerificationError)?.code == .keysUnavailable })
        for _ in 0..<50 {
            await #expect(
                performing: { _ = try await cache.key(for: "k1") },
                throws: { ($0 as? TokenVerificationError)?.code == .keysUnavailable })
        }
        #expect(attempts.current == 1)
        var expectedAttempts = 1
        for delay in [1.0, 2, 4, 8, 8] {
            time.withLock { $0 = $0.addingTimeInterval(delay - 0.01) }
            _ = try? await cache.key(for: "k1")
            #expect(attempts.current == expectedAttempts, "before the \(delay) s backoff ends")
            time.withLock { $0 = $0.addingTimeInterval(0.02) }
            _ = try? await cache.key(for: "k1")
            expectedAttempts += 1
            #expect(attempts.current == expectedAttempts, "after the \(delay) s backoff")
        }
    }

    /// One key of another type, use or algorithm, or one that does not
    /// parse, is skipped; the others verify. Only a set with no usable key
    /// is refused.
    @Test func unusableKeysAreSkippedNotFatal() async throws {
        let good = try V.jwks([("k1", V.key)]).keys?.first
        let set = JSONWebKeySet(keys: [
            JSONWebKey(kty: "EC", kid: "ec-1"),
            JSONWebKey(kty: "RSA", alg: "RS256", use: "enc", kid: "enc-1", n: good?.n, e: good?.e),
            JSONWebKey(kty: "RSA", alg: "RS512", use: "sig", kid: "rs512", n: good?.n, e: good?.e),
            JSONWebKey(kty: "RSA", alg: "RS256", use: "sig", kid: "broken", n: "AQAB", e: "!!"),
            JSONWebKey(kty: "RSA", alg: "RS256", use: "sig", n: good?.n, e: good?.e),
            try #require(good),
        ])
        let cache = SigningKeyCache(now: { V.now }, fetch: { (set, [:]) })
        _ = try await cache.key(for: "k1")
        for kid in ["ec-1", "enc-1", "rs512", "broken"] {
            await #expect(throws: TokenVerificationError.unknownKey(kid: kid)) { _ = try await cache.key(for: kid) }
        }
        let useless = SigningKeyCache(
            now: { V.now }, fetch: { (JSONWebKeySet(keys: [JSONWebKey(kty: "EC", kid: "ec-1")]), [:]) })
        await #expect(
            performing: { _ = try await useless.key(for: "ec-1") },
            throws: { ($0 as? TokenVerificationError)?.code == .keysUnavailable })
        let empty = SigningKeyCache(
            now: { V.now }, fetch: { (try JSONDecoder().decode(JSONWebKeySet.self, from: Data("{}".utf8)), [:]) })
        await #expect(
            performing: { _ = try await empty.key(for: "k1") },
            throws: { ($0 as? TokenVerificationError)?.code == .keysUnavailable })
    }

    /// A key set whose keys lack members Google's description leaves
    /// optional still decodes (one odd key used to fail the whole decode).
    @Test func aKeySetWithOddKeysDecodes() throws {
        let json = #"{"keys":[{"kty":"EC","crv":"P-256"},{"use":"sig"},{"kty":"RSA","kid":"k","n":"AQAB","e":"AQAB"}]}"#
        let set = try JSONDecoder().decode(JSONWebKeySet.self, from: Data(json.utf8))
        #expect(set.keys?.count == 3)
    }
}
