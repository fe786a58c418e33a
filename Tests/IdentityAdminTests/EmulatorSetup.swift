import Foundation
import IdentityAdmin
import IdentityToolkit
import IdentityToolkitAsyncHTTPClient
import IdentityToolkitEmulator
import OTP
import Testing

/// A running emulator with TOTP on, the clients the admin tests use on it,
/// and the end-user steps they share (enroll TOTP, sign in with it).
struct EmulatorSetup {
    let running: RunningEmulator
    let configuration: ClientConfiguration
    let admin: IdentityAdmin
    let accounts: AccountsClient

    /// Starts an emulator for `project` with TOTP enabled (one adjacent interval).
    static func start(project: String) async throws -> EmulatorSetup {
        let running = try await IdentityToolkitEmulator(configuration: EmulatorConfiguration(port: 0, projectID: project)).start()
        let transport = AsyncHTTPClientTransport()
        let configuration = ClientConfiguration(transport: transport, emulatorHost: running.hostAndPort)
        let admin = IdentityAdmin.emulator(projectID: project, hostAndPort: running.hostAndPort, transport: transport)
        _ = try await admin.projectConfigManager().updateProjectConfig(UpdateProjectConfigRequest(multiFactorConfig: .totpEnabled(adjacentIntervals: 1)))
        return EmulatorSetup(running: running, configuration: configuration, admin: admin, accounts: AccountsClient(apiKey: "k", configuration: configuration))
    }

    var clock: EmulatorClock { running.emulator.clock }

    /// The current code of `totp` by the emulator's clock.
    func code(_ totp: TOTP) throws -> String { try totp.code(at: Int64(clock.now.timeIntervalSince1970)) }

    /// Enrolls a TOTP factor for the user of `idToken`; returns the generator.
    func enrollTOTP(idToken: String, displayName: String, tenantID: String? = nil) async throws -> TOTP {
        let started = try await accounts.startMfaEnrollment(StartMfaEnrollmentRequest(idToken: idToken, tenantId: tenantID, totpEnrollmentInfo: .init()))
        let totp = try TOTP(key: try Base32.decode(try #require(started.totpSessionInfo?.sharedSecretKey)))
        _ = try await accounts.finalizeMfaEnrollment(FinalizeMfaEnrollmentRequest(
            idToken: idToken, displayName: displayName, tenantId: tenantID,
            totpVerificationInfo: FinalizeTotpMfaEnrollmentRequestInfo(sessionInfo: try #require(started.totpSessionInfo?.sessionInfo), verificationCode: try code(totp))))
        return totp
    }

    /// Signs in with the password and the first factor's TOTP code, 30 s of
    /// the emulator's clock after the last code (a code is accepted once).
    func signInWithTOTP(email: String, password: String, totp: TOTP, tenantID: String? = nil) async throws -> FinalizeMfaSignInResponse {
        clock.advance(by: 30)
        let pending = try await accounts.signInWithPassword(SignInWithPasswordRequest(email: email, password: password, tenantId: tenantID))
        return try await accounts.finalizeMfaSignIn(FinalizeMfaSignInRequest(
            mfaPendingCredential: try #require(pending.mfaPendingCredential), mfaEnrollmentId: pending.mfaInfo?.first?.mfaEnrollmentId,
            tenantId: tenantID, totpVerificationInfo: .init(verificationCode: try code(totp))))
    }
}
