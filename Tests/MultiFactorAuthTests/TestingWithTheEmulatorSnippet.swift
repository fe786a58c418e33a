// MultiFactorAuth's "Testing with the emulator" article shows this file
// verbatim (TestingWithTheEmulatorArticleTests compares them); it runs here.
import Foundation
import IdentityAdmin
import IdentityOTP
import IdentityToolkit
import IdentityToolkitEmulator
import MultiFactorAuth
import Testing

@Test func aUserEnrollsTOTPAndSignsInWithIt() async throws {
    // An emulator of the test's own, on a free port, with TOTP on.
    try await IdentityToolkitEmulator(
        configuration: EmulatorConfiguration(port: 0, projectID: "demo-tests")
    ).serving { running in
        let admin = IdentityAdmin.emulator(projectID: "demo-tests", hostAndPort: running.hostAndPort)
        _ = try await admin.projectConfigManager().updateProjectConfig(
            UpdateProjectConfigRequest(multiFactorConfig: .totpEnabled(adjacentIntervals: 1)))

        // A named app of the test's own: tests run in parallel.
        let options = FirebaseOptions(googleAppID: "1:1:ios:1", gcmSenderID: "1")
        options.apiKey = "any-key"
        FirebaseApp.configure(name: "totp-test", options: options)
        let auth = Auth.auth(app: try #require(FirebaseApp.app(name: "totp-test")))
        auth.useEmulator(withHost: running.host, port: running.port)

        // Verify the address from Swift: the emulator keeps every code it "sent".
        let user = try await auth.createUser(withEmail: "ada@example.com", password: "correct horse").user
        try await user.sendEmailVerification()
        let helpers = EmulatorHelpersClient(configuration: ClientConfiguration(emulatorHost: running.hostAndPort))
        let sent = try await helpers.listOobCodes(project: "demo-tests").oobCodes
        try await auth.applyActionCode(try #require(sent.last { $0.email == "ada@example.com" }).oobCode)
        try await user.reload()

        // Enroll with the code of the emulator's now, as an authenticator app computes it.
        let secret = try await TOTPMultiFactorGenerator.generateSecret(with: try await user.multiFactor.session())
        let authenticator = try TOTP(base32Secret: secret.sharedSecretKey())
        func code() async throws -> String {
            try authenticator.code(at: try await helpers.getClock().nowMillis / 1000)
        }
        try await user.multiFactor.enroll(
            with: TOTPMultiFactorGenerator.assertionForEnrollment(with: secret, oneTimePassword: try await code()),
            displayName: "Authenticator")
        try auth.signOut()

        // The enrolment's code is spent: move the emulator's clock to the next step.
        _ = try await helpers.changeClock(ClockChange(advanceSeconds: 30))
        do {
            _ = try await auth.signIn(withEmail: "ada@example.com", password: "correct horse")
            Issue.record("the password alone signed in")
        } catch let error as AuthErrorCode where error.code == .secondFactorRequired {
            let resolver = try #require(error.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as? MultiFactorResolver)
            let result = try await resolver.resolveSignIn(
                with: TOTPMultiFactorGenerator.assertionForSignIn(
                    withEnrollmentID: resolver.hints[0].uid, oneTimePassword: try await code()))
            #expect(try await result.user.getIDTokenResult().signInSecondFactor == "totp")
        }
    }
}
