import EmulatorTestSupport
import Foundation
import HTTPTypes
import IdentityOTP
import IdentityToolkit
import IdentityToolkitAsyncHTTPClient
import IdentityToolkitEmulator
import IdentityToolkitTestSupport
import Testing

/// A fresh emulator with generated clients pointed at it, for one test.
/// The clients hand their requests to the emulator's application in
/// process, through HummingbirdTesting's `.router` framework (no socket:
/// the middleware, the route, the rule and the error rendering run as
/// behind one); `overSocket` serves it on an ephemeral loopback port as a
/// service of a `ServiceGroup` instead, for tests whose point is the socket.
struct Harness: Sendable {
    let emulator: IdentityToolkitEmulator
    /// The port served on (nil in process).
    let port: Int?
    let accounts: AccountsClient
    let tokens: SecureTokenClient
    let admin: AdminClient
    let transport: any HTTPTransport
    static let project = "demo-mfa"

    init(emulator: IdentityToolkitEmulator, port: Int?, transport: any HTTPTransport) {
        self.emulator = emulator
        self.port = port
        self.transport = transport
        let configuration = ClientConfiguration(
            transport: transport,
            emulatorHost: port.map { "127.0.0.1:\($0)" } ?? IdentityToolkitEmulator.inProcessHostAndPort,
            requestTimeout: harnessRequestTimeout)
        accounts = AccountsClient(apiKey: "any-key", configuration: configuration)
        tokens = SecureTokenClient(apiKey: "any-key", configuration: configuration)
        admin = AdminClient(accessToken: { "owner" }, configuration: configuration)
    }

    /// `HOST:PORT` the clients name (in process, the default port: no request leaves the process).
    var hostAndPort: String { port.map { "127.0.0.1:\($0)" } ?? IdentityToolkitEmulator.inProcessHostAndPort }

    /// `http://HOST:PORT`, where the emulator's action links point.
    var baseURL: String { "http://\(hostAndPort)" }

    var clock: EmulatorClock { emulator.clock }

    // MARK: Raw HTTP (helpers and malformed requests)

    struct RawResponse {
        var status: Int
        var body: Data
        var headers: HTTPFields = [:]
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
        var errorMessage: String? { (json["error"] as? [String: Any])?["message"] as? String }
    }

    /// `Authorization: Bearer owner`, which admin routes and the helpers that change state need.
    static let owner: HTTPFields = [.authorization: "Bearer owner"]

    func raw(_ method: HTTPRequest.Method, _ path: String, body: Data? = nil, headers: HTTPFields = [:]) async throws
        -> RawResponse
    {
        var request = HTTPRequest(method: method, scheme: nil, authority: nil, path: nil, headerFields: headers)
        request.url = URL(string: baseURL + path)
        let (response, data) = try await transport.send(
            request, body: body, options: TransportOptions(timeout: harnessRequestTimeout, maxResponseBytes: 4 << 20))
        return RawResponse(status: response.status.code, body: data, headers: response.headerFields)
    }

    func oobCodes(tenant: String? = nil) async throws -> [[String: String]] {
        let path = "/emulator/v1/projects/\(Self.project)" + (tenant.map { "/tenants/\($0)" } ?? "") + "/oobCodes"
        return (try await raw(.get, path).json["oobCodes"] as? [[String: String]]) ?? []
    }

    func verificationCodes() async throws -> [[String: String]] {
        (try await raw(.get, "/emulator/v1/projects/\(Self.project)/verificationCodes").json["verificationCodes"]
            as? [[String: String]]) ?? []
    }

    // MARK: Flows

    /// Turns TOTP on for the project (or a tenant) with `window` adjacent intervals.
    func enableTOTP(window: Int32 = 5, tenant: String? = nil, phone: Bool = false) async throws {
        let mfa = MultiFactorAuthConfig(
            enabledProviders: phone ? [.phoneSms] : nil,
            providerConfigs: [
                MfaProviderConfig(state: .enabled, totpProviderConfig: TotpMfaProviderConfig(adjacentIntervals: window))
            ])
        if let tenant {
            _ = try await admin.updateTenant(
                project: Self.project, tenant: tenant, updateMask: "mfaConfig", body: Tenant(mfaConfig: mfa))
        } else {
            _ = try await admin.updateProjectConfig(
                project: Self.project, updateMask: "mfa", body: ProjectConfig(mfa: mfa))
        }
    }

    struct Session {
        var uid: String
        var email: String
        var password: String
        var idToken: String
        var refreshToken: String
    }

