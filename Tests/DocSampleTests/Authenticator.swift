import EmulatorTestSupport
import Foundation
import HTTPTypes
import IdentityOTP
import IdentityToolkit
import IdentityToolkitAsyncHTTPClient
import IdentityToolkitEmulator
import IdentityToolkitTestSupport
import MultiFactorAuth
import Testing

/// Plays the user's authenticator app: `openInOTPApp(withQRCodeURL:)` hands
/// it the otpauth URI (as the samples do before asking for a code), and it
/// shows the code of the emulator's current time step, never one step twice.
final class FakeAuthenticatorApp: OTPAppURLOpener, @unchecked Sendable {
    static let shared = FakeAuthenticatorApp()
    private let lock = NSLock()
    private var uri: OTPAuthURI?
    private var lastStep: UInt64 = 0
    private var typo = false
    var clock: EmulatorClock?

    /// The user mistypes the next code (the samples' "wrong OTP" branches).
    func mistypeNextCode() { lock.withLock { typo = true } }

    func open(_ url: String) {
        lock.withLock {
            uri = try? OTPAuthURI(parsing: url)
            lastStep = 0
        }
    }

    var openedURIs: OTPAuthURI? { lock.withLock { uri } }

    /// True until the mistyped code has been read.
    var typoPending: Bool { lock.withLock { typo } }

    /// The code the app shows now; a later call shows the next step's code.
    func currentCode() -> String {
        lock.withLock {
            guard let uri, let totp = try? uri.totp() else { return "000000" }
            let now = Int64((clock?.now ?? Date()).timeIntervalSince1970)
            let step = max((try? totp.step(at: now)) ?? 0, lastStep + 1)
            let code = totp.code(step: step)
            if typo {
                // A mistyped code uses up no step: the next code is still this one.
                typo = false
                return String(code.reversed()) == code
                    ? (code == "000000" ? "111111" : "000000") : String(code.reversed())
            }
            lastStep = step
            return code
        }
    }
}

// The placeholders the doc samples leave to the reader: what the user types.
var oneTimePassword: String { FakeAuthenticatorApp.shared.currentCode() }
var onetimePassword: String { FakeAuthenticatorApp.shared.currentCode() }

/// The emulator, the default Firebase app pointed at it, and a signed-in
/// user with a verified email, as the samples assume.
struct DocSampleEnvironment: Sendable {
    /// The `HOST:PORT` the apps name; requests go to the emulator in process.
    let hostAndPort: String
    let email: String
    let password = "correct horse battery"

    /// Runs `body` with a fresh emulator in process (HummingbirdTesting's
    /// `.router` framework: the samples' requests reach its routes without
    /// a socket) and the default app pointed at it; signs out afterwards.
    static func with(_ body: @Sendable (DocSampleEnvironment) async throws -> Void) async throws {
        let emulator = try IdentityToolkitEmulator(
            configuration: EmulatorConfiguration(port: 0, projectID: "demo-docs"))
        try await emulator.inProcess { transport in
            let environment = try await start(emulator, transport: transport)
            do {
                try await body(environment)
            } catch {
                try? Auth.auth().signOut()
                throw error
            }
            try? Auth.auth().signOut()
        }
    }

    private static func start(_ emulator: IdentityToolkitEmulator, transport: TestClientTransport) async throws
        -> DocSampleEnvironment
    {
        let hostAndPort = IdentityToolkitEmulator.inProcessHostAndPort
        do {
            FakeAuthenticatorApp.shared.clock = emulator.clock
            TOTPSecret.urlOpener = FakeAuthenticatorApp.shared
            let options = FirebaseOptions(googleAppID: "1:1:ios:1", gcmSenderID: "1")
            options.apiKey = "doc-samples"
            options.projectID = "demo-docs"
            options.httpTransport = transport
            options.requestTimeout = harnessRequestTimeout
            FirebaseApp.app()?.delete() // each test's emulator: the default app is configured once
            FirebaseApp.configure(options: options)
            Auth.auth().useEmulator(
                withHost: IdentityToolkitEmulator.inProcessHost, port: IdentityToolkitEmulator.inProcessPort)
            let configuration = ClientConfiguration(
                transport: options.httpTransport, emulatorHost: hostAndPort, requestTimeout: harnessRequestTimeout)
            _ = try await AdminClient(accessToken: { "owner" }, configuration: configuration).updateProjectConfig(
                project: "demo-docs", updateMask: "mfa",
                body: ProjectConfig(
                    mfa: MultiFactorAuthConfig(providerConfigs: [
                        MfaProviderConfig(state: .enabled, totpProviderConfig: .init(adjacentIntervals: 5))
                    ])))
            let email = "docs-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            let environment = DocSampleEnvironment(hostAndPort: hostAndPort, email: email)
            let user = try await Auth.auth().createUser(withEmail: email, password: environment.password).user
            try await user.sendEmailVerification()
            var request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: nil)
            request.url = URL(string: "http://\(hostAndPort)/emulator/v1/projects/demo-docs/oobCodes")
            let (_, data) = try await options.httpTransport.send(
                request, body: nil, options: TransportOptions(timeout: .seconds(30), maxResponseBytes: 1 << 20))
            let listing = try JSONSerialization.jsonObject(with: data) as? [String: [[String: String]]]
            try await Auth.auth().applyActionCode(listing?["oobCodes"]?.last?["oobCode"] ?? "")
            try await user.reload()
            return environment
        }
    }

    /// Enrolls a phone factor for the current user through the REST client
    /// (the samples enroll TOTP only): a second, newer factor.
    func enrollPhoneFactor() async throws {
        let user = try #require(Auth.auth().currentUser)
        let configuration = ClientConfiguration(
            transport: Auth.auth().app?.options.httpTransport ?? URLSessionTransport.shared,
            emulatorHost: hostAndPort)
        let accounts = AccountsClient(apiKey: "doc-samples", configuration: configuration)
        _ = try await AdminClient(accessToken: { "owner" }, configuration: configuration).updateProjectConfig(
            project: "demo-docs", updateMask: "mfa.enabledProviders",
            body: ProjectConfig(mfa: MultiFactorAuthConfig(enabledProviders: [.phoneSms])))
        let idToken = try await user.getIDToken()
        let started = try await accounts.startMfaEnrollment(
            StartMfaEnrollmentRequest(idToken: idToken, phoneEnrollmentInfo: .init(phoneNumber: "+15555550199")))
        let sessionInfo = try #require(started.phoneSessionInfo?.sessionInfo)
        let codes = try await EmulatorHelpersClient(configuration: configuration).listVerificationCodes(
            project: "demo-docs"
        ).verificationCodes
        _ = try await accounts.finalizeMfaEnrollment(
            FinalizeMfaEnrollmentRequest(
                idToken: idToken, displayName: "Phone",
                phoneVerificationInfo: .init(
                    sessionInfo: sessionInfo, code: codes.first { $0.sessionInfo == sessionInfo }?.code)))
        try await user.reload()
    }

    /// Lets completions already under way land, for branches whose only
    /// effect is that nothing changes.
    func settle() async throws {
        try await Task.sleep(for: .milliseconds(300))
    }

    /// Waits (bounded) until `condition` holds: completion samples report nothing.
    func eventually(_ condition: () -> Bool) async throws -> Bool {
        for _ in 0..<200 {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }
}
