#if Emulator
import Foundation
import IdentityToolkit

/// Sessions in flight: refresh tokens, TOTP enrollments between `start`
/// and `finalize`, sign-ins between the password and the second factor.
struct SessionState: Codable, Sendable {
    var refreshTokens: [String: RefreshTokenRecord] = [:]
    /// Each user's refresh tokens, oldest first (to bound how many are kept).
    var refreshTokensByUser: [UserKey: [String]] = [:]
    var enrollmentSessions: [String: EnrollmentSession] = [:]
    var pendingCredentials: [String: PendingCredential] = [:]
    /// Passkey challenges given out and not yet used, by challenge, oldest
    /// first (``PasskeyRules``).
    var passkeyChallenges = OrderedRecords<PasskeyChallenge>()
}

/// A challenge of `passkeyEnrollment:start` or `passkeySignIn:start`: used
/// once, before its deadline, by the ceremony it was given for.
struct PasskeyChallenge: Codable, Sendable {
    enum Ceremony: Codable, Sendable, Equatable {
        /// Enrolling a passkey for `uid` (WebAuthn `webauthn.create`).
        case enroll(uid: String)
        /// Signing in (WebAuthn `webauthn.get`).
        case signIn
    }

    var realm: Realm
    var ceremony: Ceremony
    var expiresAt: Date
}

/// What the emulator remembers of a refresh token.
struct RefreshTokenRecord: Codable, Sendable {
    var uid: String
    var realm: Realm
    var generation: Int
    var session: SessionFacts
}

/// `mfaEnrollment:start` → `finalize`: single use, with a deadline.
struct EnrollmentSession: Codable, Sendable {
    var uid: String
    var realm: Realm
    var enrollmentID: String
    var secret: [UInt8]
    var expiresAt: Date
    /// Wrong codes so far (``SecondFactorRules/maximumCodeAttempts``).
    var failedAttempts = 0
}

/// Proof of a first factor awaiting the second (`mfaPendingCredential`).
struct PendingCredential: Codable, Sendable {
    var uid: String
    var realm: Realm
    /// The first factor, which the session's tokens will name.
    var provider: ProviderID
    var expiresAt: Date
    /// Wrong codes so far (``SecondFactorRules/maximumCodeAttempts``).
    var failedAttempts = 0
}

/// Codes the emulator "sent" instead of sending them, oldest first.
struct OutOfBandState: Codable, Sendable {
    var oobCodes = OrderedRecords<OutOfBandCode>()
    var phoneVerifications = OrderedRecords<PhoneVerification>()
}

/// An out-of-band code, as `/emulator/v1/projects/{project}/oobCodes` lists it.
struct OutOfBandCode: Codable, Sendable {
    var code: String
    /// The account's address (for a sign-in link, the address to sign in).
    var email: String
    /// The address an address change asks for (`VERIFY_AND_CHANGE_EMAIL`).
    var newEmail: String? = nil
    var requestType: OobRequestType
    /// The account; nil for an `EMAIL_SIGNIN` code of an address with none yet.
    var uid: String?
    var realm: Realm
    /// Where the action page links when done.
    var continueUrl: String? = nil
    /// The factor a `REVERT_SECOND_FACTOR_ADDITION` code removes.
    var mfaEnrollmentID: String? = nil
}

/// An SMS code the emulator "sent"; listed at `/emulator/v1/projects/{project}/verificationCodes`.
struct PhoneVerification: Codable, Sendable {
    enum Purpose: Codable, Sendable {
        /// Phone sign-in (`accounts:signInWithPhoneNumber`).
        case firstFactor
        case enroll(uid: String)
        case signIn(pendingCredential: String, enrollmentID: String)
        /// A `temporaryProof` that the number was verified, given when it
        /// could not be linked (another account has it): no code, not listed.
        case temporaryProof
    }

    var sessionInfo: String
    var phoneNumber: String
    var code: String
    var realm: Realm
    var purpose: Purpose
    var expiresAt: Date
}

/// Records by key in insertion order, so that listings are oldest first and
/// the oldest go first when a bound is reached.
struct OrderedRecords<Record: Codable & Sendable>: Codable, Sendable {
    private(set) var byKey: [String: Record] = [:]
    private(set) var order: [String] = []

    subscript(key: String) -> Record? { byKey[key] }

    /// Every record, oldest first.
    var inOrder: [Record] { order.compactMap { byKey[$0] } }

    var count: Int { byKey.count }

    /// Adds `record` under `key`; past `limit` the oldest are forgotten.
    mutating func append(_ record: Record, key: String, keeping limit: Int = .max) {
        if byKey.updateValue(record, forKey: key) == nil { order.append(key) }
        if order.count > limit {
            for old in order.prefix(order.count - limit) { byKey[old] = nil }
            order.removeFirst(order.count - limit)
        }
    }

    mutating func remove(_ key: String) {
        guard byKey.removeValue(forKey: key) != nil else { return }
        order.removeAll { $0 == key }
    }

    /// Keeps only the records `isIncluded` accepts.
    mutating func filter(_ isIncluded: (Record) -> Bool) {
        byKey = byKey.filter { isIncluded($0.value) }
        order = order.filter { byKey[$0] != nil }
    }
}
#endif
