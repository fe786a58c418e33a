public import Foundation
import IdentitySupport
public import IdentityToolkit

/// An account to import with ``BaseAuth/importUsers(_:options:)``
/// (firebase-admin's `UserImportRecord`): a user moved from another
/// system, with the password hash it had there.
public struct UserImportRecord: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The uid to give the account, 1 to 128 characters.
    public var uid: String
    /// The email address.
    public var email: String?
    /// Whether the address is verified (a second factor needs a verified one).
    public var emailVerified: Bool?
    /// The display name.
    public var displayName: String?
    /// The photo URL.
    public var photoURL: String?
    /// The phone number of phone sign-in (E.164).
    public var phoneNumber: String?
    /// Whether the account starts disabled.
    public var disabled: Bool?
    /// When the account was created and last signed in elsewhere.
    public var metadata: UserMetadata?
    /// Identity providers to link (Google, Apple, …), by their user id.
    public var providerData: [UserProviderInfo]
    /// Custom claims for the user's ID tokens.
    public var customClaims: [String: JSONValue]?
    /// The password's hash under ``UserImportOptions/hash``.
    public var passwordHash: Data?
    /// The hash's salt.
    public var passwordSalt: Data?
    /// Phone second factors to enroll (production imports no TOTP factor:
    /// users enroll one after the import).
    public var phoneFactors: [PhoneFactorImport]

    /// A record with the uid; the other fields are set as needed.
    public init(
        uid: String, email: String? = nil, emailVerified: Bool? = nil, displayName: String? = nil,
        photoURL: String? = nil,
        phoneNumber: String? = nil, disabled: Bool? = nil, metadata: UserMetadata? = nil,
        providerData: [UserProviderInfo] = [],
        customClaims: [String: JSONValue]? = nil, passwordHash: Data? = nil, passwordSalt: Data? = nil,
        phoneFactors: [PhoneFactorImport] = []
    ) {
        self.uid = uid
        self.email = email
        self.emailVerified = emailVerified
        self.displayName = displayName
        self.photoURL = photoURL
        self.phoneNumber = phoneNumber
        self.disabled = disabled
        self.metadata = metadata
        self.providerData = providerData
        self.customClaims = customClaims
        self.passwordHash = passwordHash
        self.passwordSalt = passwordSalt
        self.phoneFactors = phoneFactors
    }

    /// The uid and whether a hash is set; never the hash or the salt.
    public var description: String {
        "UserImportRecord(uid: \(uid), email: \(email ?? "nil"), passwordHash: \(passwordHash == nil ? "nil" : "<redacted>"))"
    }

    /// As ``description``.
    public var debugDescription: String { description }

    /// A mirror without the hash and the salt, so `dump` and debuggers do not show them.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: ["uid": uid, "email": email as Any, "passwordHash": passwordHash == nil ? "nil" : "<redacted>"])
    }
}

/// An identity provider's account linked to an imported user.
public struct UserProviderInfo: Sendable, Hashable {
    /// The provider, such as `google.com`.
    public var providerID: String
    /// The user's id at the provider.
    public var uid: String
    /// The address the provider gave.
    public var email: String?
    /// The name the provider gave.
    public var displayName: String?
    /// The photo the provider gave.
    public var photoURL: String?

    /// A linked provider account.
    public init(
        providerID: String, uid: String, email: String? = nil, displayName: String? = nil, photoURL: String? = nil
    ) {
        self.providerID = providerID
        self.uid = uid
        self.email = email
        self.displayName = displayName
        self.photoURL = photoURL
    }
}

/// A phone second factor of an imported user.
public struct PhoneFactorImport: Sendable, Hashable {
    /// The enrollment id; nil lets the server pick one.
    public var uid: String?
    /// The number (E.164).
    public var phoneNumber: String
    /// The name the user gave the factor.
    public var displayName: String?
    /// When it was enrolled.
    public var enrollmentTime: Date?

    /// A phone factor.
    public init(phoneNumber: String, displayName: String? = nil, uid: String? = nil, enrollmentTime: Date? = nil) {
        self.phoneNumber = phoneNumber
        self.displayName = displayName
        self.uid = uid
        self.enrollmentTime = enrollmentTime
    }
}

/// Options of ``BaseAuth/importUsers(_:options:)``.
public struct UserImportOptions: Sendable, Hashable {
    /// How the records' `passwordHash` values were made; required when any
    /// record has one.
    public var hash: UserImportHash?

    /// Options with a hash algorithm.
    public init(hash: UserImportHash? = nil) {
        self.hash = hash
    }
}

/// What an import did (firebase-admin's `UserImportResult`): an import is
/// not all or nothing; each refused record is listed with the reason.
public struct UserImportResult: Sendable, Hashable {
    /// Records imported.
    public var successCount: Int
    /// Records refused, here or by the server.
    public var failureCount: Int
    /// The refusals, by position in the records given, in order.
    public var errors: [UserImportFailure]

