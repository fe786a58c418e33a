import Benchmark
import BenchmarkTokens
import Foundation
import HTTPTypes
@_spi(Benchmarks) import IdentityAdmin
import IdentityOTPFormats
import IdentityToolkit
import JWTKit
import OpenSSLFloor
import _CryptoExtras

/// One token, in one run: `IDTokenVerifier.verify` with warm keys and no
/// cache (every check Google documents: header, kid, RS256 signature, aud,
/// iss, exp, iat, auth_time, sub); the same token repeated through the
/// verified-token cache; jwt-kit 5's `FirebaseAuthIdentityToken`
/// verification (with its `expectedAudience` check); and the floor no
/// verifier can go under, the RS256 check of the token's signing input by
/// swift-crypto and by OpenSSL; and `verifySessionCookie`'s check of the
/// same claims under the session issuer. Targets: verify ≤ 1.3 × the swift-crypto
/// floor; a repeated token ≤ 2 µs.
let benchmarks: @Sendable () -> Void = {
    // 1,000 calls a sample: one call a sample measured the harness's hop between
    // threads around each call (half of the time and most of the spread).
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal], timeUnits: .nanoseconds, scalingFactor: .kilo,
        maxDuration: .seconds(5))

    Benchmark("verifyIDToken, warm keys, no cache (IdentityAdmin)", configuration: .init(setup: TokenFixture.warmUp)) {
        benchmark in
        let fixture = TokenFixture.shared
        for _ in benchmark.scaledIterations {
            blackHole(try await fixture.verifier.verify(fixture.token))
        }
    }

    Benchmark(
        "verifySessionCookie, warm keys, no cache (IdentityAdmin)", configuration: .init(setup: TokenFixture.warmUp)
    ) { benchmark in
        let fixture = TokenFixture.shared
        for _ in benchmark.scaledIterations {
            blackHole(try await fixture.sessionCookieVerifier.verify(fixture.sessionCookie))
        }
    }

    Benchmark("verifyIDToken, repeated token (verified-token cache)", configuration: .init(setup: TokenFixture.warmUp))
    { benchmark in
        let fixture = TokenFixture.shared
        for _ in benchmark.scaledIterations {
            blackHole(try await fixture.cachingVerifier.verify(fixture.token))
        }
    }

    // The telemetry's cost on the hot path, both sides in this run: the line
    // above records (no backend bootstrapped: swift-metrics' and the
    // tracer's no-op ones); this one records nothing. Target: ≤ 1.03 ×.
    Benchmark(
        "verifyIDToken, repeated token, telemetry off (baseline of the line above)",
        configuration: .init(setup: TokenFixture.warmUp)
    ) { benchmark in
        let fixture = TokenFixture.shared
        for _ in benchmark.scaledIterations {
            blackHole(try await fixture.cachingVerifierWithoutTelemetry.verify(fixture.token))
        }
    }

    Benchmark(
        "floor: RS256 check of the signing input (swift-crypto)", configuration: .init(setup: TokenFixture.warmUp)
    ) { benchmark in
        let fixture = TokenFixture.shared
        for _ in benchmark.scaledIterations {
            blackHole(
                fixture.publicKey.isValidSignature(
                    fixture.signature, for: fixture.signingInput, padding: .insecurePKCS1v1_5))
        }
    }

    Benchmark("floor: RS256 check of the signing input (OpenSSL)", configuration: .init(setup: TokenFixture.warmUp)) {
        benchmark in
        let fixture = TokenFixture.shared
        for _ in benchmark.scaledIterations {
            blackHole(fixture.openSSLVerify())
        }
    }

    Benchmark("FirebaseAuthIdentityToken, warm keys (jwt-kit 5)", configuration: .init(setup: TokenFixture.warmUp)) {
        benchmark in
        let fixture = TokenFixture.shared
        for _ in benchmark.scaledIterations {
            blackHole(
                try await fixture.jwtKitKeys.verify(
                    fixture.token, as: FirebaseAuthIdentityToken.self, expectedAudience: TokenFixture.project))
        }
    }
}

