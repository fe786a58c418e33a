// Complete TOTP sign-ins (password step + TOTP step) per second against the
// emulator over loopback, with N concurrent clients.
//
//   swift run -c release EmulatorLoad [clients=64] [users=600] [--client raw|sdk]
//                                     [--emulator HOST:PORT] [--project ID]
//   swift run -c release EmulatorLoad serve [--port 9099] [--project ID]
//   swift run -c release EmulatorLoad soak [clients=64] [users=600] [--minutes 10]
//
// `soak` runs complete TOTP sign-ins against an in-process emulator for the
// given time, in rounds: every user signs in once per round, then the
// emulator's (frozen) clock moves one step, so each round has fresh codes
// and the emulator's expiry and sweeping run as in days of use. It reports
// errors and resident memory (VmRSS) after a warm-up and at the end.
//
// `--client raw` (the default) runs each client as one keep-alive connection
// on a single event-loop thread, as wrk does, so the figures are the
// emulator's; `--client sdk` runs the generated `AccountsClient` over
// AsyncHTTPClient and so includes the client library's cost. Without
// `--emulator` the emulator serves in this process; `serve` runs one alone,
// to load it from a second process.
//
// The emulator refuses a TOTP step twice per factor, so each user enrolls with
// the step 9 before now (the oldest of a window of 10, less one step of margin
// in case the server's clock crosses a step boundary meanwhile) and then signs
// in at the steps −8…+9 of the start time, oldest first: 18 sign-ins per user,
// with no clock changes.
import AsyncHTTPClient
import Foundation
import HTTPTypes
import IdentityOTP
import IdentityToolkit
import IdentityToolkitAsyncHTTPClient
import IdentityToolkitEmulator
import Logging
import NIOCore
import ServiceLifecycle

struct User: Sendable {
    var email: String
    var enrollmentID: String
    var totp: TOTP
    /// The raw client's requests for this user, as the generated client builds them.
    var passwordRequest: ByteBuffer
    var totpStep: TOTPStepTemplate
}

enum LoadError: Error, CustomStringConvertible {
    case unexpected(String)
    var description: String {
        switch self {
        case .unexpected(let what): what
        }
    }
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

func fail(_ message: String, status: Int32 = 2) -> Never {
    FileHandle.standardError.write(Data("EmulatorLoad: \(message)\n".utf8))
    exit(status)
}

func number(_ text: String, for name: String, minimum: Int = 1) -> Int {
    guard let value = Int(text), value >= minimum else { fail("\(name) takes a number from \(minimum), not \(text)") }
    return value
}

func unixNow() -> Int64 { Int64(Date().timeIntervalSince1970) }

/// CPU seconds (user + system) this process has used so far.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(
        usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

/// Sign-up, verified email and a TOTP factor for each of `count` users.
func prepareUsers(
    count: Int, password: String, accounts: AccountsClient, configuration: ClientConfiguration,
    hostAndPort: String, project: String, now: @escaping @Sendable () -> Int64 = unixNow
) async throws -> [User] {
    /// The newest out-of-band code the emulator lists for `email`.
    @Sendable func oobCode(for email: String) async throws -> String {
        var request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: nil)
        request.url = URL(string: "http://\(hostAndPort)/emulator/v1/projects/\(project)/oobCodes")
        let (_, data) = try await configuration.transport.send(
            request, body: nil, options: TransportOptions(timeout: .seconds(10), maxResponseBytes: 64 << 20))
        struct Listing: Decodable {
            struct Entry: Decodable {
                var email: String
                var oobCode: String
            }
            var oobCodes: [Entry]
        }
        guard
            let code = try JSONDecoder().decode(Listing.self, from: data).oobCodes.last(where: { $0.email == email })?
                .oobCode
        else {
            throw LoadError.unexpected("no oob code listed for \(email)")
        }
        return code
    }