    /// Signs up and verifies the email through the out-of-band code.
    func verifiedUser(_ email: String = "ada@example.com", password: String = "correct horse", tenant: String? = nil)
        async throws -> Session
    {
        let created = try await accounts.signUp(
            SignUpRequest(email: email, password: password, returnSecureToken: true, tenantId: tenant))
        let idToken = try #require(created.idToken)
        _ = try await accounts.sendOobCode(
            GetOobCodeRequest(requestType: .verifyEmail, idToken: idToken, tenantId: tenant))
        let code = try #require(try await oobCodes(tenant: tenant).last { $0["email"] == email }?["oobCode"])
        let applied = try await accounts.update(SetAccountInfoRequest(oobCode: code))
        #expect(applied.emailVerified == true)
        return Session(
            uid: created.localId, email: email, password: password, idToken: idToken,
            refreshToken: try #require(created.refreshToken))
    }

    /// The current code of `secret` at the emulator's time, `offset` steps away.
    func code(_ secret: String, offset: Int64 = 0) throws -> String {
        let totp = try TOTP(key: try Base32.decode(secret))
        return totp.code(step: UInt64(Int64(try totp.step(at: Int64(clock.now.timeIntervalSince1970))) + offset))
    }

    /// Enrolls TOTP for `session`; returns the secret, the enrollment id and fresh tokens.
    func enrollTOTP(_ session: Session, tenant: String? = nil, name: String = "Authenticator") async throws -> (
        secret: String, enrollmentID: String, session: Session
    ) {
        let started = try await accounts.startMfaEnrollment(
            StartMfaEnrollmentRequest(idToken: session.idToken, tenantId: tenant, totpEnrollmentInfo: .init()))
        let info = try #require(started.totpSessionInfo)
        let secret = try #require(info.sharedSecretKey)
        let finalized = try await accounts.finalizeMfaEnrollment(
            FinalizeMfaEnrollmentRequest(
                idToken: session.idToken, displayName: name, tenantId: tenant,
                totpVerificationInfo: FinalizeTotpMfaEnrollmentRequestInfo(
                    sessionInfo: try #require(info.sessionInfo), verificationCode: try code(secret))))
        var updated = session
        updated.idToken = try #require(finalized.idToken)
        updated.refreshToken = try #require(finalized.refreshToken)
        let user = try #require(
            try await accounts.lookup(GetAccountInfoRequest(idToken: updated.idToken, tenantId: tenant)).users?.first)
        let enrollment = try #require(user.mfaInfo?.first { $0.totpInfo != nil })
        return (secret, try #require(enrollment.mfaEnrollmentId), updated)
    }

    /// The password step of a user with a second factor.
    func pendingCredential(_ session: Session, tenant: String? = nil) async throws -> (
        credential: String, hints: [MfaEnrollment]
    ) {
        let response = try await accounts.signInWithPassword(
            SignInWithPasswordRequest(email: session.email, password: session.password, tenantId: tenant))
        #expect(response.idToken == nil)
        return (try #require(response.mfaPendingCredential), response.mfaInfo ?? [])
    }
}

/// Runs `body` against a fresh emulator (``Harness``), in process or,
/// with `overSocket`, on a loopback port, and stops it afterwards.
@discardableResult
func withEmulator<Value: Sendable>(
    overSocket: Bool = false, configure: (inout EmulatorConfiguration) -> Void = { _ in },
    _ body: @Sendable (Harness) async throws -> Value
) async throws -> Value {
    var settings = EmulatorConfiguration(port: 0, projectID: Harness.project)
    configure(&settings)
    let emulator = try IdentityToolkitEmulator(configuration: settings)
    guard overSocket else {
        return try await emulator.inProcess { transport in
            try await body(Harness(emulator: emulator, port: nil, transport: transport))
        }
    }
    return try await emulator.serving { running in
        try await body(Harness(emulator: emulator, port: running.port, transport: AsyncHTTPClientTransport()))
    }
}

/// Expects `call` to fail with the server short code `code`.
func expectServerError<T>(
    _ code: String, status: Int = 400, sourceLocation: SourceLocation = #_sourceLocation, _ call: () async throws -> T
) async {
    do {
        _ = try await call()
        Issue.record("expected \(code), but the call succeeded", sourceLocation: sourceLocation)
    } catch let failure as IdentityToolkitError where failure.code == .server {
        guard let error = failure.serverError else { return }
        #expect(error.shortCode == code, "\(error)", sourceLocation: sourceLocation)
        #expect(error.status == status, "\(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
    }
}

/// The payload of a JWT.
func jwtClaims(_ token: String) throws -> [String: Any] {
    let parts = token.split(separator: ".")
    try #require(parts.count == 3)
    var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while base64.count % 4 != 0 { base64 += "=" }
    let data = try #require(Data(base64Encoded: base64))
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
}