    /// A result with these counts and refusals.
    public init(successCount: Int, failureCount: Int, errors: [UserImportFailure]) {
        self.successCount = successCount
        self.failureCount = failureCount
        self.errors = errors
    }
}

/// One refused record.
public struct UserImportFailure: Sendable, Hashable, CustomStringConvertible {
    /// Its position in the records given.
    public var index: Int
    /// Why, as the server or the check before sending said it (such as
    /// `email exists in other account in database`).
    public var message: String

    /// A refusal of the record at `index`.
    public init(index: Int, message: String) {
        self.index = index
        self.message = message
    }

    /// `#INDEX: MESSAGE`.
    public var description: String { "#\(index): \(message)" }
}

extension BaseAuth {
    /// The most records one ``importUsers(_:options:)`` takes.
    public static var maximumImportBatch: Int { IdentityPlatformLimits.maximumImportBatch }

    /// Imports up to 1,000 accounts, with their password hashes, linked
    /// providers and phone second factors (`accounts:batchCreate`). A
    /// record the check here or the server refuses is listed in the result
    /// with its index and reason; the others are imported.
    /// - Throws: ``AdminValidationError`` (nothing sent) for more than 1,000
    ///   records, or a record with a hash but no ``UserImportOptions/hash``
    ///   (or a hash option out of range); the server's error for a request
    ///   it refuses whole.
    public func importUsers(_ users: [UserImportRecord], options: UserImportOptions? = nil) async throws
        -> UserImportResult
    {
        guard users.count <= Self.maximumImportBatch else {
            throw AdminValidationError(
                field: "users", message: "must hold at most \(Self.maximumImportBatch) records, not \(users.count)")
        }
        var failures: [UserImportFailure] = []
        var sent: [(index: Int, user: UserInfo)] = []
        for (index, record) in users.enumerated() {
            do {
                sent.append((index, try record.wire(tenantID: tenantID)))
            } catch {
                failures.append(UserImportFailure(index: index, message: error.description))
            }
        }
        var request = UploadAccountRequest(users: sent.map(\.user), tenantId: tenantID)
        if sent.contains(where: { $0.user.passwordHash != nil }) {
            guard let hash = options?.hash else {
                throw AdminValidationError(
                    field: "options.hash", message: "is required when a record has a passwordHash")
            }
            try hash.apply(to: &request)
        }
        if !sent.isEmpty {
            let response = try await client.importAccounts(targetProjectId: projectID, body: request)
            for refusal in response.error ?? [] {
                let position = Int(refusal.index ?? -1)
                guard sent.indices.contains(position) else { continue }
                failures.append(UserImportFailure(index: sent[position].index, message: refusal.message ?? "refused"))
            }
        }
        failures.sort { $0.index < $1.index }
        return UserImportResult(
            successCount: users.count - failures.count, failureCount: failures.count, errors: failures)
    }
}

extension UserImportRecord {
    /// The record on the wire, checked as firebase-admin checks it.
    func wire(tenantID: String?) throws(AdminValidationError) -> UserInfo {
        guard IdentityPlatformLimits.isValidUID(uid) else {
            throw AdminValidationError(
                field: "uid", message: "must be 1 to \(IdentityPlatformLimits.maximumUIDLength) characters")
        }
        if let email, !email.contains("@") {
            throw AdminValidationError(field: "email", message: "must be an email address")
        }
        if let phoneNumber, !IdentityPlatformLimits.isE164PhoneNumber(phoneNumber) {
            throw AdminValidationError(field: "phoneNumber", message: "must be an E.164 number")
        }
        if passwordSalt != nil, passwordHash == nil {
            throw AdminValidationError(field: "passwordSalt", message: "needs a passwordHash")
        }
        var claims: String?
        if let customClaims { claims = try CustomClaimsRule.text(of: customClaims, field: "customClaims") }
        for factor in phoneFactors where !IdentityPlatformLimits.isE164PhoneNumber(factor.phoneNumber) {
            throw AdminValidationError(field: "phoneFactors.phoneNumber", message: "must be an E.164 number")
        }
        return UserInfo(
            localId: uid, email: email, emailVerified: emailVerified, displayName: displayName, photoUrl: photoURL,
            disabled: disabled,
            createdAt: metadata?.creationTime.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) },
            lastLoginAt: metadata?.lastSignInTime.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) },
            tenantId: tenantID, customAttributes: claims, phoneNumber: phoneNumber,
            passwordHash: passwordHash?.base64URLEncoded, salt: passwordSalt?.base64URLEncoded,
            providerUserInfo: providerData.isEmpty
                ? nil
                : providerData.map {
                    ProviderUserInfo(
                        providerId: $0.providerID, rawId: $0.uid, email: $0.email, displayName: $0.displayName,
                        photoUrl: $0.photoURL)
                },
            mfaInfo: phoneFactors.isEmpty
                ? nil
                : phoneFactors.map {
                    MfaEnrollment(
                        mfaEnrollmentId: $0.uid, displayName: $0.displayName, enrolledAt: $0.enrollmentTime,
                        phoneInfo: $0.phoneNumber)
                })
    }
}
