public import Foundation
import IdentityOTP
public import IdentityToolkit

/// An account, as firebase-admin-node's `UserRecord` shows it: what a
/// support desk needs to help a user who lost an authenticator.
public struct UserRecord: Sendable, Hashable {
    /// The user's id (`localId` on the wire).
    public var uid: String
    /// The user's email address, if any.
    public var email: String?
    /// Whether the email address is verified.
    public var emailVerified: Bool
    /// The user's display name.
    public var displayName: String?
    /// Whether the account is disabled (it cannot sign in or refresh tokens).
    public var disabled: Bool
    /// The user's tenant, if any.
    public var tenantID: String?
    /// Tokens of sign-ins before this time are revoked (`validSince`).
    public var tokensValidAfterTime: Date?
    /// When the account was created and last signed in.
    public var metadata: UserMetadata
    /// The enrolled second factors.
    public var multiFactor: MultiFactorSettings
    /// The custom claims an admin set (``BaseAuth/setCustomUserClaims(_:_:)``),
    /// which the user's ID tokens carry; nil when none.
    public var customClaims: [String: JSONValue]?

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
        customClaims = wire.customAttributes.flatMap {
            try? JSONDecoder().decode([String: JSONValue].self, from: Data($0.utf8))
        }
    }
}

/// When an account was created and last signed in.
public struct UserMetadata: Sendable, Hashable {
    /// When the account was created.
    public var creationTime: Date?
    /// When the user last signed in.
    public var lastSignInTime: Date?

    /// Metadata with these times (to import a user).
    public init(creationTime: Date? = nil, lastSignInTime: Date? = nil) {
        self.creationTime = creationTime
        self.lastSignInTime = lastSignInTime
    }
}

/// A user's second factors.
public struct MultiFactorSettings: Sendable, Hashable {
    /// The factors, in enrollment order.
    public var enrolledFactors: [EnrolledFactor]

    /// Settings with these factors.
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
    /// The name the user gave the factor.
    public var displayName: String?
    /// When the factor was enrolled.
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
        MfaEnrollment(
            mfaEnrollmentId: uid, displayName: displayName, enrolledAt: enrollmentTime, phoneInfo: phoneNumber,
            totpInfo: factorID == SecondFactorID.totp.rawValue ? TotpInfo() : nil)
    }
}

/// One page of users.
public struct ListUsersResult: Sendable, Hashable {
    /// The users of this page, in uid order.
    public var users: [UserRecord]
    /// The token of the next page; nil on the last page.
    public var pageToken: String?
}

/// Every user of a project or tenant, fetched a page at a time as the
/// sequence is iterated (``BaseAuth/allUsers(pageSize:)``).
public struct AllUsers: AsyncSequence, Sendable {
    /// Each user, in uid order.
    public typealias Element = UserRecord

    let auth: BaseAuth
    let pageSize: Int

    /// Fetches the next page when the current one is used up.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let auth: BaseAuth
        let pageSize: Int
        var buffer: [UserRecord] = []
        var pageToken: String?
        var finished = false

        /// The next user, or nil after the last; throws the API's error for a page that fails.
        public mutating func next() async throws -> UserRecord? {
            while buffer.isEmpty {
                guard !finished else { return nil }
                let page = try await auth.listUsers(pageSize: pageSize, pageToken: pageToken)
                buffer = page.users.reversed()
                pageToken = page.pageToken
                finished = page.pageToken == nil
            }
            return buffer.popLast()
        }
    }

    /// An iterator that starts at the first page.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(auth: auth, pageSize: pageSize) }
}

extension BaseAuth {
    /// The account with `uid`.
    /// - Throws: ``AdminError`` with ``AdminError/Code/userNotFound``, or the API's error.
    public func getUser(uid: String) async throws -> UserRecord {
        try await lookUp(GetAccountInfoRequest(localId: [uid], tenantId: tenantID), identifier: uid)
    }

    /// The account with `email`.
    /// - Throws: ``AdminError`` with ``AdminError/Code/userNotFound``, or the API's error.
    public func getUser(email: String) async throws -> UserRecord {
        try await lookUp(GetAccountInfoRequest(email: [email], tenantId: tenantID), identifier: email)
    }

    private func lookUp(_ request: GetAccountInfoRequest, identifier: String) async throws -> UserRecord {
        // An unknown account is the absence of `users`, not an error.
        guard let user = try await client.lookupAccounts(targetProjectId: projectID, body: request).users?.first else {
            throw AdminError(.userNotFound, detail: "no user with uid or email \"\(identifier.prefix(256))\"")
        }
        return UserRecord(user)
    }

    /// The most users one page holds.
    public static var maximumUsersPageSize: Int { IdentityPlatformLimits.maximumPageSize }

    /// One page of users, in uid order.
    /// - Parameters:
    ///   - pageSize: At most this many, 1 to 1000.
    ///   - pageToken: The previous page's ``ListUsersResult/pageToken``; nil for the first page.
    public func listUsers(pageSize: Int = maximumUsersPageSize, pageToken: String? = nil) async throws
        -> ListUsersResult
    {
        guard (1...Self.maximumUsersPageSize).contains(pageSize) else {
            throw AdminValidationError(field: "pageSize", message: "must be 1 to \(Self.maximumUsersPageSize)")
        }
        if let pageToken, pageToken.isEmpty {
            throw AdminValidationError(field: "pageToken", message: "must not be empty")
        }
        let page = try await client.batchGetAccounts(
            targetProjectId: projectID, maxResults: Int32(pageSize), nextPageToken: pageToken, tenantId: tenantID)
        return ListUsersResult(
            users: (page.users ?? []).map(UserRecord.init),
            pageToken: page.nextPageToken.flatMap { $0.isEmpty ? nil : $0 })
    }

