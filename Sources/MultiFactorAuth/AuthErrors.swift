public import Foundation
public import IdentityToolkit

/// The factor id of TOTP second factors.
public let TOTPMultiFactorID = SecondFactorID.totp.rawValue
/// The factor id of SMS second factors.
public let PhoneMultiFactorID = SecondFactorID.phone.rawValue
/// The domain of every error this SDK reports.
public let AuthErrorDomain = AuthErrors.domain
/// Under this user-info key, a *second factor required* error carries its ``MultiFactorResolver``.
public let AuthErrorUserInfoMultiFactorResolverKey = AuthErrors.userInfoMultiFactorResolverKey
/// Under this user-info key, every error carries its `ERROR_*` name.
public let AuthErrorUserInfoNameKey = AuthErrors.userInfoNameKey
/// Under this user-info key, some errors carry the email address concerned.
public let AuthErrorUserInfoEmailKey = AuthErrors.userInfoEmailKey
/// Under this user-info key, some errors carry an updated credential.
public let AuthErrorUserInfoUpdatedCredentialKey = AuthErrors.userInfoUpdatedCredentialKey

/// The error domain and user-info keys under the names FirebaseAuth 11 and
/// later gives them (`AuthErrors.domain`); the global constants above are
/// the 10.x names of the same strings.
public enum AuthErrors {
    /// The domain of every error this SDK reports: `FIRAuthErrorDomain`.
    public static let domain = AuthErrorCode.errorDomain
    /// Under this key, every error carries its `ERROR_*` name.
    public static let userInfoNameKey = "FIRAuthErrorUserInfoNameKey"
    /// Under this key, some errors carry the email address concerned.
    public static let userInfoEmailKey = "FIRAuthErrorUserInfoEmailKey"
    /// Under this key, some errors carry an updated credential.
    public static let userInfoUpdatedCredentialKey = "FIRAuthErrorUserInfoUpdatedCredentialKey"
    /// Under this key, a *second factor required* error carries its ``MultiFactorResolver``.
    public static let userInfoMultiFactorResolverKey = "FIRAuthErrorUserInfoMultiFactorResolverKey"
}

/// An error of domain `FIRAuthErrorDomain`: a ``Code`` (generated from
/// `Spec/errors.yaml`) and a user-info dictionary with the localized
/// description, the `ERROR_*` name and, for
/// ``Code-swift.enum/secondFactorRequired``, the ``MultiFactorResolver``.
///
/// It is caught the ways Firebase code catches it, on Linux as on Apple platforms:
/// - `catch let error as AuthErrorCode where error.code == .secondFactorRequired`;
/// - `catch let error as NSError where error.code == AuthErrorCode.secondFactorRequired.rawValue`
///   and `(error as NSError).code == …` (on Linux it bridges to an `NSError`
///   of domain `FIRAuthErrorDomain`, and such an `NSError` back to it);
/// - `catch AuthErrorCode.wrongPassword` (10.x pattern matching);
/// - `AuthErrorCode(rawValue: (error as NSError).code)`, `AuthErrors.domain`
///   and `if let e = error as? AuthErrorCode, e == .networkError` (the 11+ spellings);
/// - `error.code == AuthErrorCode.userTokenExpired.rawValue` on a completion's `Error?`.
public struct AuthErrorCode: Error, CustomNSError, @unchecked Sendable, CustomStringConvertible, Equatable {
    /// What went wrong.
    public let code: Code
    /// Localized description, `ERROR_*` name, and per-code extras.
    public let userInfo: [String: Any]

    /// Creates an error with the default description of `code` (or `message`).
    public init(
        _ code: Code, message: String? = nil, underlying: (any Error)? = nil, userInfo extra: [String: Any] = [:]
    ) {
        self.code = code
        var info = extra
        info[NSLocalizedDescriptionKey] = message ?? code.defaultDescription
        info[AuthErrorUserInfoNameKey] = code.userInfoName
        if let underlying { info[NSUnderlyingErrorKey] = underlying }
        self.userInfo = info
    }

