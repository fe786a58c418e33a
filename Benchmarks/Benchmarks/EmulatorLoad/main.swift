// Complete TOTP sign-ins (password step + TOTP step) per second against the
// emulator over loopback, with N concurrent clients.
//
//   swift run -c release EmulatorLoad [clients=64] [users=600] [--client raw|sdk]
//                                     [--emulator HOST:PORT] [--project ID]
//   swift run -c release EmulatorLoad serve [--port 9099] [--project ID]
//
// `--client raw` (the default) runs each client as one keep-alive connection
// on a single event-loop thread, as wrk does, so the figures are the
// emulator's; `--client sdk` runs the generated `AccountsClient` over
// AsyncHTTPClient and so includes the client library's cost. Without
// `--emulator` the emulator serves in this process; `serve` runs one alone,
// to load it from a second process.
//
// The emulator refuses a TOTP step twice per factor, so each user enrolls with
// the oldest step of a window of 10 and then signs in at the steps −9…+9 of
// the start time, oldest first: 19 sign-ins per user, with no clock changes.
import Foundation
import HTTPTypes
import IdentityToolkit
import IdentityToolkitAsyncHTTPClient
import IdentityToolkitEmulator
import OTP

struct User: Sendable {
    var email: String
    var enrollmentID: String
    var totp: TOTP
}

/// The value after `flag`, if the flag is present.
func option(_ flag: String, in arguments: [String]) -> String? {
    arguments.firstIndex(of: flag).flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
}

/// Writes a line to stdout at once, also when stdout is a file or a pipe
/// (so that progress can be followed, and profilers started on cue).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("EmulatorLoad: \(message)\n".utf8))
    exit(2)
}

func number(_ text: String, for name: String) -> Int {
    guard let value = Int(text), value >= 0 else { fail("\(name) takes a number, not \(text)") }
    return value
}

let arguments = Array(CommandLine.arguments.dropFirst())
let project = option("--project", in: arguments) ?? "demo-mfa"

if arguments.first == "serve" {
    let port = option("--port", in: arguments).map { number($0, for: "--port") } ?? 9099
    let emulator = try IdentityToolkitEmulator(configuration: EmulatorConfiguration(port: port, projectID: project))
    try await emulator.runUntilSignalled { host, port in say("listening on http://\(host):\(port)") }
    exit(0)
}

let positional = arguments.prefix { !$0.hasPrefix("--") }
let clients = positional.first.map { number($0, for: "clients") } ?? 64
let userCount = positional.dropFirst().first.map { number($0, for: "users") } ?? 600
let useRawClient: Bool
switch option("--client", in: arguments) ?? "raw" {
case "raw": useRawClient = true
case "sdk": useRawClient = false
case let other: fail("--client is raw or sdk, not \(other)")
}
let password = "load-test-password"

let running: RunningEmulator?
let hostAndPort: String
if let external = option("--emulator", in: arguments) {
    running = nil
    hostAndPort = external
} else {
    let emulator = try IdentityToolkitEmulator(configuration: EmulatorConfiguration(port: 0, projectID: project))
    running = try await emulator.start()
    hostAndPort = running?.hostAndPort ?? ""
}
let configuration = ClientConfiguration(transport: AsyncHTTPClientTransport(), emulatorHost: hostAndPort)
let accounts = AccountsClient(apiKey: "k", configuration: configuration)
let admin = AdminClient(accessToken: { "owner" }, configuration: configuration)
_ = try await admin.updateProjectConfig(project: project, updateMask: "mfa", body: ProjectConfig(mfa: MultiFactorAuthConfig(
    providerConfigs: [MfaProviderConfig(state: .enabled, totpProviderConfig: TotpMfaProviderConfig(adjacentIntervals: 10))])))

func now() -> Int64 { Int64(Date().timeIntervalSince1970) }

say("preparing \(userCount) users with TOTP on \(hostAndPort)…")
let setupStarted = ContinuousClock.now
let users: [User] = try await withThrowingTaskGroup(of: User.self) { group in
    let runID = UUID().uuidString.prefix(8)
    for index in 0..<userCount {
        group.addTask {
            let email = "load-\(runID)-\(index)@example.com"
            let created = try await accounts.signUp(SignUpRequest(email: email, password: password, returnSecureToken: true))
            guard let idToken = created.idToken else { throw CancellationError() }
            // MFA needs a verified email: apply the code the emulator lists.
            _ = try await accounts.sendOobCode(GetOobCodeRequest(requestType: .verifyEmail, idToken: idToken))
            let listing = try await oobCodes(for: email)
            _ = try await accounts.update(SetAccountInfoRequest(oobCode: listing))
            // Enroll with the oldest step of the window, so all 20 steps after it stay usable,
            // with a secret whose code for that step no later step shares (else the
            // emulator takes the later step; see `sharesItsCode`).
            var enrollment: (totp: TOTP, session: String, step: UInt64)?
            while enrollment == nil {
                let started = try await accounts.startMfaEnrollment(StartMfaEnrollmentRequest(idToken: idToken, totpEnrollmentInfo: .init()))
                guard let info = started.totpSessionInfo, let secret = info.sharedSecretKey, let session = info.sessionInfo else { throw CancellationError() }
                let totp = try TOTP(key: try Base32.decode(secret))
                let step = try totp.step(at: now()) - 10
                if !(step + 1...step + 22).contains(where: { totp.code(step: $0) == totp.code(step: step) }) {
                    enrollment = (totp, session, step)
                }
            }
            guard let (totp, session, step) = enrollment else { throw CancellationError() }
            let finalized = try await accounts.finalizeMfaEnrollment(FinalizeMfaEnrollmentRequest(
                idToken: idToken, totpVerificationInfo: .init(sessionInfo: session, verificationCode: totp.code(step: step))))
            let lookup = try await accounts.lookup(GetAccountInfoRequest(idToken: finalized.idToken ?? idToken))
            guard let enrollmentID = lookup.users?.first?.mfaInfo?.first?.mfaEnrollmentId else { throw CancellationError() }
            return User(email: email, enrollmentID: enrollmentID, totp: totp)
        }
    }
    var all: [User] = []
    for try await user in group { all.append(user) }
    return all
}
say("prepared in \(ContinuousClock.now - setupStarted)")