/// A token signed with a fresh RSA-2048 key, and both verifiers holding its public key.
final class TokenFixture: Sendable {
    static let shared = try! TokenFixture()
    static let project = BenchmarkTokens.project

    let token: String
    /// Every check on every call.
    let verifier: IDTokenVerifier
    /// The same claims under the session issuer, signed with the same key.
    let sessionCookie: String
    /// A session-cookie verifier, every check on every call.
    let sessionCookieVerifier: IDTokenVerifier
    /// The default: a token seen before is recognised by its digest.
    let cachingVerifier: IDTokenVerifier
    /// The same, recording no metric and no span.
    let cachingVerifierWithoutTelemetry: IDTokenVerifier
    let jwtKitKeys: JWTKeyCollection
    let jwksJSON: String
    /// The floor's inputs: the key, the signature and the bytes it signs.
    let publicKey: _RSA.Signing.PublicKey
    let signature: _RSA.Signing.RSASignature
    let signingInput: Data
    /// OpenSSL's parsed key; the fixture lives as long as the process.
    nonisolated(unsafe) let openSSLKey: OpaquePointer

    init() throws {
        let tokens = try BenchmarkTokens()
        let jwksData = tokens.keySet
        jwksJSON = String(decoding: jwksData, as: UTF8.self)
        token = tokens.idToken
        sessionCookie = tokens.sessionCookie
        let key = tokens.key
        let signature = tokens.signature
        sessionCookieVerifier = IDTokenVerifier(
            projectID: Self.project,
            sessionCookieKeys: SessionCookieKeysClient(
                configuration: ClientConfiguration(transport: KeyRoute(body: jwksData), emulatorHost: nil))
        ).withCache(.disabled)
        cachingVerifier = IDTokenVerifier(
            projectID: Self.project,
            keys: GooglePublicKeysClient(
                configuration: ClientConfiguration(transport: KeyRoute(body: jwksData), emulatorHost: nil)))
        verifier = cachingVerifier.withCache(.disabled)
        cachingVerifierWithoutTelemetry = cachingVerifier.withoutTelemetry()
        jwtKitKeys = JWTKeyCollection()
        publicKey = key.publicKey
        self.signature = signature
        signingInput = tokens.signingInput
        let spki = [UInt8](key.publicKey.derRepresentation)
        guard let parsed = rs256_floor_new(spki, spki.count) else {
            preconditionFailure("OpenSSL did not parse the benchmark's public key")
        }
        openSSLKey = parsed
    }

    /// OpenSSL's RS256 check of the signing input.
    func openSSLVerify() -> Bool {
        signingInput.withUnsafeBytes { input in
            signature.rawRepresentation.withUnsafeBytes { signature in
                rs256_floor_verify(openSSLKey, input.baseAddress, input.count, signature.baseAddress, signature.count)
                    == 1
            }
        }
    }

    /// Fetches the keys once (the verifier caches them) and loads them into jwt-kit.
    @Sendable static func warmUp() async throws {
        let fixture = shared
        _ = try await fixture.jwtKitKeys.add(jwksJSON: fixture.jwksJSON)
        let decoded = try await fixture.verifier.verify(fixture.token)
        precondition(decoded.signInSecondFactor == "totp")
        let session = try await fixture.sessionCookieVerifier.verify(fixture.sessionCookie)
        precondition(session.uid == decoded.uid && session.issuer.hasPrefix(BenchmarkTokens.sessionCookieIssuer))
        let cached = try await fixture.cachingVerifier.verify(fixture.token)
        precondition(cached == decoded)
        precondition(
            fixture.openSSLVerify()
                && fixture.publicKey.isValidSignature(
                    fixture.signature, for: fixture.signingInput, padding: .insecurePKCS1v1_5)
        )
        let other = try await fixture.jwtKitKeys.verify(
            fixture.token, as: FirebaseAuthIdentityToken.self, expectedAudience: TokenFixture.project)
        precondition(other.subject.value == "bench-user")
    }
}
