import Benchmark
import Foundation
import HTTPTypes
import IdentityToolkit
import IdentityToolkitAsyncHTTPClient
import IdentityToolkitEmulator
import MultiFactorAuth

/// SDK overhead per call: `User.getIDToken(forcingRefresh: true)` (one
/// secure-token request through the generated client, decoding, state
/// update, session save) against the raw transport sending the same request
/// bytes to the same in-process emulator over loopback. Target: ≤ 10 % at p50.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds, maxDuration: .seconds(5))

    Benchmark("token refresh through the SDK", configuration: .init(setup: setUp)) { benchmark in
        let user = Fixture.shared.user!
        for _ in benchmark.scaledIterations {
            blackHole(try await user.getIDToken(forcingRefresh: true))
        }
    }

    Benchmark("the same request through the raw transport", configuration: .init(setup: setUp)) { benchmark in
        let fixture = Fixture.shared
        for _ in benchmark.scaledIterations {
            let (response, body) = try await fixture.transport.send(
                fixture.rawRequest!, body: fixture.rawBody!,
                options: TransportOptions(timeout: .seconds(10), maxResponseBytes: 1 << 20))
            precondition(response.status == .ok)
            blackHole(body)
        }
    }
}

final class Fixture: @unchecked Sendable {
    static let shared = Fixture()
    let transport = AsyncHTTPClientTransport()
    var running: RunningEmulator?
    var user: User?
    var rawRequest: HTTPRequest?
    var rawBody: Data?
}

@Sendable func setUp() async throws {
    let fixture = Fixture.shared
    if fixture.user != nil { return }
    let running = try await serveForTheRun(
        try IdentityToolkitEmulator(configuration: EmulatorConfiguration(port: 0, projectID: "bench")))
    fixture.running = running
    let options = FirebaseOptions(googleAppID: "1:1:ios:1", gcmSenderID: "1")
    options.apiKey = "bench"
    options.httpTransport = fixture.transport
    FirebaseApp.configure(name: "bench", options: options)
    let auth = Auth(app: FirebaseApp.app(name: "bench")!)
    auth.useEmulator(withHost: running.host, port: running.port)
    let user = try await auth.createUser(withEmail: "bench@example.com", password: "bench-password").user
    fixture.user = user
    var request = HTTPRequest(
        method: .post, scheme: "http", authority: running.hostAndPort,
        path: "/securetoken.googleapis.com/v1/token?key=bench")
    request.headerFields[.contentType] = "application/json"
    request.headerFields[.accept] = "application/json"
    fixture.rawRequest = request
    fixture.rawBody = try JSONEncoder().encode(["grantType": "refresh_token", "refreshToken": user.refreshToken ?? ""])
}

/// Serves `emulator` until the benchmark process exits (the suite's fixture
/// outlives any one scope); returns once it listens.
func serveForTheRun(_ emulator: IdentityToolkitEmulator) async throws -> RunningEmulator {
    let (addresses, listening) = AsyncThrowingStream<RunningEmulator, any Error>.makeStream()
    Task {
        do {
            try await emulator.serving { running in
                listening.yield(running)
                // Until the process ends.
                while true { try await Task.sleep(for: .seconds(3600)) }
            }
        } catch {
            listening.finish(throwing: error)
        }
    }
    for try await running in addresses { return running }
    throw CancellationError()
}
