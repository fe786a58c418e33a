#if Emulator && AsyncHTTPClient
import Foundation
public import IdentityAdmin
public import IdentityToolkit
import IdentityToolkitAsyncHTTPClient
public import IdentityToolkitEmulator
public import IdentityOTP
import Testing
import IdentityToolkitTestSupport
import EmulatorTestSupport

/// An emulator with TOTP on, the clients the admin tests use on it, and
/// the end-user steps they share (enroll TOTP, sign in with it), for
/// IdentityAdmin's tests and the Vapor middleware's alike.
public struct EmulatorSetup: Sendable {
    /// The emulator (its clock, its state).
    public let emulator: IdentityToolkitEmulator
    /// The `HOST:PORT` its clients name.
    public let hostAndPort: String
    /// The transport its clients use: in process, or over the socket.
    public let transport: any HTTPTransport
    public let configuration: ClientConfiguration
    public let admin: IdentityAdmin
    public let accounts: AccountsClient

    /// Runs `body` against a fresh emulator for `project` with TOTP enabled
    /// (one adjacent interval): in process (HummingbirdTesting's `.router`
    /// framework, no socket), or with `overSocket` served on a loopback
    /// port, for tests whose point is the socket or another process.
    @discardableResult
    public static func with<Value: Sendable>(
        project: String, overSocket: Bool = false, _ body: @Sendable (EmulatorSetup) async throws -> Value
    ) async throws -> Value {
        let emulator = try IdentityToolkitEmulator(configuration: EmulatorConfiguration(port: 0, projectID: project))
        guard overSocket else {
            return try await emulator.inProcess { transport in
                try await body(
                    try await make(
                        emulator, project: project, hostAndPort: IdentityToolkitEmulator.inProcessHostAndPort,
                        transport: transport))
            }
        }
        return try await emulator.serving { running in
            try await body(
                try await make(
                    emulator, project: project, hostAndPort: running.hostAndPort, transport: AsyncHTTPClientTransport())
            )
        }
    }

    private static func make(
        _ emulator: IdentityToolkitEmulator, project: String, hostAndPort: String, transport: any HTTPTransport
    ) async throws -> EmulatorSetup {
        let configuration = ClientConfiguration(
            transport: transport, emulatorHost: hostAndPort, requestTimeout: harnessRequestTimeout)
        let admin = IdentityAdmin.emulator(projectID: project, hostAndPort: hostAndPort, transport: transport)
        _ = try await admin.projectConfigManager().updateProjectConfig(
            UpdateProjectConfigRequest(multiFactorConfig: .totpEnabled(adjacentIntervals: 1)))
        return EmulatorSetup(
            emulator: emulator, hostAndPort: hostAndPort, transport: transport, configuration: configuration,
            admin: admin, accounts: AccountsClient(apiKey: "k", configuration: configuration))
    }

    /// The emulator's clock, which tests move.
    public var clock: EmulatorClock { emulator.clock }

    /// The current code of `totp` by the emulator's clock.
    public func code(_ totp: TOTP) throws -> String { try totp.code(at: Int64(clock.now.timeIntervalSince1970)) }

    /// Enrolls a TOTP factor for the user of `idToken`; returns the generator.
    public func enrollTOTP(idToken: String, displayName: String, tenantID: String? = nil) async throws -> TOTP {
        let started = try await accounts.startMfaEnrollment(
            StartMfaEnrollmentRequest(idToken: idToken, tenantId: tenantID, totpEnrollmentInfo: .init()))
        let totp = try TOTP(key: try Base32.decode(try #require(started.totpSessionInfo?.sharedSecretKey)))
        _ = try await accounts.finalizeMfaEnrollment(
            FinalizeMfaEnrollmentRequest(
                idToken: idToken, displayName: displayName, tenantId: tenantID,
                totpVerificationInfo: FinalizeTotpMfaEnrollmentRequestInfo(
                    sessionInfo: try #require(started.totpSessionInfo?.sessionInfo),
                    verificationCode: try code(totp))))
        return totp
    }

    /// Signs in with the password and the first factor's TOTP code, 30 s of
    /// the emulator's clock after the last code (a code is accepted once).
    public func signInWithTOTP(email: String, password: String, totp: TOTP, tenantID: String? = nil) async throws
        -> FinalizeMfaSignInResponse
    {
        clock.advance(by: 30)
        let pending = try await accounts.signInWithPassword(
            SignInWithPasswordRequest(email: email, password: password, tenantId: tenantID))
        return try await accounts.finalizeMfaSignIn(
            FinalizeMfaSignInRequest(
                mfaPendingCredential: try #require(pending.mfaPendingCredential),
                mfaEnrollmentId: pending.mfaInfo?.first?.mfaEnrollmentId,
                tenantId: tenantID, totpVerificationInfo: .init(verificationCode: try code(totp))))
    }
}

/// A signed-up user with TOTP enrolled, and the tokens the route-protection
/// tests (Hummingbird's and Vapor's) send: real tokens, signed by the
/// emulator's keys.
public struct MiddlewareTokens: Sendable {
    public let uid: String
    /// From the password sign-in: no second factor.
    public let password: String
    /// From a password + TOTP sign-in.
    public let totp: String
    /// Issued two hours ago by the emulator's clock: expired an hour ago.
    public let expired: String
    /// The user's address, password and TOTP generator, for more sign-ins.
    public let email: String, passwordText: String, generator: TOTP

    /// Signs a user up on `setup`'s emulator, enrolls TOTP and signs in both ways.
    public static func make(_ setup: EmulatorSetup) async throws -> MiddlewareTokens {
        let email = "middleware@example.com"
        let password = "correct horse"
        let uid = try await setup.accounts.signUp(
            SignUpRequest(email: email, password: password, returnSecureToken: true)
        ).localId
        // Identity Platform enrolls second factors for verified addresses only.
        _ = try await setup.admin.updateUser(uid, UpdateUserRequest(emailVerified: true))
        let passwordToken = try #require(
            try await setup.accounts.signInWithPassword(SignInWithPasswordRequest(email: email, password: password))
                .idToken)
        let totp = try await setup.enrollTOTP(idToken: passwordToken, displayName: "Phone app")
        let totpToken = try #require(
            try await setup.signInWithTOTP(email: email, password: password, totp: totp).idToken)
        let now = setup.clock.now
        setup.clock.set(now.addingTimeInterval(-7200))
        let old = try await setup.accounts.signUp(
            SignUpRequest(email: "old@example.com", password: password, returnSecureToken: true))
        setup.clock.set(now)
        return MiddlewareTokens(
            uid: uid, password: passwordToken, totp: totpToken, expired: try #require(old.idToken),
            email: email, passwordText: password, generator: totp)
    }
}
#endif
