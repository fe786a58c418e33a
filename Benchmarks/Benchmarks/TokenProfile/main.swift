import Foundation
import HTTPTypes
@_spi(Benchmarks) import IdentityAdmin
import IdentityToolkit
import _CryptoExtras

// A profiling command, not a benchmark suite: verifies one RS256 ID token
// (warm keys, no cache) a given number of times, so that callgrind or perf
// see only the verifier's work and not a harness's.
//
//   valgrind --tool=callgrind --callgrind-out-file=/tmp/verify.cg .build/release/TokenProfile 2000 [--cached] [--no-telemetry]
//   callgrind_annotate --inclusive=yes /tmp/verify.cg | head -60
//
// `--session-cookie` verifies a session cookie instead; `--cached` keeps the
// verified-token cache on (every call after the first is a remembered
// token); `--no-telemetry` records no metric and no span (the baseline of
// the telemetry's cost).

/// Answers the key route with the JWKS, cacheable for an hour.
struct KeyRoute: HTTPTransport {
    let body: Data
    func send(_ request: HTTPRequest, body _: Data?, options _: TransportOptions) async throws -> (HTTPResponse, Data) {
        (HTTPResponse(status: .ok, headerFields: [.contentType: "application/json", .cacheControl: "public, max-age=3600"]), body)
    }
}

extension Data {
    var base64URLEncoded: String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}

let arguments = CommandLine.arguments.dropFirst()
let sessionCookie = arguments.contains("--session-cookie")
let cached = arguments.contains("--cached")
let withoutTelemetry = arguments.contains("--no-telemetry")
guard let count = arguments.lazy.compactMap({ Int($0) }).first, count > 0 else {
    FileHandle.standardError.write(Data("usage: TokenProfile COUNT [--session-cookie]\n".utf8))
    exit(64)
}

let project = "bench-project"
let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
let primitives = try key.publicKey.getKeyPrimitives()
let jwksData = try JSONEncoder().encode(JSONWebKeySet(keys: [JSONWebKey(kty: "RSA", alg: "RS256", use: "sig", kid: "bench-key",
                                                                       n: primitives.modulus.base64URLEncoded, e: primitives.publicExponent.base64URLEncoded)]))
let now = Int64(Date().timeIntervalSince1970)
let issuer = (sessionCookie ? TokenIssuerPrefix.sessionCookie : TokenIssuerPrefix.idToken).rawValue + project
let claims = IDTokenClaims(
    iss: issuer, aud: project, authTime: now - 60, userID: "bench-user", sub: "bench-user", iat: now - 60, exp: now + 3600,
    email: "bench@example.com", emailVerified: true,
    firebase: FirebaseSignInClaims(identities: ["email": ["bench@example.com"]], signInProvider: "password",
                                   signInSecondFactor: "totp", secondFactorIdentifier: "enrollment-1"))
let header = try JSONEncoder().encode(JOSEHeader(alg: .rs256, typ: "JWT", kid: "bench-key")).base64URLEncoded
let signingInput = header + "." + (try JSONEncoder().encode(claims)).base64URLEncoded
let signature = try key.signature(for: Data(signingInput.utf8), padding: .insecurePKCS1v1_5)
let token = signingInput + "." + signature.rawRepresentation.base64URLEncoded
let configuration = ClientConfiguration(transport: KeyRoute(body: jwksData), emulatorHost: nil)
let caching = sessionCookie
    ? IDTokenVerifier(projectID: project, sessionCookieKeys: SessionCookieKeysClient(configuration: configuration))
    : IDTokenVerifier(projectID: project, keys: GooglePublicKeysClient(configuration: configuration))
let chosen = cached ? caching : caching.withCache(.disabled)
let verifier = withoutTelemetry ? chosen.withoutTelemetry() : chosen

// One task for the whole loop: awaiting each call from the main actor
// would add a hop between threads to every verification.
let accepted = await Task.detached {
    var accepted = 0
    for _ in 0..<count where (try? await verifier.verify(token)) != nil { accepted += 1 }
    return accepted
}.value
print("\(accepted) of \(count) verifications accepted")