    /// The error with the code of raw value `rawValue` (an `NSError` code in
    /// domain `FIRAuthErrorDomain`) and its default description; nil for a
    /// raw value that is no code. FirebaseAuth 11's spelling.
    public init?(rawValue: Int) {
        guard let code = Code(rawValue: rawValue) else { return nil }
        self.init(code)
    }

    /// This error as an `AuthErrorCode`, when `error` is one or an `NSError`
    /// of domain `FIRAuthErrorDomain` with a known code.
    init?(bridging error: NSError) {
        guard error.domain == Self.errorDomain, let code = Code(rawValue: error.code) else { return nil }
        var info = error.userInfo
        info[NSLocalizedDescriptionKey] = info[NSLocalizedDescriptionKey] ?? code.defaultDescription
        info[AuthErrors.userInfoNameKey] = info[AuthErrors.userInfoNameKey] ?? code.userInfoName
        self.code = code
        self.userInfo = info
    }

    /// The numeric code, as `NSError.code` reports it.
    public var rawValue: Int { code.rawValue }

    /// Errors are equal when their codes are: `error == .networkError`.
    public static func == (lhs: AuthErrorCode, rhs: AuthErrorCode) -> Bool { lhs.code == rhs.code }
    /// `error == .networkError`, where `.networkError` is a ``Code-swift.enum``.
    public static func == (lhs: AuthErrorCode, rhs: Code) -> Bool { lhs.code == rhs }

    /// The `NSError` code, in domain ``errorDomain``.
    public var errorCode: Int { code.rawValue }
    /// The `NSError` user info: the description, the name key, and the
    /// resolver, email or underlying error where they apply.
    public var errorUserInfo: [String: Any] { userInfo }

    /// The localized description.
    public var message: String { userInfo[NSLocalizedDescriptionKey] as? String ?? code.defaultDescription }

    /// The name, number and message, such as `ERROR_WRONG_PASSWORD (17009): …`.
    public var description: String { "\(code.userInfoName) (\(code.rawValue)): \(message)" }
}

/// `catch AuthErrorCode.wrongPassword` and `case AuthErrorCode.wrongPassword:`
/// on any error: true when `value` is an ``AuthErrorCode`` (or its `NSError`)
/// with code `pattern`.
public func ~= (pattern: AuthErrorCode.Code, value: any Error) -> Bool {
    AuthErrorCode.from(value)?.code == pattern
}

/// `AuthErrorCode(rawValue: n) == .networkError`.
public func == (lhs: AuthErrorCode?, rhs: AuthErrorCode.Code) -> Bool { lhs?.code == rhs }

/// `switch AuthErrorCode(rawValue: n) { case .secondFactorRequired: … }`.
public func ~= (pattern: AuthErrorCode.Code, value: AuthErrorCode?) -> Bool {
    value?.code == pattern
}

extension AuthErrorCode {
    /// `error` as an `AuthErrorCode`, whether it was thrown as one or
    /// arrives as its `NSError` (from Objective-C-style code or a bridge).
    static func from(_ error: any Error) -> AuthErrorCode? {
        if let auth = error as? AuthErrorCode { return auth }
        #if canImport(ObjectiveC)
        return AuthErrorCode(bridging: error as NSError)
        #else
        return nil // On Linux the cast above bridges an NSError of the domain too.
        #endif
    }
}

#if !canImport(ObjectiveC)
/// On Apple platforms every Swift error bridges to `NSError`; on Linux only a
/// type that says how does. This is how `catch let error as NSError` and
/// `(error as NSError).code` see an ``AuthErrorCode`` (domain, code and
/// user info) there, and how an `NSError` of domain `FIRAuthErrorDomain`
/// casts back with `as? AuthErrorCode`.
extension AuthErrorCode: _ObjectiveCBridgeable {
    public typealias _ObjectiveCType = NSError

    public func _bridgeToObjectiveC() -> NSError {
        NSError(domain: Self.errorDomain, code: code.rawValue, userInfo: userInfo)
    }

