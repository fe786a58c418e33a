import Foundation
import IdentityToolkit

/// A set of users: a project itself, or one of its tenants.
struct Realm: Hashable, Sendable {
    var project: String
    var tenant: String?
}

/// A user's identity across realms.
struct UserKey: Hashable, Sendable {
    var realm: Realm
    var uid: String
}

/// A user as the emulator stores it. The password is kept only as a salted hash.
struct EmulatedUser: Sendable {
    var localId: String
    var realm: Realm
    var email: String?
    var passwordHash: Data?
    var salt: Data
    var emailVerified = false
    var displayName: String?
    var createdAt: Date
    var lastLoginAt: Date?
    var passwordUpdatedAt: Date?
    var disabled = false
    var isAnonymous: Bool
    var enrollments: [SecondFactor] = []
    /// Bumped when earlier sessions are revoked (a factor withdrawn).
    var tokenGeneration = 0
    var validSince: Date
    /// The custom claims an admin set, a JSON object as text (nil: none).
    var customAttributes: String?
}

/// An enrolled second factor.
struct SecondFactor: Sendable {
    enum Kind: Sendable {
        /// `lastAcceptedStep`: the last time step whose code was accepted
        /// (RFC 6238 §5.2: a code is never accepted twice).
        case totp(secret: [UInt8], lastAcceptedStep: UInt64?)
        case phone(number: String)
    }

    var id: String
    var displayName: String?
    var enrolledAt: Date
    var kind: Kind

    var isTOTP: Bool {
        if case .totp = kind { return true }
        return false
    }

    var phoneNumber: String? {
        if case .phone(let number) = kind { return number }
        return nil
    }
}

/// An SMS code the emulator "sent"; listed at `/emulator/v1/projects/{project}/verificationCodes`.
struct PhoneVerification: Sendable {
    enum Purpose: Sendable {
        case enroll(uid: String)
        case signIn(pendingCredential: String, enrollmentID: String)
    }

    var sessionInfo: String
    var phoneNumber: String
    var code: String
    var realm: Realm
    var purpose: Purpose
    var expiresAt: Date
}

/// `mfaEnrollment:start` → `finalize`: single use, with a deadline.
struct EnrollmentSession: Sendable {
    var uid: String
    var realm: Realm
    var enrollmentID: String
    var secret: [UInt8]
    var expiresAt: Date
    /// Wrong codes so far (``SecondFactorRules/maximumCodeAttempts``).
    var failedAttempts = 0
}

/// Proof of a first factor awaiting the second (`mfaPendingCredential`).
struct PendingCredential: Sendable {
    var uid: String
    var realm: Realm
    var provider: String
    var expiresAt: Date
    /// Wrong codes so far (``SecondFactorRules/maximumCodeAttempts``).
    var failedAttempts = 0
}

/// What the emulator remembers of a refresh token.
struct RefreshTokenRecord: Sendable {
    var uid: String
    var realm: Realm
    var generation: Int
    var session: SessionFacts
}

/// An out-of-band code, as `/emulator/v1/projects/{project}/oobCodes` lists it.
struct OutOfBandCode: Sendable {
    var code: String
    var email: String
    var requestType: OobRequestType
    var uid: String
    var realm: Realm
}

/// The facts an ID token states about a session.
struct SessionFacts: Sendable {
    var provider: String
    var secondFactor: String?
    var secondFactorID: String?
    var authTime: Date
    /// A custom token's developer claims (a JSON object as text), which the
    /// session's ID tokens carry, refreshed ones included.
    var developerClaims: String? = nil
}

/// What a successful sign-in step yields; the service signs the ID token.
struct SessionGrant: Sendable {
    var uid: String
    var realm: Realm
    var email: String?
    var emailVerified: Bool
    var displayName: String?
    var facts: SessionFacts
    var refreshToken: String
    /// The user's custom claims, a JSON object as text, copied into ID tokens.
    var customAttributes: String?
}

/// A project's configuration and tenants.
struct ProjectState: Sendable {
    var mfa: MultiFactorAuthConfig?
    var tenants: [String: Tenant] = [:]
    var tenantOrder: [String] = []
}

/// Fixed rules of the emulated service.
enum EmulatorRules {
    /// How long `mfaEnrollment:finalize` may follow `start`.
    static let enrollmentDeadline: TimeInterval = 10 * 60
    /// The most second factors a user may have.
    static let maximumFactors = 5
    /// The TOTP parameters the emulator issues (Identity Platform's).
    static let totpDigits = 6
    static let totpPeriod: Int64 = 30
    static let totpSecretBytes = 20
    /// The default `adjacentIntervals`.
    static let defaultAdjacentIntervals = 5
    static let minimumPasswordLength = 6
    /// How often expired state is removed from memory (emulator clock).
    static let sweepInterval: TimeInterval = 60
    /// The most unused out-of-band codes kept; older ones are forgotten.
    static let maximumStoredOobCodes = 10_000
    /// The most live sessions (refresh tokens) one user keeps; signing in
    /// again past it ends the oldest. Production documents no such limit;
    /// this bound keeps a long-running emulator's memory flat.
    static let maximumRefreshTokensPerUser = 50
    /// `accounts:batchGet` and tenant lists: the default page (the largest
    /// is `IdentityPlatformLimits.maximumPageSize`).
    static let defaultPageSize = 20
}
