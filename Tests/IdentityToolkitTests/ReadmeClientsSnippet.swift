// A README snippet, verbatim (ReadmeSnippetTests compares them): the generated clients.
import IdentityToolkit
import IdentityToolkitAsyncHTTPClient

/// A password sign-in finished with a TOTP code, on the REST clients; the ID token.
func signInOverREST(email: String, password: String, code: String) async throws -> String? {
    let configuration = ClientConfiguration(transport: AsyncHTTPClientTransport())
    let accounts = AccountsClient(apiKey: "your-web-api-key", configuration: configuration)

    let signIn = try await accounts.signInWithPassword(
        SignInWithPasswordRequest(email: email, password: password, returnSecureToken: true))
    guard let pending = signIn.mfaPendingCredential, let factor = signIn.mfaInfo?.first(where: { $0.totpInfo != nil })
    else {
        return signIn.idToken
    }
    let tokens = try await accounts.finalizeMfaSignIn(
        FinalizeMfaSignInRequest(
            mfaPendingCredential: pending, mfaEnrollmentId: factor.mfaEnrollmentId,
            totpVerificationInfo: MfaTotpSignInRequestInfo(verificationCode: code)))
    return tokens.idToken
}
