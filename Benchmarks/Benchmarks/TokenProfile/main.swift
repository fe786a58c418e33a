import BenchmarkTokens
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

let arguments = CommandLine.arguments.dropFirst()
let sessionCookie = arguments.contains("--session-cookie")
let cached = arguments.contains("--cached")
let withoutTelemetry = arguments.contains("--no-telemetry")
guard let count = arguments.lazy.compactMap({ Int($0) }).first, count > 0 else {
    FileHandle.standardError.write(Data("usage: TokenProfile COUNT [--session-cookie]\n".utf8))
    exit(64)
}

let project = BenchmarkTokens.project
let tokens = try BenchmarkTokens()
let jwksData = tokens.keySet
let token = sessionCookie ? tokens.sessionCookie : tokens.idToken
let configuration = ClientConfiguration(transport: KeyRoute(body: jwksData), emulatorHost: nil)
let caching =
    sessionCookie
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