    public static func _forceBridgeFromObjectiveC(_ source: NSError, result: inout AuthErrorCode?) {
        result = _unconditionallyBridgeFromObjectiveC(source)
    }

    public static func _conditionallyBridgeFromObjectiveC(_ source: NSError, result: inout AuthErrorCode?) -> Bool {
        result = AuthErrorCode(bridging: source)
        return result != nil
    }

    /// An `NSError` of another domain (or none) becomes an `internalError`
    /// that keeps it as the underlying error, rather than a crash.
    public static func _unconditionallyBridgeFromObjectiveC(_ source: NSError?) -> AuthErrorCode {
        guard let source else { return AuthErrorCode(.internalError) }
        return AuthErrorCode(bridging: source) ?? AuthErrorCode(.internalError, underlying: source)
    }
}
#endif

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
            return AuthErrorCode(
                .internalError, message: "An internal error has occurred: \(type(of: error)).", underlying: error)
        }
        if let server = failure.serverError {
            let code =
                AuthErrorCode.Code(serverCode: server.shortCode)
                ?? server.reasons.lazy.compactMap(AuthErrorCode.Code.forServerReason).first
                ?? (server.status == 429 ? .tooManyRequests : .unknownServerCode)
            let (message, extra) = placeDetail(of: server, for: code)
            return AuthErrorCode(code, message: message, underlying: failure, userInfo: extra)
        }
        switch failure.code {
        case .transport:
            return AuthErrorCode(.transportFailure, underlying: failure.underlyingError ?? failure)
        case .undecodableResponse:
            return AuthErrorCode(
                .undecodableResponse, message: "The server's response could not be decoded.",
                underlying: failure.underlyingError ?? failure)
        case .accessTokenUnavailable:
            return AuthErrorCode(.internalError, underlying: failure.underlyingError ?? failure)
        default:
            return AuthErrorCode(
                .internalError, message: "The request could not be built (\(failure)).", underlying: failure)
        }
    }

    /// Where the server's detail (the text after `SHORT_CODE : `) goes, as
    /// FirebaseAuth puts it: the description for most codes; the failure
    /// reason for `weakPassword` (the description stays the default); nowhere
    /// for `emailAlreadyInUse`; the blocking function's own message for
    /// `blockingCloudFunctionError`. An empty detail is no detail.
    static func placeDetail(of server: ServerError, for code: AuthErrorCode.Code) -> (
        message: String?, userInfo: [String: Any]
    ) {
        let detail = server.detail.flatMap { $0.isEmpty ? nil : $0 }
        switch code {
        case .weakPassword:
            return (nil, detail.map { [NSLocalizedFailureReasonErrorKey: $0] } ?? [:])
        case .emailAlreadyInUse:
            return (nil, [:])
        case .blockingCloudFunctionError:
            return (detail.flatMap(blockingFunctionMessage), [:])
        case .unknownServerCode where AuthErrorCode.Code(serverCode: server.shortCode) == nil:
            // An unknown code keeps the server's short code (such as HTTP_503) in the message.
            return ("\(code.defaultDescription) (\(server.shortCode)\(detail.map { ": \($0)" } ?? ""))", [:])
        default:
            return (detail, [:])
        }
    }

    /// The message of the JSON a blocking function answered, which the
    /// server embeds in its detail (``BlockingFunctionErrorBody``); the
    /// whole detail when it holds no such JSON, nil when the JSON has no message.
    static func blockingFunctionMessage(_ detail: String) -> String? {
        guard let open = detail.firstIndex(of: "{"), let close = detail.lastIndex(of: "}"), open < close,
            let body = try? JSONDecoder().decode(BlockingFunctionErrorBody.self, from: Data(detail[open...close].utf8))
        else { return detail }
        return body.error?.message
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

/// Where MultiFactorAuth's completion handlers run: see `CompletionDelivery` in IdentityToolkit.
public typealias AuthCompletionDelivery = CompletionDelivery
