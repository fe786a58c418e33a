public import Foundation
import IdentityKeyValueStore
import IdentitySupport
public import Logging

/// A user of a project or of one of its tenants: whose factor, codes and
/// events a record is. Its ``storeKey`` is the one way the package names a
/// user in the shared stores, so that equal uids of two tenants (or of a
/// tenant and the project) never share a count, a code or an event.
public struct UserKey: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The user's id.
    public let uid: String
    /// Their tenant; nil for the project's own users.
    public let tenantID: String?

    /// The user `uid` of `tenantID` (nil: the project's own users).
    public init(uid: String, tenantID: String? = nil) {
        self.uid = uid
        self.tenantID = tenantID
    }

    /// The key of the user's records in the stores: the tenant, `/`, the
    /// uid. Tenant ids hold no `/`, so the first one ends the tenant.
    public var storeKey: String { "\(tenantID ?? "")/\(uid)" }

    /// The uid and tenant (ids, not secrets), made safe to log.
    public var description: String {
        tenantID.map { "\(LogSafeText.escaping($0))/\(LogSafeText.escaping(uid))" } ?? LogSafeText.escaping(uid)
    }
}

/// One thing that happened to the security of a user's account: a factor
/// enrolled or withdrawn, a code refused, a lock-out, a recovery, sessions
/// ended, a phone's clock noticed to be off.
///
/// The package records these where it sees them (``TOTPVerifier``,
/// `AccountRecovery`, `BaseAuth`'s session and factor calls) through
/// ``SecurityEventSystem``; an app records what only it sees (a factor
/// enrolled through its own pages) the same way. An event carries ids,
/// times and the request's facts (``SecurityEventContext``), **never** a
/// code, a key, a token, a password or an email address, so any sink
/// (a log, a table, a mail queue) may keep it.
public struct SecurityEvent: Sendable, Hashable, Codable {
    /// What happened. A struct of constants rather than an enum, so that
    /// later versions can add kinds without breaking an app's `switch`.
    public struct Kind: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        /// The kind's stable name, as sinks store it (`factor_enrolled`, …).
        public let rawValue: String

        /// The kind named `rawValue` (as a sink stored it).
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A second factor was enrolled.
        public static let factorEnrolled = Kind(rawValue: "factor_enrolled")
        /// A second factor was withdrawn (``SecurityEvent/initiatedBy`` says by whom).
        public static let factorWithdrawn = Kind(rawValue: "factor_withdrawn")
        /// A code (TOTP or recovery) matched nothing.
        public static let codeRefused = Kind(rawValue: "code_refused")
        /// A TOTP code was used a second time.
        public static let replayRefused = Kind(rawValue: "replay_refused")
        /// A run of failures locked the factor (``SecurityEvent/lockedUntil``;
        /// nil when it stays locked until cleared).
        public static let lockoutBegan = Kind(rawValue: "lockout_began")
        /// A lock-out was lifted: by a success after it lapsed, or by a clear
        /// (a recovery, an administrator).
        public static let lockoutEnded = Kind(rawValue: "lockout_ended")
        /// A recovery code was redeemed (``SecurityEvent/remainingCodes`` left).
        public static let recoveryCodeRedeemed = Kind(rawValue: "recovery_code_redeemed")
        /// A new set of recovery codes replaced the old one.
        public static let recoveryCodesIssued = Kind(rawValue: "recovery_codes_issued")
        /// Every session of the user was ended.
        public static let sessionsRevoked = Kind(rawValue: "sessions_revoked")
        /// The user's codes keep matching a few steps off: their device's
        /// clock is wrong (``SecurityEvent/clockOffsetSeconds``).
        public static let clockDriftNoticed = Kind(rawValue: "clock_drift_noticed")

