// The README's quick start (the client), verbatim: ReadmeSnippetTests checks
// the README shows it and runs it against an emulator.
import Foundation
import IdentityOTP
import IdentityToolkit
import MultiFactorAuth

let options = FirebaseOptions(googleAppID: "1:1:ios:1", gcmSenderID: "1")
options.apiKey = "any-key" // the emulator takes any key; a real app's is in GoogleService-Info.plist
FirebaseApp.configure(options: options)
let auth = Auth.auth() // FIREBASE_AUTH_EMULATOR_HOST points it at the emulator

// Sign up, and verify the address as the emailed link would (the emulator keeps its codes).
let user = try await auth.createUser(withEmail: "ada@example.com", password: "correct horse").user
try await user.sendEmailVerification()
let inbox = try await EmulatorHelpersClient().listOobCodes(project: "demo-mfa")
try await auth.applyActionCode(inbox.oobCodes.last { $0.email == "ada@example.com" }!.oobCode)
try await user.reload()

// Enroll TOTP: the secret is what an authenticator app scans.
let secret = try await TOTPMultiFactorGenerator.generateSecret(with: try await user.multiFactor.session())
let authenticator = try TOTP(base32Secret: secret.sharedSecretKey())
let enrollment = TOTPMultiFactorGenerator.assertionForEnrollment(
    with: secret, oneTimePassword: try authenticator.code(at: Date()))
try await user.multiFactor.enroll(with: enrollment, displayName: "Authenticator")
try auth.signOut()

// Sign in: the password first, then a code. A code is accepted once, so
// this one is the next 30-second step's (the project accepts adjacent steps).
do {
    _ = try await auth.signIn(withEmail: "ada@example.com", password: "correct horse")
} catch let error as AuthErrorCode where error.code == .secondFactorRequired {
    let resolver = error.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as! MultiFactorResolver
    let code = try authenticator.code(at: Date().addingTimeInterval(30))
    let result = try await resolver.resolveSignIn(
        with: TOTPMultiFactorGenerator.assertionForSignIn(
            withEnrollmentID: resolver.hints[0].uid, oneTimePassword: code))
    print("signed in with \(try await result.user.getIDTokenResult().signInSecondFactor ?? "one factor")")
}
