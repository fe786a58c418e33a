import Foundation
public import IdentityToolkit

/// What a blocking function decides: let the attempt go on (changing the
/// user, if asked), or refuse it with a status and a message the user sees.
public struct BlockingFunctionDecision: Sendable, Hashable {
    enum Verdict: Sendable, Hashable {
        case allow(BlockingFunctionUpdate?)
        case deny(BlockingFunctionDenial)
    }

    let verdict: Verdict

    /// Let the attempt go on unchanged.
    public static let allow = BlockingFunctionDecision(verdict: .allow(nil))

    /// Let the attempt go on with the user changed as `update` says.
    public static func allow(updating update: BlockingFunctionUpdate) -> BlockingFunctionDecision {
        BlockingFunctionDecision(verdict: .allow(update))
    }

    /// Refuse the attempt: the client gets `BLOCKING_FUNCTION_ERROR_RESPONSE`
    /// with `message`, and nothing is created or signed in.
    /// - Parameters:
    ///   - status: The error's canonical status (`permissionDenied` by default).
    ///   - message: What the user is told: no secret, it leaves the server.
    public static func deny(status: BlockingFunctionDenial.Status = .permissionDenied, message: String)
        -> BlockingFunctionDecision
    {
        BlockingFunctionDecision(verdict: .deny(BlockingFunctionDenial(status: status, message: message)))
    }
}

/// The changes a blocking function makes to the user. Only the fields set
/// are sent (their names make the response's `updateMask`).
public struct BlockingFunctionUpdate: Sendable, Hashable {
    /// A new display name.
    public var displayName: String?
    /// A new photo URL.
    public var photoURL: String?
    /// Disable the account (the attempt then fails with `USER_DISABLED`).
    public var disabled: Bool?
    /// Mark the address verified (or not).
    public var emailVerified: Bool?
    /// New custom claims, kept: every later ID token carries them. At most
    /// 1000 characters of JSON, none of a token's own claims.
    public var customClaims: [String: JSONValue]?
    /// Claims for this sign-in's ID token only (`beforeSignIn`); the same
    /// limits, and with ``customClaims`` at most 1000 characters together.
    public var sessionClaims: [String: JSONValue]?

    /// An update of the fields given.
    public init(
        displayName: String? = nil, photoURL: String? = nil, disabled: Bool? = nil, emailVerified: Bool? = nil,
        customClaims: [String: JSONValue]? = nil, sessionClaims: [String: JSONValue]? = nil
    ) {
        self.displayName = displayName
        self.photoURL = photoURL
        self.disabled = disabled
        self.emailVerified = emailVerified
        self.customClaims = customClaims
        self.sessionClaims = sessionClaims
    }

    /// The response's user record: the fields set, named in `updateMask`
    /// in firebase-functions' order.
    func wire() -> BlockingUserRecordUpdate? {
        var mask: [String] = []
        if displayName != nil { mask.append(BlockingUserRecordUpdate.FieldPath.displayName) }
        if photoURL != nil { mask.append(BlockingUserRecordUpdate.FieldPath.photoURL) }
        if disabled != nil { mask.append(BlockingUserRecordUpdate.FieldPath.disabled) }
        if emailVerified != nil { mask.append(BlockingUserRecordUpdate.FieldPath.emailVerified) }
        if customClaims != nil { mask.append(BlockingUserRecordUpdate.FieldPath.customClaims) }
        if sessionClaims != nil { mask.append(BlockingUserRecordUpdate.FieldPath.sessionClaims) }
        guard !mask.isEmpty else { return nil }
        return BlockingUserRecordUpdate(
            updateMask: mask.joined(separator: ","), displayName: displayName, photoURL: photoURL, disabled: disabled,
            emailVerified: emailVerified, customClaims: customClaims,
            sessionClaims: sessionClaims)
    }
}

/// A blocking function's refusal.
public struct BlockingFunctionDenial: Sendable, Hashable {
    /// The canonical statuses a function may answer with, and their HTTP
    /// codes (firebase-functions' `HttpsError`).
    public struct Status: Sendable, Hashable, CustomStringConvertible {
        /// The canonical name, such as `PERMISSION_DENIED`.
        public let name: String
        /// The HTTP status it is answered with.
        public let httpStatus: Int

        /// `INVALID_ARGUMENT`, 400.
        public static let invalidArgument = Status(name: "INVALID_ARGUMENT", httpStatus: 400)
        /// `FAILED_PRECONDITION`, 400.
        public static let failedPrecondition = Status(name: "FAILED_PRECONDITION", httpStatus: 400)
        /// `UNAUTHENTICATED`, 401.
        public static let unauthenticated = Status(name: "UNAUTHENTICATED", httpStatus: 401)
        /// `PERMISSION_DENIED`, 403.
        public static let permissionDenied = Status(name: "PERMISSION_DENIED", httpStatus: 403)
        /// `NOT_FOUND`, 404.
        public static let notFound = Status(name: "NOT_FOUND", httpStatus: 404)
        /// `ALREADY_EXISTS`, 409.
        public static let alreadyExists = Status(name: "ALREADY_EXISTS", httpStatus: 409)
        /// `RESOURCE_EXHAUSTED`, 429.
        public static let resourceExhausted = Status(name: "RESOURCE_EXHAUSTED", httpStatus: 429)
        /// `INTERNAL`, 500.
        public static let `internal` = Status(name: "INTERNAL", httpStatus: 500)
        /// `UNAVAILABLE`, 503.
        public static let unavailable = Status(name: "UNAVAILABLE", httpStatus: 503)
        /// `DEADLINE_EXCEEDED`, 504.
        public static let deadlineExceeded = Status(name: "DEADLINE_EXCEEDED", httpStatus: 504)

        /// The canonical name.
        public var description: String { name }
    }

    /// The status.
    public let status: Status
    /// What the user is told.
    public let message: String
}
