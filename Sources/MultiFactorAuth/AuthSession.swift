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
        public var uid: String
        public var displayName: String?
        public var enrollmentDate: Date
        public var factorID: String
        public var phoneNumber: String?

        public init(uid: String, displayName: String?, enrollmentDate: Date, factorID: String, phoneNumber: String?) {
            self.uid = uid
            self.displayName = displayName
            self.enrollmentDate = enrollmentDate
            self.factorID = factorID
            self.phoneNumber = phoneNumber
        }
    }

    public var uid: String
    public var email: String?
    public var displayName: String?
    public var isEmailVerified: Bool
    public var isAnonymous: Bool
    public var tenantID: String?
    public var idToken: String
    public var refreshToken: String
    /// When the ID token expires.
    public var idTokenExpiration: Date
    public var factors: [Factor]

    public init(uid: String, email: String?, displayName: String?, isEmailVerified: Bool, isAnonymous: Bool, tenantID: String?,
                idToken: String, refreshToken: String, idTokenExpiration: Date, factors: [Factor]) {
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

    public var description: String {
        "AuthSession(uid: \(uid), email: \(email ?? "nil"), tenantID: \(tenantID ?? "nil"), factors: \(factors.count), tokens: <redacted>)"
    }
}

/// Where an `Auth` keeps its current session, so a server can keep users
/// across requests or processes. Saved after every sign-in, token refresh
/// and change; removed on sign-out.
public protocol AuthSessionStore: Sendable {
    func save(_ session: AuthSession, key: String) async throws
    func load(key: String) async throws -> AuthSession?
    func remove(key: String) async throws
}

/// The default ``AuthSessionStore``: in memory, for this process only.
public actor InMemoryAuthSessionStore: AuthSessionStore {
    private var sessions: [String: AuthSession] = [:]

    public init() {}

    public func save(_ session: AuthSession, key: String) { sessions[key] = session }
    public func load(key: String) -> AuthSession? { sessions[key] }
    public func remove(key: String) { sessions[key] = nil }
}

extension AuthSession: CustomDebugStringConvertible, CustomReflectable {
    /// The same as ``description``: no token.
    public var debugDescription: String { description }

    /// What `dump` and debuggers show: the tokens redacted.
    public var customMirror: Mirror {
        Mirror(self, children: [
            "uid": uid, "email": email as Any, "displayName": displayName as Any, "isEmailVerified": isEmailVerified,
            "isAnonymous": isAnonymous, "tenantID": tenantID as Any, "idToken": RedactedValue(idToken),
            "refreshToken": RedactedValue(refreshToken), "idTokenExpiration": idTokenExpiration, "factors": factors,
        ], displayStyle: .struct)
    }
}
