import Foundation
import IdentityOTP
import IdentityToolkit

// What creating or updating a user takes (firebase-admin's CreateRequest and UpdateRequest).

/// The fields of a new account; nil leaves a field unset.
public struct CreateUserRequest: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The uid, 1 to 128 characters; the server picks one when nil.
    public var uid: String?
    /// The email address; nil lets the server create the account without one.
    public var email: String?
    /// Whether the email address is verified (false when nil).
    public var emailVerified: Bool?
    /// At least 6 characters. Never shown in `description` or `dump`.
    public var password: String?
    /// The display name.
    public var displayName: String?
    /// Whether the account starts disabled (false when nil).
    public var disabled: Bool?

    /// A request; every field is optional.
    public init(
        uid: String? = nil, email: String? = nil, emailVerified: Bool? = nil, password: String? = nil,
        displayName: String? = nil, disabled: Bool? = nil
    ) {
        self.uid = uid
        self.email = email
        self.emailVerified = emailVerified
        self.password = password
        self.displayName = displayName
        self.disabled = disabled
    }

    /// The fields, with the password redacted.
    public var description: String {
        "CreateUserRequest(uid: \(uid.map { "\"\($0)\"" } ?? "nil"), email: \(email.map { "\"\($0)\"" } ?? "nil"), password: \(password == nil ? "nil" : "<redacted>"))"
    }

    /// The same as `description`: the password redacted.
    public var debugDescription: String { description }

    /// The fields for `dump`, with the password redacted.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "uid": uid as Any, "email": email as Any, "emailVerified": emailVerified as Any,
                "password": (password == nil ? "nil" : "<redacted>") as Any, "displayName": displayName as Any,
                "disabled": disabled as Any,
            ])
    }
}

/// The fields of an account update; nil leaves a field as it is.
public struct UpdateUserRequest: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// A new email address (it becomes unverified unless `emailVerified` says otherwise).
    public var email: String?
    /// Marks the email address verified or not.
    public var emailVerified: Bool?
    /// A new password, at least 6 characters. Never shown in `description` or `dump`.
    public var password: String?
    /// A new display name.
    public var displayName: String?
    /// Disables (true) or enables (false) the account.
    public var disabled: Bool?
    /// The factors that stay enrolled: a subset of the user's (by uid), or
    /// `[]` to remove them all (a lost authenticator). nil leaves them.
    public var enrolledFactors: [EnrolledFactor]?

    /// An update; nil fields are left as they are.
    public init(
        email: String? = nil, emailVerified: Bool? = nil, password: String? = nil, displayName: String? = nil,
        disabled: Bool? = nil, enrolledFactors: [EnrolledFactor]? = nil
    ) {
        self.email = email
        self.emailVerified = emailVerified
        self.password = password
        self.displayName = displayName
        self.disabled = disabled
        self.enrolledFactors = enrolledFactors
    }

    /// The fields, with the password redacted.
    public var description: String {
        "UpdateUserRequest(email: \(email.map { "\"\($0)\"" } ?? "nil"), password: \(password == nil ? "nil" : "<redacted>"), "
            + "disabled: \(disabled.map(String.init) ?? "nil"), enrolledFactors: \(enrolledFactors.map { "\($0.count)" } ?? "nil"))"
    }

    /// The same as `description`: the password redacted.
    public var debugDescription: String { description }

    /// The fields for `dump`, with the password redacted.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "email": email as Any, "emailVerified": emailVerified as Any,
                "password": (password == nil ? "nil" : "<redacted>") as Any, "displayName": displayName as Any,
                "disabled": disabled as Any, "enrolledFactors": enrolledFactors as Any,
            ])
    }
}
