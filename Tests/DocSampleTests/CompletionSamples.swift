// The Italian page's Swift samples (completion handlers), verbatim, and its
// Objective-C samples written in Swift with the Objective-C-style names the
// SDK generates from Spec/facades.yaml. Each sits in a function that supplies
// the placeholders (`user`, `email`, `password`, `selectedIndex`,
// `displayName`; the codes come from `oneTimePassword`/`onetimePassword`).
import Foundation
import MultiFactorAuth

/// "Enroll users in TOTP" (Swift).
func completionEnrollmentSample() {
    let user = Auth.auth().currentUser

    // Get a multi-factor session for the user
    user?.multiFactor.getSessionWithCompletion({ (session, error) in
      TOTPMultiFactorGenerator.generateSecret(with: session!) {
        (secret, error) in
        let accountName = user?.email;
        let issuer = Auth.auth().app?.name;

        // Generate a QR code
        let qrCodeUrl = secret?.generateQRCodeURL(withAccountName: accountName!, issuer: issuer!)

        // Display the QR code
        // ...

        // Alternatively, you can automatically load the QR code
        // into a TOTP authenticator app with default fallback UR
        // and activity.
        secret?.openInOTPAppWithQRCodeURL(qrCodeUrl!);

        // Ask the user for the verification code after scanning
        let assertion = TOTPMultiFactorGenerator.assertionForEnrollment(with: secret, oneTimePassword: onetimePassword)

        // Complete the enrollment
        user?.multiFactor.enroll(with: assertion, displayName: accountName) { (error) in
          // ...
        }
      }
    })
}

/// "Sign in users with a second factor" (Swift).
func completionSignInSample(email: String, password: String, selectedIndex: Int) {
    Auth.auth().signIn(withEmail: email, password: password) {
      (result, error) in
      if (error != nil) {
        let authError = error! as NSError
        if authError.code == AuthErrorCode.secondFactorRequired.rawValue {
          let resolver = authError.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as! MultiFactorResolver
          if resolver.hints[selectedIndex].factorID == TOTPMultiFactorID {
            let assertion = TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: resolver.hints[selectedIndex].uid, oneTimePassword: oneTimePassword)
            resolver.resolveSignIn(with: assertion) {
              (authResult, error) in
              if (error != nil) {
                // User successfully signed in with second factor TOTP.
              }
            }

          } else if (resolver.hints[selectedIndex].factorID == PhoneMultiFactorID) {
            // User selected a phone second factor.
            // ...
          } else {
            // Unsupported second factor.
            // Note that only phone and TOTP second factors are currently supported.
            // ...
          }
        }
      }
      else {
        // The user is not enrolled with a second factor and is
        //  successfully signed in.
        // ...
      }
    }
}

/// "Unenroll from TOTP MFA" (Swift).
func completionUnenrollSample(user: User?, selectedIndex: Int) {
    user?.multiFactor.unenroll(with: (user?.multiFactor.enrolledFactors[selectedIndex])!,
      completion: { (error) in
      if (error.code == AuthErrorCode.userTokenExpired.rawValue) {
        // Handle reauthentication
      }
    })
}

// MARK: - The Objective-C samples, in Swift with the Objective-C-style names

/// `[user.multiFactor getSessionWithCompletion:…]` … `enrollWithAssertion:displayName:completion:`.
func objectiveCStyleEnrollmentSample(displayName: String) {
    let user = Auth.auth().currentUser

    // Get a multi-factor session for the user
    user?.multiFactor.getSessionWithCompletion { session, error in
      // ...
      TOTPMultiFactorGenerator.generateSecretWithMultiFactorSession(session!) { secret, error in
        let accountName = user?.email
        let issuer = Auth.auth().app?.name

        // Generate a QR code
        let qrCodeUrl = secret?.generateQRCodeURLWithAccountName(accountName!, issuer: issuer!)

        // Alternatively, you can automatically load the QR code
        // into a TOTP authenticator app with default fallback URL
        // and activity.
        secret?.openInOTPAppWithQRCodeURL(qrCodeUrl!)

        // Ask the user for the verification code after scanning
        let assertion = TOTPMultiFactorGenerator.assertionForEnrollmentWithSecret(secret, oneTimePassword: oneTimePassword)

        // Complete the enrollment
        user?.multiFactor.enrollWithAssertion(assertion, displayName: displayName) { error in
          // ...
        }
      }
    }
}

/// `[FIRAuth.auth signInWithEmail:password:completion:]` and `signInWithMfaWithError:`.
func objectiveCStyleSignInSample(email: String, password: String, selectedIndex: Int) {
    Auth.auth().signInWithEmail(email, password: password) { authResult, error in
      if error == nil || error.code != AuthErrorCode.secondFactorRequired.rawValue {
        // User is not enrolled with a second factor and is successfully signed in.
        // ...
      } else {
        // The user is a multi-factor user. Second factor challenge is required.
        signInWithMfaWithError(error, selectedIndex: selectedIndex)
      }
    }
}

func signInWithMfaWithError(_ error: (any Error)?, selectedIndex: Int) {
    let resolver = (error! as NSError).userInfo[AuthErrorUserInfoMultiFactorResolverKey] as! MultiFactorResolver

    // Ask user which second factor to use. Then:
    let hint = resolver.hints[selectedIndex]
    if hint.factorID == TOTPMultiFactorID {
      // User selected a totp second factor.
      // Ask user for verification code.
      let assertion = TOTPMultiFactorGenerator.assertionForSignInWithEnrollmentID(hint.uid, oneTimePassword: oneTimePassword)
      resolver.resolveSignInWithAssertion(assertion) { authResult, error in
        if error != nil {
          // User successfully signed in with the second factor TOTP.
        }
      }
    } else if hint.factorID == PhoneMultiFactorID {
      // User selected a phone second factor.
      // ...
    } else {
      // Unsupported second factor.
      // Note that only phone and totp second factors are currently supported.
    }
}

/// `[FIRAuth.auth.currentUser.multiFactor unenrollWithInfo:completion:]`.
func objectiveCStyleUnenrollSample(selectedIndex: Int) {
    let unenrolledFactorInfo = Auth.auth().currentUser!.multiFactor.enrolledFactors[selectedIndex]
    Auth.auth().currentUser?.multiFactor.unenrollWithInfo(unenrolledFactorInfo, completion: { error in
      if error.code == AuthErrorCode.userTokenExpired.rawValue {
        // Handle reauthentication
      }
    })
}
