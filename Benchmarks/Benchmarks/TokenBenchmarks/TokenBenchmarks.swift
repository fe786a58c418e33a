import Benchmark
import Foundation
import HTTPTypes
import IdentityAdmin
import IdentityToolkit
import JWTKit
import _CryptoExtras
import OTPFormats

/// `IDTokenVerifier.verify` with warm keys (every check Google documents:
/// header, kid, RS256 signature, aud, iss, exp, iat, auth_time, sub) beside
/// jwt-kit 5's `FirebaseAuthIdentityToken` verification (with its
/// `expectedAudience` check) of the same token with the same key, in the same run. Target: ≤ 60 µs per call.
/// (`openssl speed rsa2048` verifies in about 20 µs on this machine.)
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds, maxDuration: .seconds(5))

    Benchmark("verifyIDToken, warm keys (IdentityAdmin)", configuration: .init(setup: TokenFixture.warmUp)) { benchmark in
        let fixture = TokenFixture.shared
        for _ in benchmark.scaledIterations {
            blackHole(try await fixture.verifier.verify(fixture.token))
        }
    }

    Benchmark("FirebaseAuthIdentityToken, warm keys (jwt-kit 5)", configuration: .init(setup: TokenFixture.warmUp)) { benchmark in
        let fixture = TokenFixture.shared
        for _ in benchmark.scaledIterations {
            blackHole(try await fixture.jwtKitKeys.verify(fixture.token, as: FirebaseAuthIdentityToken.self, expectedAudience: TokenFixture.project))
        }
    }
}

/// A token signed with a fresh RSA-2048 key, and both verifiers holding its public key.
final class TokenFixture: Sendable {
    static let shared = try! TokenFixture()
    static let project = "bench-project"

    let token: String
    let verifier: IDTokenVerifier
    let jwtKitKeys: JWTKeyCollection
    let jwksJSON: String

    /// Answers the key route with the JWKS, cacheable for an hour.
    struct KeyRoute: HTTPTransport {
        let body: Data
        func send(_ request: HTTPRequest, body _: Data?, options _: TransportOptions) async throws -> (HTTPResponse, Data) {
            (HTTPResponse(status: .ok, headerFields: [.contentType: "application/json", .cacheControl: "public, max-age=3600"]), body)
        }
    }

    init() throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let primitives = try key.publicKey.getKeyPrimitives()
        let jwks = JSONWebKeySet(keys: [JSONWebKey(kty: "RSA", alg: "RS256", use: "sig", kid: "bench-key",
                                                   n: primitives.modulus.base64URLEncoded, e: primitives.publicExponent.base64URLEncoded)])
        let jwksData = try JSONEncoder().encode(jwks)
        jwksJSON = String(decoding: jwksData, as: UTF8.self)
        let now = Int64(Date().timeIntervalSince1970)
        let claims = IDTokenClaims(
            iss: TokenIssuerPrefix.idToken.rawValue + Self.project, aud: Self.project, authTime: now - 60, userID: "bench-user", sub: "bench-user",
            iat: now - 60, exp: now + 3600, email: "bench@example.com", emailVerified: true,
            firebase: FirebaseSignInClaims(identities: ["email": ["bench@example.com"]], signInProvider: "password",
                                           signInSecondFactor: "totp", secondFactorIdentifier: "enrollment-1"))
        let header = try JSONEncoder().encode(JOSEHeader(alg: "RS256", typ: "JWT", kid: "bench-key")).base64URLEncoded
        let signingInput = header + "." + (try JSONEncoder().encode(claims)).base64URLEncoded
        let signature = try key.signature(for: Data(signingInput.utf8), padding: .insecurePKCS1v1_5)
        token = signingInput + "." + signature.rawRepresentation.base64URLEncoded
        verifier = IDTokenVerifier(projectID: Self.project, keys: GooglePublicKeysClient(
            configuration: ClientConfiguration(transport: KeyRoute(body: jwksData), emulatorHost: nil)))
        jwtKitKeys = JWTKeyCollection()
    }

    /// Fetches the keys once (the verifier caches them) and loads them into jwt-kit.
    @Sendable static func warmUp() async throws {
        let fixture = shared
        _ = try await fixture.jwtKitKeys.add(jwksJSON: fixture.jwksJSON)
        let decoded = try await fixture.verifier.verify(fixture.token)
        precondition(decoded.signInSecondFactor == "totp")
        let other = try await fixture.jwtKitKeys.verify(fixture.token, as: FirebaseAuthIdentityToken.self, expectedAudience: TokenFixture.project)
        precondition(other.subject.value == "bench-user")
    }
}

extension Data {
    var base64URLEncoded: String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
