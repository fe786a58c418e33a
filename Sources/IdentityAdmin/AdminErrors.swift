import Foundation
import IdentitySupport

// IdentityAdmin's errors, by what a caller does about them:
// - TokenVerificationError: a credential was refused (answer 401, 403 or 503);
// - AdminValidationError: what the program gave is wrong, and nothing was
//   sent (fix the argument, the key file or the environment);
// - AdminError: a call was made and failed (its code says whether the user,
//   a retry or an operator can help).
// The generated clients' IdentityToolkitError is the server's own answer.

/// What the program gave an admin call or credential is wrong, and nothing
/// was sent: a field of a request, a uid, a developer claim, a service
/// account key file or the environment variable that names it. Retrying the
/// same call fails the same way; fix the input.
///
/// ```swift
/// catch let error as AdminValidationError where error.field == "uid" { … }
/// ```
public struct AdminValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong: a request's field path, such as
    /// `multiFactorConfig.providerConfigs[0].state`, `uid` or
    /// `developerClaims.<name>`; `keyFile` (or the file's path, when it cannot
    /// be read) for a service account key;
    /// `credential` for a credential that cannot sign; or the environment
    /// variable's name.
    public var field: String
    /// What is wrong with it; never a secret (a key, a token, a password).
    public var message: String

    /// The field's path and the problem.
    public var description: String { "\"\(field)\" \(message)" }

    /// An unset environment variable; for the application default
    /// credential's, what to do instead.
    static func missingEnvironmentVariable(_ name: String) -> Self {
        guard name == ApplicationDefaultCredential.environmentVariable else {
            return Self(field: name, message: "is not set")
        }
        return Self(
            field: name,
            message: "is not set: point it at a service account's JSON key file (Firebase console, "
                + "Project settings, Service accounts), or run against the emulator "
                + "(IdentityAdmin.emulator(projectID:hostAndPort:), or FIREBASE_AUTH_EMULATOR_HOST), "
                + "which needs no credential")
    }
}

/// An admin call that was made and failed: the user is not there, a
/// recovery step refused or could not finish, the OAuth2 token endpoint
/// refused or could not be reached, a token could not be signed. The
/// ``code`` says what it was; ``underlying`` is the error of the step,
/// when one was thrown. The server's own refusals of a REST call stay
/// `IdentityToolkitError`.
///
/// A struct over a code, as async-http-client's `HTTPClientError`: a later
/// release can add a code without breaking a `switch`. Match in a `catch`
/// by code:
///
/// ```swift
/// catch AdminError.Code.userNotFound { … }
/// catch let error as AdminError where error.code == .invalidRecoveryCode { … }
/// ```
public struct AdminError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        fileprivate let name: String

        /// No account has this uid or email (firebase-admin's `auth/user-not-found`).
        public static let userNotFound = Code(name: "userNotFound")

        /// The OAuth2 token endpoint refused the service account's assertion
        /// (RFC 6749's `error` and `error_description` are in the detail):
        /// the key was revoked or the clock is wrong; an operator can help.
        public static let tokenEndpointRefused = Code(name: "tokenEndpointRefused")
        /// The OAuth2 token endpoint could not be reached: a retry may help.
        public static let tokenEndpointUnreachable = Code(name: "tokenEndpointUnreachable")
        /// The OAuth2 token endpoint answered without a usable access token.
        public static let malformedTokenResponse = Code(name: "malformedTokenResponse")
        /// A custom token could not be signed.
        public static let signingFailed = Code(name: "signingFailed")

        /// A recovery code that is not an unused code of this user.
        public static let invalidRecoveryCode = Code(name: "invalidRecoveryCode")
        /// The user has no recovery codes.
        public static let noRecoveryCodes = Code(name: "noRecoveryCodes")
        /// Too many wrong recovery codes: none is checked until the lock-out ends.
        public static let tooManyRecoveryAttempts = Code(name: "tooManyRecoveryAttempts")
        /// The password step of a recovery is older than
        /// ``AccountRecovery/maximumFirstFactorAge`` or than the account's
        /// last revocation: sign in with the password again.
        public static let firstFactorTooOld = Code(name: "firstFactorTooOld")
        /// The recovery code store or its attempt store cannot be reached
        /// (nothing was decided).
        public static let recoveryStoreUnavailable = Code(name: "recoveryStoreUnavailable")
        /// The user could not be read (nothing was counted or spent).
        public static let userLookupFailed = Code(name: "userLookupFailed")
        /// The recovery code was spent, but the TOTP factors could not be withdrawn.
        public static let factorWithdrawalFailed = Code(name: "factorWithdrawalFailed")
        /// The factors were withdrawn, but the sessions could not be ended.
        public static let revocationFailed = Code(name: "revocationFailed")
        /// A recovery did everything, but no custom token could be made.
        public static let signInTokenFailed = Code(name: "signInTokenFailed")

        /// The name, such as `userNotFound`: stable, safe for a log or a metric label.
        public var description: String { name }
    }

    /// What failed.
    public let code: Code
    /// A sentence that names no secret (a uid, an endpoint's error code);
    /// empty when the code says it all.
    public let detail: String
    /// The error of the step, when one was thrown (its type is what
    /// ``description`` shows).
    public let underlying: (any Error)?

    init(_ code: Code, detail: String = "", underlying: (any Error)? = nil) {
        self.code = code
        self.detail = LogSafeText.escaping(detail, limit: 512)
        self.underlying = underlying
    }

    /// The code, the detail and the underlying error's type; never a code,
    /// a key or a token.
    public var description: String {
        var text = "\(code)"
        if !detail.isEmpty { text += ": \(detail)" }
        if let underlying { text += " (\(type(of: underlying)))" }
        return text
    }
}

extension AdminError.Code {
    /// Matches an ``AdminError`` of this code: `catch AdminError.Code.userNotFound`.
    public static func ~= (pattern: Self, error: any Error) -> Bool {
        (error as? AdminError)?.code == pattern
    }
}