        /// The raw name.
        public var description: String { rawValue }
    }

    /// Who caused an event.
    public enum Initiator: String, Sendable, Hashable, Codable {
        /// The user, signed in.
        case user
        /// An administrator or support (the admin API, `mfa admin`).
        case admin
        /// The account-recovery path (a recovery code).
        case recovery
    }

    /// What happened.
    public var kind: Kind
    /// To whom.
    public var user: UserKey
    /// When.
    public var date: Date
    /// Who caused it, where that is known.
    public var initiatedBy: Initiator?
    /// The factor concerned: its enrollment id (`mfaEnrollmentId`), or the
    /// store key of a verifier's key; nil when the event is about the account.
    public var factorID: String?
    /// The kind of factor or code: Firebase's factor id (``totpFactorKind``,
    /// `phone`) or ``recoveryCodeFactorKind``.
    public var factorKind: String?

    /// ``factorKind`` of a TOTP factor: Firebase's factor id.
    public static let totpFactorKind = "totp"
    /// ``factorKind`` of a recovery code.
    public static let recoveryCodeFactorKind = "recovery_code"
    /// The request it happened in, where the app or a middleware set one
    /// (``SecurityEventContext``).
    public var context: SecurityEventContext?
    /// For ``Kind/lockoutBegan``: until when; nil for the final lock.
    public var lockedUntil: Date?
    /// For ``Kind/lockoutBegan``: the failures in a row so far.
    public var consecutiveFailures: Int?
    /// For recovery codes: the unused codes left, or issued.
    public var remainingCodes: Int?
    /// For ``Kind/clockDriftNoticed``: how far the device's clock seems to
    /// be off, in seconds (positive: ahead).
    public var clockOffsetSeconds: Int?

    /// An event of `kind` for `user` at `date`; the other facts are set as
    /// properties. ``context`` is filled in from ``SecurityEventContext/current``
    /// when the event is recorded, if left nil.
    public init(
        _ kind: Kind, user: UserKey, date: Date = Date(), initiatedBy: Initiator? = nil, factorID: String? = nil,
        factorKind: String? = nil
    ) {
        self.kind = kind
        self.user = user
        self.date = date
        self.initiatedBy = initiatedBy
        self.factorID = factorID
        self.factorKind = factorKind
    }

    /// The event as log metadata: ids, counts and times, each made safe to log.
    public var logMetadata: Logger.Metadata {
        var metadata: Logger.Metadata = ["event": "\(kind.rawValue)", "uid": "\(LogSafeText.escaping(user.uid))"]
        if let tenantID = user.tenantID { metadata["tenant"] = "\(LogSafeText.escaping(tenantID))" }
        if let initiatedBy { metadata["initiatedBy"] = "\(initiatedBy.rawValue)" }
        if let factorID { metadata["factor"] = "\(LogSafeText.escaping(factorID))" }
        if let factorKind { metadata["factorKind"] = "\(LogSafeText.escaping(factorKind))" }
        if let lockedUntil { metadata["lockedUntil"] = "\(Int(lockedUntil.timeIntervalSince1970))" }
        if let consecutiveFailures { metadata["failures"] = "\(consecutiveFailures)" }
        if let remainingCodes { metadata["remainingCodes"] = "\(remainingCodes)" }
        if let clockOffsetSeconds { metadata["clockOffsetSeconds"] = "\(clockOffsetSeconds)" }
        if let requestID = context?.requestID { metadata["requestID"] = "\(LogSafeText.escaping(requestID))" }
        if let clientAddress = context?.clientAddress { metadata["client"] = "\(LogSafeText.escaping(clientAddress))" }
        if let userAgent = context?.userAgent { metadata["userAgent"] = "\(LogSafeText.escaping(userAgent))" }
        return metadata
    }
}

/// The facts of the request an event happened in: set by the Hummingbird
/// and Vapor middlewares of IdentityAdmin for the requests they pass on, or
/// by the app around its own calls. Each value is cut to
/// ``maximumLength`` characters, so a hostile header cannot bloat a sink.
public struct SecurityEventContext: Sendable, Hashable, Codable {
    /// The request's id (a framework's id, or `X-Request-Id`).
    public var requestID: String?
    /// The client's address, as the app trusts it (behind a load balancer:
    /// the forwarded address the balancer vouches for).
    public var clientAddress: String?
    /// The client's `User-Agent`.
    public var userAgent: String?

    /// The most characters kept of each value.
    public static let maximumLength = 256

    /// The facts of one request; each is cut to ``maximumLength``.
    public init(requestID: String? = nil, clientAddress: String? = nil, userAgent: String? = nil) {
        self.requestID = requestID.map { String($0.prefix(Self.maximumLength)) }
        self.clientAddress = clientAddress.map { String($0.prefix(Self.maximumLength)) }
        self.userAgent = userAgent.map { String($0.prefix(Self.maximumLength)) }
    }

    @TaskLocal private static var stored: SecurityEventContext?

    /// The context of the request the current task serves, if set.
    public static var current: SecurityEventContext? { stored }

    /// Runs `operation` with `context` as the current request's (for it and
    /// every task it starts).
    public static func withValue<Result>(
        _ context: SecurityEventContext, isolation: isolated (any Actor)? = #isolation,
        _ operation: () async throws -> Result
    ) async rethrows -> Result {
        try await $stored.withValue(context, operation: operation, isolation: isolation)
    }
}
