// Complete TOTP sign-ins (password step + TOTP step) per second against the
// emulator over loopback, with N concurrent clients.
//
//   swift run -c release EmulatorLoad [clients=64] [users=600] [--emulator HOST:PORT]
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

let arguments = CommandLine.arguments.dropFirst()
let clients = arguments.first.flatMap { Int($0) } ?? 64
let userCount = arguments.dropFirst().first.flatMap { Int($0) } ?? 600
let external = arguments.firstIndex(of: "--emulator").map { arguments[arguments.index(after: $0)] }
let password = "load-test-password"

let running: RunningEmulator?
let hostAndPort: String
if let external {
    running = nil
    hostAndPort = external
} else {
    let emulator = try IdentityToolkitEmulator(configuration: EmulatorConfiguration(port: 0, projectID: "load"))
    running = try await emulator.start()
    hostAndPort = running?.hostAndPort ?? ""
}
let configuration = ClientConfiguration(transport: AsyncHTTPClientTransport(), emulatorHost: hostAndPort)
let accounts = AccountsClient(apiKey: "k", configuration: configuration)
let admin = AdminClient(accessToken: { "owner" }, configuration: configuration)
let project = running == nil ? "demo-mfa" : "load"
_ = try await admin.updateProjectConfig(project: project, updateMask: "mfa", body: ProjectConfig(mfa: MultiFactorAuthConfig(
    providerConfigs: [MfaProviderConfig(state: .enabled, totpProviderConfig: TotpMfaProviderConfig(adjacentIntervals: 10))])))

func now() -> Int64 { Int64(Date().timeIntervalSince1970) }

print("preparing \(userCount) users with TOTP on \(hostAndPort)…")
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
            let started = try await accounts.startMfaEnrollment(StartMfaEnrollmentRequest(idToken: idToken, totpEnrollmentInfo: .init()))
            guard let info = started.totpSessionInfo, let secret = info.sharedSecretKey, let session = info.sessionInfo else { throw CancellationError() }
            let totp = try TOTP(key: try Base32.decode(secret))
            // Enroll with the oldest step of the window, so all 21 steps after it stay usable.
            let step = try totp.step(at: now()) - 11
            let finalized = try await accounts.finalizeMfaEnrollment(FinalizeMfaEnrollmentRequest(
                idToken: idToken, totpVerificationInfo: .init(sessionInfo: session, verificationCode: totp.code(step: step + 1))))
            let lookup = try await accounts.lookup(GetAccountInfoRequest(idToken: finalized.idToken ?? idToken))
            guard let enrollment = lookup.users?.first?.mfaInfo?.first?.mfaEnrollmentId else { throw CancellationError() }
            return User(email: email, enrollmentID: enrollment, totp: totp)
        }
    }
    var all: [User] = []
    for try await user in group { all.append(user) }
    return all
}
print("prepared in \(ContinuousClock.now - setupStarted)")

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
print("running \(total) sign-ins with \(clients) clients…")
let started = ContinuousClock.now
let latencies: [Duration] = try await withThrowingTaskGroup(of: [Duration].self) { group in
    for client in 0..<clients {
        group.addTask {
            var mine: [Duration] = []
            for offset in offsets {
                for userIndex in stride(from: client, to: users.count, by: clients) {
                    let user = users[userIndex]
                    let begin = ContinuousClock.now
                    let first = try await accounts.signInWithPassword(SignInWithPasswordRequest(email: user.email, password: password))
                    guard let pending = first.mfaPendingCredential else { throw CancellationError() }
                    let code = user.totp.code(step: UInt64(Int64(baseStep) + Int64(offset)))
                    let signedIn = try await accounts.finalizeMfaSignIn(FinalizeMfaSignInRequest(
                        mfaPendingCredential: pending, mfaEnrollmentId: user.enrollmentID, totpVerificationInfo: .init(verificationCode: code)))
                    guard signedIn.idToken != nil else { throw CancellationError() }
                    mine.append(ContinuousClock.now - begin)
                }
            }
            return mine
        }
    }
    var all: [Duration] = []
    for try await part in group { all += part }
    return all
}
let elapsed = ContinuousClock.now - started
let sorted = latencies.sorted()
func percentile(_ p: Double) -> String {
    let value = sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    return String(format: "%.1f ms", Double(value.components.attoseconds) / 1e15 + Double(value.components.seconds) * 1000)
}
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
print(String(format: "%d complete TOTP sign-ins in %.2f s: %.0f sign-ins/s (%d clients)", sorted.count, seconds, Double(sorted.count) / seconds, clients))
print("latency per sign-in (2 requests): p50 \(percentile(0.5)), p90 \(percentile(0.9)), p99 \(percentile(0.99)), max \(percentile(1.0))")
await running?.stop()

enum HTTPRequestBuilder {
    static func get(_ url: String) -> HTTPRequest {
        var request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: nil)
        request.url = URL(string: url)
        return request
    }
}
