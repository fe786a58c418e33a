// The async Swift samples of the German, Vietnamese, Arabic and Korean pages
// (their code is identical), verbatim. The only changes: each sits in a
// function that supplies its placeholders, and the lines that end in a
// placeholder comment (`let verificationCode = // Code from user input.`)
// get the value, marked `/* placeholder */`. The samples swallow errors in
// their `catch` blocks, so the tests check the outcome afterwards. Compiling
// them verbatim yields the warnings they carry (unused `authResult`,
// `enrolledFactors`, a bare `enrolledFactors` expression); those are the
// docs', not the SDK's.
import Foundation
import MultiFactorAuth

/// "Generate a TOTP secret", "Display this key", the QR code URI, "Finalize the enrollment".
func asyncEnrollmentSample(currentUser: User) async throws {
    // Generate a TOTP secret.
    guard let mfaSession = try? await currentUser.multiFactor.session() else { return }
    guard let totpSecret = try? await TOTPMultiFactorGenerator.generateSecret(with: mfaSession) else { return }

    // Display the secret to the user and prompt them to enter it into their
    // authenticator app. (See the next step.)

    // Display this key:
    let secret = totpSecret.sharedSecretKey()

    let otpAuthUri = totpSecret.generateQRCodeURL(
        withAccountName: currentUser.email ?? "default account",
        issuer: "Your App Name")
    totpSecret.openInOTPApp(withQRCodeURL: otpAuthUri)

    // Ask the user for a verification code from the authenticator app.
    let verificationCode = /* placeholder */ oneTimePassword // Code from user input.

    // Finalize the enrollment.
    let multiFactorAssertion = TOTPMultiFactorGenerator.assertionForEnrollment(
        with: totpSecret,
        oneTimePassword: verificationCode)
    do {
        try await currentUser.multiFactor.enroll(
            with: multiFactorAssertion,
            displayName: "TOTP")
    } catch {
        // Wrong or expired OTP. Re-prompt the user.
    }
}

/// "Sign in with a second factor": the first sample, with the next two
/// steps where it says "(See next step.)".
func asyncSignInSample(email: String, password: String, selectedIndex: Int) async throws {
    do {
        let authResult = try await Auth.auth().signIn(withEmail: email, password: password)

        // If the user is not enrolled with a second factor and provided valid
        // credentials, sign-in succeeds.

        // (If your app requires MFA, this could be considered an error
        // condition, which you would resolve by forcing the user to enroll a
        // second factor.)

        // ...
    } catch let error as AuthErrorCode where error.code == .secondFactorRequired {
        // Initiate your second factor sign-in flow. (See next step.)
        // ...
        let mfaKey = AuthErrorUserInfoMultiFactorResolverKey
        guard let resolver = error.userInfo[mfaKey] as? MultiFactorResolver else { return }
        let enrolledFactors = resolver.hints.map(\.displayName)

        let multiFactorInfo = resolver.hints[selectedIndex]
        switch multiFactorInfo.factorID {
        case TOTPMultiFactorID:
            let otpFromAuthenticator = /* placeholder */ oneTimePassword // OTP typed by the user.
            let assertion = TOTPMultiFactorGenerator.assertionForSignIn(
                withEnrollmentID: multiFactorInfo.uid,
                oneTimePassword: otpFromAuthenticator)
            do {
                let authResult = try await resolver.resolveSignIn(with: assertion)
            } catch {
                // Wrong or expired OTP. Re-prompt the user.
            }
        default:
            return
        }
    } catch {
        // Other auth error.
        throw error
    }
}

/// "Unenroll from TOTP MFA".
func asyncUnenrollSample(selectedIndex: Int) async throws {
    guard let currentUser = Auth.auth().currentUser else { return }

    // Prompt the user to select a factor to unenroll, from this array:
    currentUser.multiFactor.enrolledFactors

    // ...

    // Unenroll the second factor.
    let multiFactorInfo = currentUser.multiFactor.enrolledFactors[selectedIndex]
    do {
        try await currentUser.multiFactor.unenroll(with: multiFactorInfo)
    } catch let error as AuthErrorCode where error.code == .invalidUserToken {
        // Second factor unenrolled, but the user was signed out. Re-authenticate
        // them.
    }
}