    /// Every user, fetched `pageSize` at a time as the sequence is iterated.
    ///
    /// ```swift
    /// for try await user in admin.allUsers() where !user.multiFactor.enrolledFactors.isEmpty { … }
    /// ```
    public func allUsers(pageSize: Int = maximumUsersPageSize) -> AllUsers { AllUsers(auth: self, pageSize: pageSize) }

    /// Creates an account and returns it.
    /// - Throws: The server's error (`EMAIL_EXISTS`, `DUPLICATE_LOCAL_ID`,
    ///   `INVALID_EMAIL`, `WEAK_PASSWORD`, …) as `IdentityToolkitError`.
    public func createUser(_ request: CreateUserRequest) async throws -> UserRecord {
        let created = try await client.createAccount(
            targetProjectId: projectID,
            body: SignUpRequest(
                email: request.email, password: request.password, displayName: request.displayName, tenantId: tenantID,
                localId: request.uid, emailVerified: request.emailVerified, disabled: request.disabled))
        return try await getUser(uid: created.localId)
    }

    /// Updates the account `uid` and returns it as it now is. To help a user
    /// who lost an authenticator, remove the factor (`enrolledFactors` without
    /// it, or `[]`) and end the user's sessions with ``revokeRefreshTokens(uid:now:)``.
    ///
    /// When `enrolledFactors` is set, the account is read first, and each
    /// factor withdrawn or added is recorded as a `SecurityEvent`
    /// (initiated by an administrator) in `SecurityEventSystem`.
    public func updateUser(_ uid: String, _ request: UpdateUserRequest) async throws -> UserRecord {
        try await updateUser(uid, request, initiatedBy: .admin, now: Date())
    }

    /// ``updateUser(_:_:)`` on behalf of `initiator`, its events dated `now`.
    func updateUser(
        _ uid: String, _ request: UpdateUserRequest, initiatedBy initiator: SecurityEvent.Initiator, now: Date
    ) async throws -> UserRecord {
        defer { forgetCachedAccountState(uid: uid) }
        let before = request.enrolledFactors == nil ? nil : try await getUser(uid: uid).multiFactor.enrolledFactors
        _ = try await client.updateAccount(
            targetProjectId: projectID,
            body: SetAccountInfoRequest(
                email: request.email, password: request.password, displayName: request.displayName, tenantId: tenantID,
                localId: uid,
                emailVerified: request.emailVerified, disableUser: request.disabled,
                mfa: request.enrolledFactors.map { MfaInfo(enrollments: $0.map(\.wire)) }))
        let after = try await getUser(uid: uid)
        if let before {
            await recordFactorChanges(
                of: uid, from: before, to: after.multiFactor.enrolledFactors, initiatedBy: initiator, now: now)
        }
        return after
    }

    /// One event per factor withdrawn and per factor added between `before` and `after`.
    private func recordFactorChanges(
        of uid: String, from before: [EnrolledFactor], to after: [EnrolledFactor],
        initiatedBy initiator: SecurityEvent.Initiator, now: Date
    ) async {
        let kept = Set(after.map(\.uid))
        for factor in before where !kept.contains(factor.uid) {
            await SecurityEventSystem.record(
                SecurityEvent(
                    .factorWithdrawn, user: userKey(uid), date: now, initiatedBy: initiator,
                    factorID: factor.uid, factorKind: factor.factorID))
        }
        let had = Set(before.map(\.uid))
        for factor in after where !had.contains(factor.uid) {
            await SecurityEventSystem.record(
                SecurityEvent(
                    .factorEnrolled, user: userKey(uid), date: now, initiatedBy: initiator,
                    factorID: factor.uid, factorKind: factor.factorID))
        }
    }

    /// Deletes the account `uid`.
    /// - Throws: The server's `USER_NOT_FOUND` as `IdentityToolkitError` when there is none.
    public func deleteUser(uid: String) async throws {
        defer { forgetCachedAccountState(uid: uid) }
        _ = try await client.deleteAccount(
            targetProjectId: projectID, body: DeleteAccountRequest(localId: uid, tenantId: tenantID))
    }

    /// Sets the custom claims that the user's next ID tokens carry (roles,
    /// plans); nil or an empty object removes them. Checked before sending as
    /// the server checks them: at most 1000 characters of JSON, none of the
    /// token's own claims (`ReservedClaimName` of IdentityToolkit).
    public func setCustomUserClaims(_ uid: String, _ claims: [String: JSONValue]?) async throws {
        let text = try CustomClaimsRule.text(of: claims ?? [:], field: "customClaims")
        _ = try await client.updateAccount(
            targetProjectId: projectID,
            body: SetAccountInfoRequest(
                tenantId: tenantID, localId: uid, customAttributes: text))
    }

    /// The longest custom claims, as JSON text.
    public static var maximumCustomClaimsLength: Int { IdentityPlatformLimits.maximumCustomClaimsLength }
}