    return try await withThrowingTaskGroup(of: User.self) { group in
        // Lower case: the emulator stores an address as production does, lowered.
        let runID = UUID().uuidString.prefix(8).lowercased()
        for index in 0..<count {
            group.addTask {
                let email = "load-\(runID)-\(index)@example.com"
                let created = try await accounts.signUp(
                    SignUpRequest(email: email, password: password, returnSecureToken: true))
                guard let idToken = created.idToken else { throw LoadError.unexpected("sign-up returned no ID token") }
                // MFA needs a verified email: apply the code the emulator lists.
                _ = try await accounts.sendOobCode(GetOobCodeRequest(requestType: .verifyEmail, idToken: idToken))
                _ = try await accounts.update(SetAccountInfoRequest(oobCode: try await oobCode(for: email)))
                // Enroll with an old step of the window (see the top), with a secret
                // whose code for that step no later step shares (the emulator would
                // take the later step; see `sharesItsCode`).
                while true {
                    let started = try await accounts.startMfaEnrollment(
                        StartMfaEnrollmentRequest(idToken: idToken, totpEnrollmentInfo: .init()))
                    guard let info = started.totpSessionInfo, let secret = info.sharedSecretKey,
                        let session = info.sessionInfo
                    else {
                        throw LoadError.unexpected("startMfaEnrollment returned no TOTP session")
                    }
                    let totp = try TOTP(key: try Base32.decode(secret))
                    let step = try totp.step(at: now()) - 9
                    let code = totp.code(step: step)
                    guard !(step + 1...step + 22).contains(where: { totp.code(step: $0) == code }) else { continue }
                    let finalized = try await accounts.finalizeMfaEnrollment(
                        FinalizeMfaEnrollmentRequest(
                            idToken: idToken, displayName: "load phone",
                            totpVerificationInfo: .init(sessionInfo: session, verificationCode: code)))
                    let lookup = try await accounts.lookup(GetAccountInfoRequest(idToken: finalized.idToken ?? idToken))
                    guard let enrollmentID = lookup.users?.first?.mfaInfo?.first?.mfaEnrollmentId else {
                        throw LoadError.unexpected("the account lists no factor after enrollment")
                    }
                    let passwordRequest = try await CapturingTransport.capture(emulatorHost: hostAndPort) { accounts in
                        _ = try await accounts.signInWithPassword(
                            SignInWithPasswordRequest(email: email, password: password))
                    }
                    return User(
                        email: email, enrollmentID: enrollmentID, totp: totp,
                        passwordRequest: passwordRequest.wireBytes,
                        totpStep: try await TOTPStepTemplate(emulatorHost: hostAndPort, enrollmentID: enrollmentID))
                }
            }
        }
        var all: [User] = []
        for try await user in group { all.append(user) }
        return all
    }
}

/// Whether `user`'s code for `step` is also the code of another step the
/// server could match it to. The emulator then takes the latest matching step
/// (the replay-safe choice), which would burn this user's remaining steps; at
/// about one job in 50,000 such steps are left out rather than failing the run.
func sharesItsCode(_ user: User, step: UInt64, around baseStep: UInt64) -> Bool {
    let code = user.totp.code(step: step)
    return (baseStep - 12...baseStep + 12).contains { $0 != step && user.totp.code(step: $0) == code }
}

