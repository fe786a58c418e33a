public import Foundation
import IdentityToolkit

/// A signed-in user's state, to keep users across requests in a server:
/// `Auth.currentSession()` exports it, `Auth.restore(_:)` brings it back.
///
/// It holds the ID and refresh tokens: store it as a secret. Its
/// `description` shows neither.
public struct AuthSession: Codable, Sendable, Hashable, CustomStringConvertible {
    /// An enrolled second factor.
    public struct Factor: Codable, Sendable, Hashable {
        /// The factor's enrollment ID.
        public var uid: String
        /// The name the user gave it.
        public var displayName: String?
        /// When it was enrolled.
        public var enrollmentDate: Date
        /// `"totp"` or `"phone"`.
        public var factorID: String
        /// The phone number of a phone factor, masked as the server sends it.
        public var phoneNumber: String?

        /// A factor with every property given.
        public init(uid: String, displayName: String?, enrollmentDate: Date, factorID: String, phoneNumber: String?) {
            self.uid = uid
            self.displayName = displayName
            self.enrollmentDate = enrollmentDate
            self.factorID = factorID
            self.phoneNumber = phoneNumber
        }
    }

    /// The user's ID.
    public var uid: String
    /// The user's email address, if any.
    public var email: String?
    /// The user's display name, if any.
    public var displayName: String?
    /// Whether the email address is verified.
    public var isEmailVerified: Bool
    /// Whether the user signed in anonymously.
    public var isAnonymous: Bool
    /// The tenant the user belongs to, if any.
    public var tenantID: String?
    /// The ID token (a secret).
    public var idToken: String
    /// The refresh token (a secret).
    public var refreshToken: String
    /// When the ID token expires.
    public var idTokenExpiration: Date
    /// The user's enrolled second factors.
    public var factors: [Factor]

    /// A session with every property given.
    public init(
        uid: String, email: String?, displayName: String?, isEmailVerified: Bool, isAnonymous: Bool, tenantID: String?,
        idToken: String, refreshToken: String, idTokenExpiration: Date, factors: [Factor]
    ) {
        self.uid = uid
        self.email = email
        self.displayName = displayName
        self.isEmailVerified = isEmailVerified
        self.isAnonymous = isAnonymous
        self.tenantID = tenantID
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.idTokenExpiration = idTokenExpiration
        self.factors = factors
    }

    /// The user and the number of factors; never a token.
    public var description: String {
        "AuthSession(uid: \(uid), email: \(email ?? "nil"), tenantID: \(tenantID ?? "nil"), factors: \(factors.count), tokens: <redacted>)"
    }
}

/// Where an `Auth` keeps its current session, so a server can keep users
/// across requests or processes. Saved after every sign-in, token refresh
/// and change; removed on sign-out.
public protocol AuthSessionStore: Sendable {
    /// Saves `session` under `key` (one key per app and tenant), replacing any earlier one.
    func save(_ session: AuthSession, key: String) async throws
    /// The session saved under `key`, or nil.
    func load(key: String) async throws -> AuthSession?
    /// Forgets the session saved under `key`.
    func remove(key: String) async throws
}

extension AuthSession: CustomDebugStringConvertible, CustomReflectable {
    /// The same as ``description``: no token.
    public var debugDescription: String { description }

    /// What `dump` and debuggers show: the tokens redacted.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "uid": uid, "email": email as Any, "displayName": displayName as Any,
                "isEmailVerified": isEmailVerified,
                "isAnonymous": isAnonymous, "tenantID": tenantID as Any, "idToken": RedactedValue(idToken),
                "refreshToken": RedactedValue(refreshToken), "idTokenExpiration": idTokenExpiration, "factors": factors,
            ], displayStyle: .struct)
    }
}
