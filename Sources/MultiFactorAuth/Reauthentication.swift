import Foundation
import IdentityToolkit

/// A credential a user proves their identity with, as Firebase's
/// `AuthCredential`; made by a provider such as ``EmailAuthProvider``.
public class AuthCredential: @unchecked Sendable, CustomStringConvertible {
    /// The provider, such as `password`.
    public let provider: String

    init(provider: String) { self.provider = provider }

    /// The provider; never the secret.
    public var description: String { "AuthCredential(provider: \(provider))" }
}

/// An email address and password (never shown in descriptions).
final class EmailPasswordCredential: AuthCredential, @unchecked Sendable {
    let email: String
    let password: String

    init(email: String, password: String) {
        self.email = email
        self.password = password
        super.init(provider: EmailAuthProvider.id)
    }
}

/// Email and password credentials, as Firebase's `EmailAuthProvider`.
public enum EmailAuthProvider {
    /// The provider id, `password`.
    public static let id = ProviderID.password.rawValue

    /// A credential for ``User/reauthenticate(with:)``.
    public static func credential(withEmail email: String, password: String) -> AuthCredential {
        EmailPasswordCredential(email: email, password: password)
    }
}

extension User {
    /// Proves the user's identity again (the docs' step before enrolling or
    /// withdrawing a factor, which need a recent sign-in), keeping this user
    /// current with fresh tokens.
    /// - Throws: `secondFactorRequired` with a resolver (in `userInfo`) when
    ///   the user has a second factor: resolving it completes the
    ///   re-authentication; `userMismatch` when the credential is another
    ///   user's; the sign-in's errors (`wrongPassword`, …).
    @discardableResult
    public func reauthenticate(with credential: AuthCredential) async throws -> AuthDataResult {
        guard let credential = credential as? EmailPasswordCredential else {
            throw AuthErrorCode(.invalidCredential, message: "Only email and password credentials are supported.")
        }
        guard let auth = context.owner.current?.auth else {
            throw AuthErrorCode(.internalError, message: "The user's Auth instance is gone.")
        }
        let (response, idToken, refreshToken) = try await auth.passwordStep(
            email: credential.email, password: credential.password, reauthenticating: uid)
        guard response.localId == uid else { throw AuthErrorCode(.userMismatch) }
        try await updateTokens(idToken: idToken, refreshToken: refreshToken, expiresIn: response.expiresIn)
        return AuthDataResult(
            user: self, additionalUserInfo: AdditionalUserInfo(providerID: EmailAuthProvider.id, isNewUser: false))
    }
}
