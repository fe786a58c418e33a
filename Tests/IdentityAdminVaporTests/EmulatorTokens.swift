import Foundation
import IdentityAdmin
import IdentityToolkit
import IdentityToolkitAsyncHTTPClient
import IdentityToolkitEmulator
import OTP
import Testing

/// An emulator with TOTP on, a user with TOTP enrolled, and the tokens the
/// middleware tests send: real tokens, signed by the emulator's keys.
struct EmulatorTokens {
    let running: RunningEmulator
    let admin: IdentityAdmin
    let uid: String
    /// From the password sign-in: no second factor.
    let password: String
    /// From a password + TOTP sign-in.
    let totp: String
    /// Issued two hours ago by the emulator's clock: expired an hour ago.
    let expired: String

    static func start(project: String) async throws -> EmulatorTokens {
        let running = try await IdentityToolkitEmulator(configuration: EmulatorConfiguration(port: 0, projectID: project)).start()
        let transport = AsyncHTTPClientTransport()
        let admin = IdentityAdmin.emulator(projectID: project, hostAndPort: running.hostAndPort, transport: transport)
        _ = try await admin.projectConfigManager().updateProjectConfig(UpdateProjectConfigRequest(multiFactorConfig: .totpEnabled(adjacentIntervals: 1)))
        let accounts = AccountsClient(apiKey: "k", configuration: ClientConfiguration(transport: transport, emulatorHost: running.hostAndPort))
        let clock = running.emulator.clock
        func code(_ totp: TOTP) throws -> String { try totp.code(at: Int64(clock.now.timeIntervalSince1970)) }

        let email = "vapor@example.com", password = "correct horse"
        let uid = try await accounts.signUp(SignUpRequest(email: email, password: password, returnSecureToken: true)).localId
        // Identity Platform enrolls second factors for verified addresses only.
        _ = try await admin.updateUser(uid, UpdateUserRequest(emailVerified: true))
        let passwordToken = try #require(try await accounts.signInWithPassword(SignInWithPasswordRequest(email: email, password: password)).idToken)
        let started = try await accounts.startMfaEnrollment(StartMfaEnrollmentRequest(idToken: passwordToken, totpEnrollmentInfo: .init()))
        let totp = try TOTP(key: try Base32.decode(try #require(started.totpSessionInfo?.sharedSecretKey)))
        _ = try await accounts.finalizeMfaEnrollment(FinalizeMfaEnrollmentRequest(
            idToken: passwordToken, displayName: "Phone", totpVerificationInfo: FinalizeTotpMfaEnrollmentRequestInfo(
                sessionInfo: try #require(started.totpSessionInfo?.sessionInfo), verificationCode: try code(totp))))
        // A code is accepted once: the sign-in uses the next one.
        clock.advance(by: 30)
        let pending = try await accounts.signInWithPassword(SignInWithPasswordRequest(email: email, password: password))
        let signedIn = try await accounts.finalizeMfaSignIn(FinalizeMfaSignInRequest(
            mfaPendingCredential: try #require(pending.mfaPendingCredential), mfaEnrollmentId: pending.mfaInfo?.first?.mfaEnrollmentId,
            totpVerificationInfo: .init(verificationCode: try code(totp))))
        let now = clock.now
        clock.set(now.addingTimeInterval(-7200))
        let old = try await accounts.signUp(SignUpRequest(email: "old@example.com", password: password, returnSecureToken: true))
        clock.set(now)
        return EmulatorTokens(running: running, admin: admin, uid: uid, password: passwordToken, totp: try #require(signedIn.idToken),
                              expired: try #require(old.idToken))
    }
}
