public import Foundation
import IdentityToolkit

/// An account, as firebase-admin-node's `UserRecord` shows it: what a
/// support desk needs to help a user who lost an authenticator.
public struct UserRecord: Sendable, Hashable {
    public var uid: String
    public var email: String?
    public var emailVerified: Bool
    public var displayName: String?
    public var disabled: Bool
    /// The user's tenant, if any.
    public var tenantID: String?
    /// Tokens of sign-ins before this time are revoked (`validSince`).
    public var tokensValidAfterTime: Date?
    public var metadata: UserMetadata
    public var multiFactor: MultiFactorSettings

    init(_ wire: UserInfo) {
        uid = wire.localId
        email = wire.email
        emailVerified = wire.emailVerified ?? false
        displayName = wire.displayName
        disabled = wire.disabled ?? false
        tenantID = wire.tenantId
        tokensValidAfterTime = wire.validSince.map { Date(timeIntervalSince1970: TimeInterval($0)) }
        metadata = UserMetadata(
            creationTime: wire.createdAt.map { Date(timeIntervalSince1970: TimeInterval($0) / 1000) },
            lastSignInTime: wire.lastLoginAt.map { Date(timeIntervalSince1970: TimeInterval($0) / 1000) })
        multiFactor = MultiFactorSettings(enrolledFactors: (wire.mfaInfo ?? []).map(EnrolledFactor.init))
    }
}

/// When an account was created and last signed in.
public struct UserMetadata: Sendable, Hashable {
    public var creationTime: Date?
    public var lastSignInTime: Date?
}

/// A user's second factors.
public struct MultiFactorSettings: Sendable, Hashable {
    public var enrolledFactors: [EnrolledFactor]

    public init(enrolledFactors: [EnrolledFactor]) {
        self.enrolledFactors = enrolledFactors
    }
}

/// One enrolled second factor (firebase-admin's `MultiFactorInfo`).
public struct EnrolledFactor: Sendable, Hashable {
    /// The factor's uid (its enrollment id).
    public var uid: String
    /// `totp` or `phone`.
    public var factorID: String
    public var displayName: String?
    public var enrollmentTime: Date?
    /// The phone number of a phone factor.
    public var phoneNumber: String?

    init(_ wire: MfaEnrollment) {
        uid = wire.mfaEnrollmentId ?? ""
        factorID = (wire.totpInfo != nil ? SecondFactorID.totp : SecondFactorID.phone).rawValue
        displayName = wire.displayName
        enrollmentTime = wire.enrolledAt
        phoneNumber = wire.phoneInfo
    }

    var wire: MfaEnrollment {
        MfaEnrollment(mfaEnrollmentId: uid, displayName: displayName, enrolledAt: enrollmentTime, phoneInfo: phoneNumber,
                      totpInfo: factorID == SecondFactorID.totp.rawValue ? TotpInfo() : nil)
    }
}

/// The fields of an account update; nil leaves a field as it is.
public struct UpdateUserRequest: Sendable, Hashable {
    public var email: String?
    public var emailVerified: Bool?
    public var displayName: String?
    public var disabled: Bool?
    /// The factors that stay enrolled: a subset of the user's (by uid), or
    /// `[]` to remove them all (a lost authenticator). nil leaves them.
    public var enrolledFactors: [EnrolledFactor]?

    public init(email: String? = nil, emailVerified: Bool? = nil, displayName: String? = nil, disabled: Bool? = nil,
                enrolledFactors: [EnrolledFactor]? = nil) {
        self.email = email
        self.emailVerified = emailVerified
        self.displayName = displayName
        self.disabled = disabled
        self.enrolledFactors = enrolledFactors
    }
}

/// A user the admin API does not find.
public enum UserManagementError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No account has this uid or email (firebase-admin's `auth/user-not-found`).
    case userNotFound(String)

    public var description: String {
        switch self {
        case .userNotFound(let identifier): return "no user with uid or email \"\(identifier.prefix(256))\""
        }
    }
}

extension IdentityAdmin {
    /// The account with `uid`, in the project or `tenantID`.
    /// - Throws: ``UserManagementError/userNotFound(_:)``, or the API's error.
    public func getUser(uid: String, tenantID: String? = nil) async throws -> UserRecord {
        try await lookUp(GetAccountInfoRequest(localId: [uid], tenantId: tenantID), identifier: uid)
    }

    /// The account with `email`, in the project or `tenantID`.
    /// - Throws: ``UserManagementError/userNotFound(_:)``, or the API's error.
    public func getUser(email: String, tenantID: String? = nil) async throws -> UserRecord {
        try await lookUp(GetAccountInfoRequest(email: [email], tenantId: tenantID), identifier: email)
    }

    private func lookUp(_ request: GetAccountInfoRequest, identifier: String) async throws -> UserRecord {
        // An unknown account is the absence of `users`, not an error.
        guard let user = try await client.lookupAccounts(targetProjectId: projectID, body: request).users?.first else {
            throw UserManagementError.userNotFound(identifier)
        }
        return UserRecord(user)
    }

    /// Updates the account `uid` and returns it as it now is. To help a user
    /// who lost an authenticator, remove the factor (`enrolledFactors` without
    /// it, or `[]`) and end the user's sessions with ``revokeRefreshTokens(uid:tenantID:now:)``.
    public func updateUser(uid: String, tenantID: String? = nil, _ request: UpdateUserRequest) async throws -> UserRecord {
        _ = try await client.updateAccount(targetProjectId: projectID, body: SetAccountInfoRequest(
            email: request.email, displayName: request.displayName, tenantId: tenantID, localId: uid,
            emailVerified: request.emailVerified, disableUser: request.disabled,
            mfa: request.enrolledFactors.map { MfaInfo(enrollments: $0.map(\.wire)) }))
        return try await getUser(uid: uid, tenantID: tenantID)
    }
}
