import Foundation
public import IdentityToolkit

/// What an app asks its user when a server wants a new sign-in (a step-up
/// challenge, RFC 9470): the password again, then — when the account has a
/// second factor — a TOTP code. Each closure is the app's prompt; throwing
/// from one (the user cancelled) ends the call with that error.
public struct StepUpPrompts: Sendable {
    /// The user's credential for ``User/reauthenticate(with:)``, given what
    /// the server asks (`StepUpChallenge.requiresSecondFactor`, its age).
    public var credential: @Sendable (StepUpChallenge) async throws -> AuthCredential
    /// The second factor's assertion for the resolver of the sign-in, such
    /// as ``TOTPMultiFactorGenerator/assertionForSignIn(withEnrollmentID:oneTimePassword:)``
    /// with the code the user typed.
    public var secondFactor: @Sendable (MultiFactorResolver) async throws -> MultiFactorAssertion

    /// The prompts.
    /// - Parameters:
    ///   - credential: Asks for the password (``EmailAuthProvider/credential(withEmail:password:)``).
    ///   - secondFactor: Asks for the code and makes the assertion.
    public init(
        credential: @escaping @Sendable (StepUpChallenge) async throws -> AuthCredential,
        secondFactor: @escaping @Sendable (MultiFactorResolver) async throws -> MultiFactorAssertion
    ) {
        self.credential = credential
        self.secondFactor = secondFactor
    }
}

extension User {
    /// Calls a server with this user's ID token and answers a step-up
    /// challenge by itself: when the answer carries one (`WWW-Authenticate:
    /// Bearer error="insufficient_user_authentication"`, RFC 9470), the user
    /// signs in again through `prompts` (``reauthenticate(with:)``, then the
    /// second factor) and `operation` runs once more with the new token.
    /// It is retried once: a second challenge is the caller's answer.
    ///
    /// ```swift
    /// let (data, response) = try await user.withStepUp(prompts: prompts, challenge: { $0.1.value(forHTTPHeaderField: "WWW-Authenticate") }) { idToken in
    ///     var request = URLRequest(url: URL(string: "https://api.example.com/payouts")!)
    ///     request.setValue("Bearer \(idToken)", forHTTPHeaderField: "Authorization")
    ///     let (data, response) = try await URLSession.shared.data(for: request)
    ///     return (data, response as! HTTPURLResponse)
    /// }
    /// ```
    /// - Parameters:
    ///   - prompts: The app's password and second-factor prompts.
    ///   - challenge: The `WWW-Authenticate` value of an answer, if any.
    ///   - operation: The call, given the current ID token.
    /// - Returns: The answer to the call, after a new sign-in when one was asked for.
    /// - Throws: The operation's errors, the prompts' errors, and the
    ///   sign-in's (`wrongPassword`, `invalidVerificationCode`, `userMismatch`, …).
    public func withStepUp<Answer: Sendable>(
        prompts: StepUpPrompts,
        challenge: (Answer) -> String?,
        _ operation: (_ idToken: String) async throws -> Answer
    ) async throws -> Answer {
        let first = try await operation(try await getIDToken())
        guard let header = challenge(first), let stepUp = StepUpChallenge(wwwAuthenticate: header) else { return first }
        return try await operation(try await signInAgain(for: stepUp, prompts: prompts))
    }

    /// A new sign-in of this user through `prompts`; its ID token.
    private func signInAgain(for challenge: StepUpChallenge, prompts: StepUpPrompts) async throws -> String {
        let credential = try await prompts.credential(challenge)
        do {
            try await reauthenticate(with: credential)
            return try await getIDToken()
        } catch let error as AuthErrorCode where error.code == .secondFactorRequired {
            guard let resolver = error.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as? MultiFactorResolver else {
                throw error
            }
            let result = try await resolver.resolveSignIn(with: try await prompts.secondFactor(resolver))
            guard result.user.uid == uid else { throw AuthErrorCode(.userMismatch) }
            return try await result.user.getIDToken()
        }
    }
}