func oobCodes(for email: String) async throws -> String {
    let request = HTTPRequestBuilder.get("http://\(hostAndPort)/emulator/v1/projects/\(project)/oobCodes")
    let (_, data) = try await configuration.transport.send(request, body: nil, options: TransportOptions(timeout: .seconds(10), maxResponseBytes: 64 << 20))
    struct Listing: Decodable { struct Entry: Decodable { var email: String; var oobCode: String }; var oobCodes: [Entry] }
    let listing = try JSONDecoder().decode(Listing.self, from: data)
    guard let code = listing.oobCodes.last(where: { $0.email == email })?.oobCode else { throw CancellationError() }
    return code
}

/// The steps −9…+9 around the start step, oldest first.
let baseStep = try users[0].totp.step(at: now())
let offsets = Array(-9...9)
let total = users.count * offsets.count
/// Whether `user`'s code for `step` is also the code of another step the
/// server could match it to. The emulator then takes the latest matching step
/// (the replay-safe choice), which would burn this user's remaining steps; at
/// about one job in 50,000 such steps are left out rather than failing the run.
func sharesItsCode(_ user: User, step: UInt64) -> Bool {
    let code = user.totp.code(step: step)
    return (baseStep - 12...baseStep + 12).contains { $0 != step && user.totp.code(step: $0) == code }
}

/// Each client's sign-ins: its users (every `clients`-th), at each step, oldest step first.
let jobsPerClient: [[SignInJob]] = (0..<clients).map { client in
    offsets.flatMap { offset in
        stride(from: client, to: users.count, by: clients).compactMap { userIndex in
            let user = users[userIndex]
            let step = UInt64(Int64(baseStep) + Int64(offset))
            guard !sharesItsCode(user, step: step) else { return nil }
            return SignInJob(email: user.email, enrollmentID: user.enrollmentID, totp: user.totp, step: step)
        }
    }
}
let skipped = total - jobsPerClient.reduce(0) { $0 + $1.count }
if skipped > 0 { say("left out \(skipped) sign-ins whose code another step in the window shares") }
say("running \(total - skipped) sign-ins with \(clients) \(useRawClient ? "raw keep-alive" : "SDK (AccountsClient over AsyncHTTPClient)") clients…")
/// CPU seconds (user + system) this process has used so far.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}
let cpuAtStart = processCPUSeconds()
let started = ContinuousClock.now
let latencies: [Duration]
if useRawClient {
    let separator = hostAndPort.lastIndex(of: ":") ?? hostAndPort.endIndex
    guard let port = Int(hostAndPort[hostAndPort.index(after: separator)...]) else { fail("--emulator takes HOST:PORT") }
    latencies = try await runRawClients(host: String(hostAndPort[..<separator]), port: port, password: password, jobsPerClient: jobsPerClient)
        .map { Duration.nanoseconds($0) }
} else {
    latencies = try await withThrowingTaskGroup(of: [Duration].self) { group in
        for jobs in jobsPerClient {
            group.addTask {
                var mine: [Duration] = []
                for job in jobs {
                    let begin = ContinuousClock.now
                    let first = try await accounts.signInWithPassword(SignInWithPasswordRequest(email: job.email, password: password))
                    guard let pending = first.mfaPendingCredential else { throw CancellationError() }
                    let signedIn = try await accounts.finalizeMfaSignIn(FinalizeMfaSignInRequest(
                        mfaPendingCredential: pending, mfaEnrollmentId: job.enrollmentID,
                        totpVerificationInfo: .init(verificationCode: job.totp.code(step: job.step))))
                    guard signedIn.idToken != nil else { throw CancellationError() }
                    mine.append(ContinuousClock.now - begin)
                }
                return mine
            }
        }
        var all: [Duration] = []
        for try await part in group { all += part }
        return all
    }
}
let elapsed = ContinuousClock.now - started
let cpuUsed = processCPUSeconds() - cpuAtStart
let sorted = latencies.sorted()
func percentile(_ p: Double) -> String {
    let value = sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    return String(format: "%.1f ms", Double(value.components.attoseconds) / 1e15 + Double(value.components.seconds) * 1000)
}
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
say(String(format: "%d complete TOTP sign-ins in %.2f s: %.0f sign-ins/s (%d clients)", sorted.count, seconds, Double(sorted.count) / seconds, clients))
// Less noisy than the rates on a shared machine: what one sign-in costs in CPU.
say(String(format: "CPU per sign-in: %.0f µs (%@)", cpuUsed / Double(max(1, sorted.count)) * 1e6,
           running == nil ? "this process, the client only" : "this process, emulator and client"))
say("latency per sign-in (2 requests): p50 \(percentile(0.5)), p90 \(percentile(0.9)), p99 \(percentile(0.99)), max \(percentile(1.0))")
await running?.stop()

enum HTTPRequestBuilder {
    static func get(_ url: String) -> HTTPRequest {
        var request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: nil)
        request.url = URL(string: url)
        return request
    }
}