/// Latencies of sign-ins through the generated `AccountsClient`, one task per client.
func runSDKClients(accounts: AccountsClient, password: String, jobsPerClient: [[SignInJob]]) async throws -> [Duration]
{
    try await withThrowingTaskGroup(of: [Duration].self) { group in
        for jobs in jobsPerClient {
            group.addTask {
                var mine: [Duration] = []
                for job in jobs {
                    let begin = ContinuousClock.now
                    let first = try await accounts.signInWithPassword(
                        SignInWithPasswordRequest(email: job.email, password: password))
                    guard let pending = first.mfaPendingCredential else {
                        throw LoadError.unexpected("no mfaPendingCredential")
                    }
                    let signedIn = try await accounts.finalizeMfaSignIn(
                        FinalizeMfaSignInRequest(
                            mfaPendingCredential: pending, mfaEnrollmentId: job.enrollmentID,
                            totpVerificationInfo: .init(verificationCode: job.totp.code(step: job.step))))
                    guard signedIn.idToken != nil else { throw LoadError.unexpected("no idToken after the TOTP step") }
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

func runLoad(arguments: [String]) async throws {
    let project = option("--project", in: arguments) ?? "demo-mfa"
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

    guard let hostAndPort = option("--emulator", in: arguments) else {
        // The emulator in this process, serving while the load runs.
        let emulator = try IdentityToolkitEmulator(configuration: EmulatorConfiguration(port: 0, projectID: project))
        try await emulator.serving { running in
            try await runLoad(arguments: arguments + ["--emulator", running.hostAndPort, inProcessFlag])
        }
        return
    }
    let inProcess = arguments.contains(inProcessFlag)
    let separator = hostAndPort.lastIndex(of: ":") ?? hostAndPort.endIndex
    guard separator != hostAndPort.endIndex, let port = Int(hostAndPort[hostAndPort.index(after: separator)...]) else {
        fail("--emulator takes HOST:PORT, not \(hostAndPort)")
    }

    // One pooled connection per client: HTTPClient.shared keeps at most 8 per
    // host, which would queue 64 clients inside the client library.
    var httpConfiguration = HTTPClient.Configuration()
    httpConfiguration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(8, clients)
    let httpClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: httpConfiguration)
    defer { Task { try? await httpClient.shutdown() } }
    let configuration = ClientConfiguration(
        transport: AsyncHTTPClientTransport(client: httpClient), emulatorHost: hostAndPort)
    let accounts = AccountsClient(apiKey: "k", configuration: configuration)
    let admin = AdminClient(accessToken: { "owner" }, configuration: configuration)
    _ = try await admin.updateProjectConfig(
        project: project, updateMask: "mfa",
        body: ProjectConfig(
            mfa: MultiFactorAuthConfig(
                providerConfigs: [
                    MfaProviderConfig(state: .enabled, totpProviderConfig: TotpMfaProviderConfig(adjacentIntervals: 10))
                ])))

    say("preparing \(userCount) users with TOTP on \(hostAndPort)…")
    let setupStarted = ContinuousClock.now
    let users = try await prepareUsers(
        count: userCount, password: password, accounts: accounts, configuration: configuration,
        hostAndPort: hostAndPort, project: project)
    say("prepared in \(ContinuousClock.now - setupStarted)")

    // Each client's sign-ins: its users (every `clients`-th), at each step, oldest step first.
    let baseStep = try users[0].totp.step(at: unixNow())
    let offsets = Array(-8...9)
    let jobsPerClient: [[SignInJob]] = (0..<clients).map { client in
        offsets.flatMap { offset in
            stride(from: client, to: users.count, by: clients).compactMap { userIndex in
                let user = users[userIndex]
                let step = UInt64(Int64(baseStep) + Int64(offset))
                guard !sharesItsCode(user, step: step, around: baseStep) else { return nil }
                return SignInJob(
                    email: user.email, enrollmentID: user.enrollmentID, totp: user.totp, step: step,
                    passwordRequest: user.passwordRequest, totpStep: user.totpStep)
            }
        }
    }
    let jobCount = jobsPerClient.reduce(0) { $0 + $1.count }
    let skipped = users.count * offsets.count - jobCount
    if skipped > 0 { say("left out \(skipped) sign-ins whose code another step in the window shares") }
    say(
        "running \(jobCount) sign-ins with \(clients) \(useRawClient ? "raw keep-alive" : "SDK (AccountsClient over AsyncHTTPClient)") clients…"
    )

    let cpuAtStart = processCPUSeconds()
    let started = ContinuousClock.now
    let latencies: [Duration] =
        if useRawClient {
            try await runRawClients(host: String(hostAndPort[..<separator]), port: port, jobsPerClient: jobsPerClient)
                .map { .nanoseconds($0) }
        } else {
            try await runSDKClients(accounts: accounts, password: password, jobsPerClient: jobsPerClient)
        }
    let seconds = milliseconds(ContinuousClock.now - started) / 1000
    let cpuUsed = processCPUSeconds() - cpuAtStart

    let sorted = latencies.sorted()
    func percentile(_ p: Double) -> String {
        String(format: "%.1f ms", milliseconds(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]))
    }
    say(
        String(
            format: "%d complete TOTP sign-ins in %.2f s: %.0f sign-ins/s (%d clients)", sorted.count, seconds,
            Double(sorted.count) / seconds, clients))
    // Less noisy than the rates on a shared machine: what one sign-in costs in CPU.
    say(
        String(
            format: "CPU per sign-in: %.0f µs (%@)", cpuUsed / Double(max(1, sorted.count)) * 1e6,
            inProcess ? "this process, emulator and client" : "this process, the client only"))
    say(
        "latency per sign-in (2 requests): p50 \(percentile(0.5)), p90 \(percentile(0.9)), p99 \(percentile(0.99)), max \(percentile(1.0))"
    )
}

/// Marks a load whose emulator ``runLoad(arguments:)`` serves in this process.
let inProcessFlag = "--emulator-in-this-process"

/// This process's resident memory in KiB (Linux: VmRSS of /proc/self/status).
func residentKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
    else { return 0 }
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
}

func runSoak(arguments: [String]) async throws {
    let positional = arguments.prefix { !$0.hasPrefix("--") }
    let clients = positional.first.map { number($0, for: "clients") } ?? 64
    let userCount = positional.dropFirst().first.map { number($0, for: "users") } ?? 600
    let minutes = option("--minutes", in: arguments).map { number($0, for: "--minutes") } ?? 10
    let project = "demo-mfa"
    let password = "soak-test-password"
    let emulator = try IdentityToolkitEmulator(configuration: EmulatorConfiguration(port: 0, projectID: project))
    // Frozen at now: each round then moves it exactly one step.
    emulator.clock.set(Date())
    try await emulator.serving { running in
        let hostAndPort = running.hostAndPort
        let configuration = ClientConfiguration(transport: AsyncHTTPClientTransport(), emulatorHost: hostAndPort)
        let accounts = AccountsClient(apiKey: "k", configuration: configuration)
        _ = try await AdminClient(accessToken: { "owner" }, configuration: configuration).updateProjectConfig(
            project: project, updateMask: "mfa",
            body: ProjectConfig(
                mfa: MultiFactorAuthConfig(
                    providerConfigs: [
                        MfaProviderConfig(
                            state: .enabled, totpProviderConfig: TotpMfaProviderConfig(adjacentIntervals: 10))
                    ])))
        say("preparing \(userCount) users with TOTP on \(hostAndPort)…")
        let users = try await prepareUsers(
            count: userCount, password: password, accounts: accounts, configuration: configuration,
            hostAndPort: hostAndPort, project: project, now: { Int64(emulator.clock.now.timeIntervalSince1970) })
        let warmUp = Duration.seconds(max(30, minutes * 6))
        let deadline = ContinuousClock.now + .seconds(minutes * 60)
        let started = ContinuousClock.now
        let host = String(hostAndPort[..<(hostAndPort.lastIndex(of: ":") ?? hostAndPort.endIndex)])
        say("soaking for \(minutes) min with \(clients) raw keep-alive clients (warm-up \(warmUp))…")
        var signIns = 0
        var errors = 0
        var rounds = 0
        var afterWarmUp: Int?
        var lastReport = ContinuousClock.now
        while ContinuousClock.now < deadline {
            emulator.clock.advance(by: 30)
            let step = try users[0].totp.step(at: Int64(emulator.clock.now.timeIntervalSince1970))
            let jobsPerClient: [[SignInJob]] = (0..<clients).map { client in
                stride(from: client, to: users.count, by: clients).compactMap { index in
                    let user = users[index]
                    guard !sharesItsCode(user, step: step, around: step) else { return nil }
                    return SignInJob(
                        email: user.email, enrollmentID: user.enrollmentID, totp: user.totp, step: step,
                        passwordRequest: user.passwordRequest, totpStep: user.totpStep)
                }
            }
            do {
                signIns += try await runRawClients(host: host, port: running.port, jobsPerClient: jobsPerClient).count
            } catch {
                errors += 1
                say("round \(rounds): \(error)")
            }
            rounds += 1
            if afterWarmUp == nil, ContinuousClock.now - started >= warmUp {
                afterWarmUp = residentKiB()
                say("after warm-up: \(signIns) sign-ins, resident \(afterWarmUp ?? 0) KiB")
            }
            if ContinuousClock.now - lastReport >= .seconds(60) {
                lastReport = ContinuousClock.now
                say(
                    "\(Int(milliseconds(ContinuousClock.now - started) / 1000)) s: \(signIns) sign-ins, \(errors) errors, resident \(residentKiB()) KiB, "
                        + "emulator state \(await emulator.stateCounts.sorted { $0.key < $1.key })")
            }
        }
        let end = residentKiB()
        let base = afterWarmUp ?? end
        let seconds = milliseconds(ContinuousClock.now - started) / 1000
        say(
            String(
                format: "soak: %d complete TOTP sign-ins in %.0f s (%.0f/s), %d rounds, %d errors", signIns, seconds,
                Double(signIns) / seconds, rounds, errors))
        say(
            String(
                format: "resident memory: %d KiB after warm-up, %d KiB at the end: %+.1f %%", base, end,
                Double(end - base) / Double(max(1, base)) * 100))
        if errors > 0 { exit(1) }
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    if arguments.first == "soak" {
        try await runSoak(arguments: Array(arguments.dropFirst()))
    } else if arguments.first == "serve" {
        let port = option("--port", in: arguments).map { number($0, for: "--port", minimum: 0) } ?? 9099
        let emulator = try IdentityToolkitEmulator(
            configuration: EmulatorConfiguration(
                port: port, projectID: option("--project", in: arguments) ?? "demo-mfa"))
        let service = emulator.service { host, port in say("listening on http://\(host):\(port)") }
        try await ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [service], gracefulShutdownSignals: [.sigterm, .sigint], logger: Logger(label: "EmulatorLoad")
            )
        ).run()
    } else {
        try await runLoad(arguments: arguments)
    }
} catch {
    fail("\(error)", status: 1)
}
