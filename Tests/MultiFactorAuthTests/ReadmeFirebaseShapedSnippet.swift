// A README snippet, verbatim (ReadmeSnippetTests compares them): the Firebase-shaped API.
import IdentityToolkitAsyncHTTPClient
import MultiFactorAuth

/// At startup: the app's options; on a server, the server transport.
func configureFirebase() {
    let options = FirebaseOptions(googleAppID: "1:123:ios:abc", gcmSenderID: "123")
    options.apiKey = "your-web-api-key"
    options.httpTransport = AsyncHTTPClientTransport() // servers; URLSession by default
    FirebaseApp.configure(options: options)
}

/// A sign-in that asks for a TOTP code only when the account has a second factor.
func signIn(email: String, password: String, code: () -> String) async throws -> AuthDataResult {
    do {
        return try await Auth.auth().signIn(withEmail: email, password: password)
    } catch let error as AuthErrorCode where error.code == .secondFactorRequired {
        let resolver = error.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as! MultiFactorResolver
        let assertion = TOTPMultiFactorGenerator.assertionForSignIn(
            withEnrollmentID: resolver.hints[0].uid, oneTimePassword: code())
        return try await resolver.resolveSignIn(with: assertion)
    }
}
