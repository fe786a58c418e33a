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

/// A fresh emulator and named Firebase apps pointed at it: in process
/// (HummingbirdTesting's `.router` framework, no socket), or with
/// `overSocket` served on a loopback port, for tests whose point is the socket.
struct SDKHarness: Sendable {
    let emulator: IdentityToolkitEmulator
    /// Where `Auth.useEmulator(withHost:port:)` points (in process nothing listens there).
    let host: String
    let port: Int
    let transport: any HTTPTransport
    let project = "demo-sdk"

    var hostAndPort: String { "\(host):\(port)" }
    var baseURL: String { "http://\(hostAndPort)" }

    /// Runs `body` with a fresh harness; `wrap` wraps its transport (to count requests, say).
    @discardableResult
    static func with<Value: Sendable>(
        overSocket: Bool = false, wrap: @Sendable (any HTTPTransport) -> any HTTPTransport = { $0 },
        _ body: @Sendable (SDKHarness) async throws -> Value
    ) async throws -> Value {
        let emulator = try IdentityToolkitEmulator(configuration: EmulatorConfiguration(port: 0, projectID: "demo-sdk"))
        guard overSocket else {
            return try await emulator.inProcess { transport in
                let harness = SDKHarness(
                    emulator: emulator, host: IdentityToolkitEmulator.inProcessHost,
                    port: IdentityToolkitEmulator.inProcessPort,
                    transport: wrap(transport))
                try await harness.enableFactors()
                return try await body(harness)
            }
        }
        return try await emulator.serving { running in
            let harness = SDKHarness(
                emulator: emulator, host: running.host, port: running.port,
                transport: wrap(AsyncHTTPClientTransport()))
            try await harness.enableFactors()
            return try await body(harness)
        }
    }

    /// TOTP (one adjacent interval) and SMS on for the project.
    private func enableFactors() async throws {
        let configuration = ClientConfiguration(
            transport: transport, emulatorHost: hostAndPort, requestTimeout: harnessRequestTimeout)
        _ = try await AdminClient(accessToken: { "owner" }, configuration: configuration).updateProjectConfig(
            project: "demo-sdk", updateMask: "mfa",
            body: ProjectConfig(
                mfa: MultiFactorAuthConfig(
                    enabledProviders: [.phoneSms],
                    providerConfigs: [
                        MfaProviderConfig(state: .enabled, totpProviderConfig: .init(adjacentIntervals: 1))
                    ])))
    }

    var clock: EmulatorClock { emulator.clock }

    /// An independent `Auth` for a new app, whose clock is the emulator's.
    func auth(
        name: String = "app-\(UUID().uuidString)", transport: (any HTTPTransport)? = nil,
        store: any AuthSessionStore = ExpiringStateAuthSessionStore(),
        requestTimeout: Duration? = nil
    ) -> Auth {
        let options = FirebaseOptions(googleAppID: "1:1:ios:1", gcmSenderID: "1")
        options.requestTimeout = requestTimeout ?? harnessRequestTimeout
        options.apiKey = "sdk-tests"
        options.httpTransport = transport ?? self.transport
        FirebaseApp.configure(name: name, options: options)
        let clock = self.clock
        let auth = Auth(app: FirebaseApp.app(name: name)!, sessionStore: store, now: { clock.now })
        auth.useEmulator(withHost: host, port: port)
        return auth
    }

    func helper(_ path: String) async throws -> [String: Any] {
        var request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: nil)
        request.url = URL(string: baseURL + path)
        let (_, data) = try await transport.send(
            request, body: nil, options: TransportOptions(timeout: .seconds(120), maxResponseBytes: 16 << 20))
        return (try JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }

    /// A new user with a verified email, signed in on `auth`.
    func verifiedUser(
        on auth: Auth, email: String = "u-\(UUID().uuidString.prefix(8))@example.com",
        password: String = "secret-password"
    ) async throws -> User {
        let user = try await auth.createUser(withEmail: email, password: password).user
        try await user.sendEmailVerification()
        let codes =
            try await helper("/emulator/v1/projects/\(project)/oobCodes")["oobCodes"] as? [[String: String]] ?? []
        try await auth.applyActionCode(try #require(codes.last { $0["email"] == email.lowercased() }?["oobCode"]))
        try await user.reload()
        return user
    }

    /// The code of `secret` at the emulator's time, `offset` steps away.
    func code(_ secret: TOTPSecret, offset: Int64 = 0) throws -> String {
        let totp = try TOTP(key: try Base32.decode(secret.sharedSecretKey()))
        return totp.code(step: UInt64(Int64(try totp.step(at: Int64(clock.now.timeIntervalSince1970))) + offset))
    }

    /// Enrolls TOTP for `user`; returns the secret.
    @discardableResult
    func enrollTOTP(_ user: User) async throws -> TOTPSecret {
        let secret = try await TOTPMultiFactorGenerator.generateSecret(with: try await user.multiFactor.session())
        try await user.multiFactor.enroll(
            with: TOTPMultiFactorGenerator.assertionForEnrollment(with: secret, oneTimePassword: try code(secret)),
            displayName: "app")
        return secret
    }

    /// The resolver of a password sign-in that needs a second factor.
    func resolver(_ auth: Auth, email: String, password: String = "secret-password") async throws -> MultiFactorResolver
    {
        do {
            _ = try await auth.signIn(withEmail: email, password: password)
        } catch let error as AuthErrorCode where error.code == .secondFactorRequired {
            return try #require(error.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as? MultiFactorResolver)
        }
        throw AuthErrorCode(.internalError, message: "no second factor was required")
    }

}

/// Runs `body` with a fresh in-process harness (``SDKHarness/with(overSocket:wrap:_:)``).
func withSDK(_ body: @Sendable (SDKHarness) async throws -> Void) async throws {
    try await SDKHarness.with(body)
}

/// Expects `call` to throw `AuthErrorCode` with `code`.
func expectAuthError<T>(
    _ code: AuthErrorCode.Code, sourceLocation: SourceLocation = #_sourceLocation, _ call: () async throws -> T
) async {
    do {
        _ = try await call()
        Issue.record("expected \(code), but the call succeeded", sourceLocation: sourceLocation)
    } catch let error as AuthErrorCode {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected AuthErrorCode \(code), got \(error)", sourceLocation: sourceLocation)
    }
}
