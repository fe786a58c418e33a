public import Foundation
public import IdentityToolkit

/// The factor id of TOTP second factors.
public let TOTPMultiFactorID = SecondFactorID.totp.rawValue
/// The factor id of SMS second factors.
public let PhoneMultiFactorID = SecondFactorID.phone.rawValue
/// The domain of every error this SDK reports.
public let AuthErrorDomain = "FIRAuthErrorDomain"
/// Under this user-info key, a *second factor required* error carries its ``MultiFactorResolver``.
public let AuthErrorUserInfoMultiFactorResolverKey = "FIRAuthErrorUserInfoMultiFactorResolverKey"
/// Under this user-info key, every error carries its `ERROR_*` name.
public let AuthErrorUserInfoNameKey = "FIRAuthErrorUserInfoNameKey"
/// Under this user-info key, some errors carry the email address concerned.
public let AuthErrorUserInfoEmailKey = "FIRAuthErrorUserInfoEmailKey"
/// Under this user-info key, some errors carry an updated credential.
public let AuthErrorUserInfoUpdatedCredentialKey = "FIRAuthErrorUserInfoUpdatedCredentialKey"

/// An error of domain `FIRAuthErrorDomain`: a ``Code`` (generated from
/// `Spec/errors.yaml`) and a user-info dictionary with the localized
/// description, the `ERROR_*` name and, for
/// ``Code-swift.enum/secondFactorRequired``, the ``MultiFactorResolver``.
///
/// It can be caught the three ways the Firebase docs do:
/// `catch let error as AuthErrorCode where error.code == .secondFactorRequired`,
/// `(error as NSError).code == AuthErrorCode.secondFactorRequired.rawValue`,
/// and `error.code == AuthErrorCode.userTokenExpired.rawValue` on a completion's `Error?`.
public struct AuthErrorCode: Error, CustomNSError, @unchecked Sendable, CustomStringConvertible {
    /// What went wrong.
    public let code: Code
    /// Localized description, `ERROR_*` name, and per-code extras.
    public let userInfo: [String: Any]

    /// Creates an error with the default description of `code` (or `message`).
    public init(_ code: Code, message: String? = nil, underlying: (any Error)? = nil, userInfo extra: [String: Any] = [:]) {
        self.code = code
        var info = extra
        info[NSLocalizedDescriptionKey] = message ?? code.defaultDescription
        info[AuthErrorUserInfoNameKey] = code.userInfoName
        if let underlying { info[NSUnderlyingErrorKey] = underlying }
        self.userInfo = info
    }

    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { userInfo }

    /// The localized description.
    public var message: String { userInfo[NSLocalizedDescriptionKey] as? String ?? code.defaultDescription }

    public var description: String { "\(code.userInfoName) (\(code.rawValue)): \(message)" }
}

extension Optional where Wrapped == any Error {
    /// The error's `NSError` code; 0 for nil, as a message to nil gives in
    /// Objective-C. It lets a completion test `error.code == AuthErrorCode.userTokenExpired.rawValue`
    /// on its `Error?`, as the Firebase docs write it.
    public var code: Int {
        guard let error = self else { return 0 }
        return (error as NSError).code
    }
}

/// Server and transport failures → `AuthErrorCode`, per the table in `Spec/errors.yaml`.
enum AuthErrorMapping {
    static func map(_ error: any Error) -> any Error {
        if error is AuthErrorCode || error is CancellationError { return error }
        guard let failure = error as? IdentityToolkitError else {
            return AuthErrorCode(.internalError, message: "An internal error has occurred: \(type(of: error)).", underlying: error)
        }
        switch failure {
        case .server(let server):
            let code = AuthErrorCode.Code(serverCode: server.shortCode)
                ?? server.reasons.lazy.compactMap(AuthErrorCode.Code.forServerReason).first
                ?? (server.status == 429 ? .tooManyRequests : .unknownServerCode)
            // An unknown code keeps the server's short code (such as HTTP_503) in the message.
            let message = code == .unknownServerCode
                ? "\(code.defaultDescription) (\(server.shortCode)\(server.detail.map { ": \($0)" } ?? ""))"
                : server.detail ?? code.defaultDescription
            return AuthErrorCode(code, message: message, underlying: failure)
        case .transport(let underlying):
            return AuthErrorCode(.transportFailure, underlying: underlying)
        case .undecodableResponse(_, let underlying):
            return AuthErrorCode(.undecodableResponse, message: "The server's response could not be decoded.", underlying: underlying)
        case .invalidRequest(let reason):
            return AuthErrorCode(.internalError, message: "The request could not be built: \(reason).", underlying: failure)
        case .accessTokenUnavailable(let underlying):
            return AuthErrorCode(.internalError, underlying: underlying)
        }
    }

    /// Runs a backend call, mapping its failures.
    static func perform<Value>(_ call: () async throws -> Value) async throws -> Value {
        do {
            return try await call()
        } catch {
            throw map(error)
        }
    }
}

/// Where MultiFactorAuth's completion handlers run: see ``IdentityToolkit/CompletionDelivery``.
public typealias AuthCompletionDelivery = CompletionDelivery
