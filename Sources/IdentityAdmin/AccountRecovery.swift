public import Foundation
public import IdentityOTP
import IdentitySupport
import IdentityToolkit
public import Logging

/// The self-service path for a user who lost their authenticator: after
/// the password step of a sign-in that asked for a second factor, one of
/// the user's recovery codes proves them, and the server
///
/// 0. checks the proof of that password step (``FirstFactorProof``): at
///    most ``maximumFirstFactorAge`` old, and not older than the account's
///    last revocation (a password change, a sign-out everywhere), so that
///    someone who once knew the password cannot use a code later;
/// 1. redeems the code (counted against the attempt limit first, consumed
///    atomically: it works once, on every instance);
/// 2. withdraws the user's TOTP factors (other kinds stay);
/// 3. ends every other session (``BaseAuth/revokeRefreshTokens(uid:now:)``);
/// 4. mints a custom token, with which the app signs the user in without
///    the lost factor (`Auth.signIn(withCustomToken:)`) and leads them to
///    enroll a new authenticator.
///
/// Each redemption writes one audit line (swift-log, `notice`: the uid, the
/// withdrawn factors' ids, how many codes remain — never a code), records
/// `SecurityEvent`s (the code redeemed, each factor withdrawn, the sessions
/// ended, all initiated by recovery; a code refused) and calls
/// the app's `notify` hook, to email the user that their account was
/// recovered. Firebase has no recovery codes; the codes live in the app's
/// `RecoveryCodeStore` (PostgreSQL's for several instances).
///
/// The code is spent as soon as it matches: if a later step fails (the
/// failure names it), the factors may still be there, and the user tries
/// another code (a new code repeats what is already done harmlessly).
public struct AccountRecovery: Sendable {
    /// What a successful recovery hands back.
    public struct Recovered: Sendable, CustomStringConvertible {
        /// The user.
        public let uid: String
        /// The TOTP factors withdrawn (empty when none were left).
        public let withdrawnFactors: [EnrolledFactor]
        /// Unused recovery codes left; at 0 the app should offer a new set.
        public let remainingCodes: Int
        /// For the client's `signIn(withCustomToken:)`: valid for an hour,
        /// a secret (never logged, not in ``description``).
        public let customToken: String

        /// The uid and counts, never the token.
        public var description: String {
            "AccountRecovery.Recovered(uid: \(uid), withdrawn: \(withdrawnFactors.map(\.uid)), remaining codes: \(remainingCodes), custom token: <redacted>)"
        }
    }

    /// What the `notify` hook learns about a recovery.
    public struct Event: Sendable, Hashable {
        /// The user.
        public let uid: String
        /// Their email address, to tell them (nil when the account has none).
        public let email: String?
        /// The ids of the withdrawn factors.
        public let withdrawnFactorIDs: [String]
        /// Unused recovery codes left.
        public let remainingCodes: Int
        /// When it happened.
        public let date: Date
    }

    /// Where verifiers and attempts are kept.
    public let redeemer: RecoveryCodeRedeemer
    /// The oldest password step a recovery accepts.
    public let maximumFirstFactorAge: Duration
    let admin: BaseAuth
    let logger: Logger
    /// Where an audit line goes: the serving request's logger, else ``logger``.
    private var auditLog: Logger { RequestLogger.or(logger) }
    let notify: (@Sendable (Event) async -> Void)?

    /// - Parameters:
    ///   - admin: The project's (or a tenant's) admin API.
    ///   - redeemer: The recovery codes and the attempt limit.
    ///   - maximumFirstFactorAge: The oldest password step a recovery
    ///     accepts: five minutes by default, as long as a sign-in challenge.
    ///   - logger: Where the audit lines go when no request's logger is set
    ///     (`RequestLogger`, which the middlewares set).
    ///   - notify: Called after each recovery (to email the user); its
    ///     failures are the app's to log.
    public init(
        admin: BaseAuth, redeemer: RecoveryCodeRedeemer, maximumFirstFactorAge: Duration = .seconds(5 * 60),
        logger: Logger = Logger(label: "IdentityAdmin.AccountRecovery"),
        notify: (@Sendable (Event) async -> Void)? = nil
    ) {
        self.admin = admin
        self.redeemer = redeemer
        self.maximumFirstFactorAge = maximumFirstFactorAge
        self.logger = logger
        self.notify = notify
    }

    /// A new set of codes for `uid`, replacing the old one whole: show the
    /// codes once (after an enrollment, or from the account page after a
    /// fresh second-factor check; support uses `mfa admin users recovery-codes`).
    public func issueCodes(for uid: String, count: Int = 10) async throws -> RecoveryCodes {
        let codes = try await redeemer.regenerate(for: storeKey(uid), count: count)
        Telemetry.counter("recovery_code_sets_issued_total").increment()
        auditLog.notice("recovery codes issued", metadata: ["uid": "\(uid)", "count": "\(codes.codes.count)"])
        var issued = SecurityEvent(
            .recoveryCodesIssued, user: admin.userKey(uid), factorKind: SecurityEvent.recoveryCodeFactorKind)
        issued.remainingCodes = codes.codes.count
        await SecurityEventSystem.record(issued)
        return codes
    }

    /// How many unused codes `uid` has; nil when the user has no set.
    public func remainingCodes(for uid: String) async throws -> Int? {
        try await redeemer.store.verifiers(for: storeKey(uid))?.digests.count
    }

    /// The key of a user's codes and attempts in the stores, for an app
    /// that calls the ``redeemer`` itself: the tenant and the uid, so that
    /// users of two tenants (or a tenant and the project) whose uids are
    /// equal never share codes. Tenant ids hold no `/`, so the first one
    /// ends the tenant.
    public func storeKey(_ uid: String) -> String { admin.userKey(uid).storeKey }

    /// Runs the whole path with the code the user typed, for the user whose
    /// password step `proof` records.
    /// - Parameters:
    ///   - proof: The password step: whose, and when it was checked.
    ///   - code: What the user typed (case, spaces and dashes do not matter).
    ///   - now: The time (for tests).
    /// - Throws: ``AdminError``, whose code names the step that failed;
    ///   ``AdminError/Code/firstFactorTooOld`` (nothing counted or
    ///   spent) for a password step older than ``maximumFirstFactorAge`` or
    ///   than the account's last revocation.
    ///
    /// Runs in a span `recoverAccount` and is counted in
    /// `account_recoveries_total` by `outcome`: `recovered` (a code
    /// redeemed), or the failed step's ``AdminError/Code`` (the
    /// `Telemetry` trait).
    public func recover(_ proof: FirstFactorProof, code: String, now: Date = Date()) async throws(AdminError)
        -> Recovered
    {
        try await Telemetry.withSpan("recoverAccount") { span async throws(AdminError) -> Recovered in
            do throws(AdminError) {
                let recovered = try await recoverUncounted(proof, code: code, now: now)
                Telemetry.counter("account_recoveries_total", [("outcome", "recovered")]).increment()
                span.set("identity.recovery.withdrawn_factors", recovered.withdrawnFactors.count)
                return recovered
            } catch {
                Telemetry.counter("account_recoveries_total", [("outcome", error.code.description)]).increment()
                span.fail(error.code.description)
                throw error
            }
        }
    }

    private func recoverUncounted(_ proof: FirstFactorProof, code: String, now: Date) async throws(AdminError)
        -> Recovered
    {
        let uid = proof.uid
        let age = now.timeIntervalSince(proof.checkedAt)
        guard age <= maximumFirstFactorAge.timeInterval, age >= -60 else {
            auditLog.notice(
                "recovery refused: the password step is too old",
                metadata: ["uid": "\(uid)", "ageSeconds": "\(Int(age))"])
            throw AdminError(.firstFactorTooOld)
        }
        let user: UserRecord
        do { user = try await admin.getUser(uid: uid) } catch {
            throw AdminError(.userLookupFailed, underlying: error)
        }
        // Revoked since (tokens valid after a whole second): a password change or a sign-out everywhere.
        if let validSince = user.tokensValidAfterTime,
            proof.checkedAt.timeIntervalSince1970.rounded(.down) < validSince.timeIntervalSince1970
        {
            auditLog.notice(
                "recovery refused: the account was revoked after the password step", metadata: ["uid": "\(uid)"])
            throw AdminError(.firstFactorTooOld)
        }
        let remaining: Int
        do {
            switch try await redeemer.redeem(code, for: storeKey(uid), at: now) {
            case .redeemed(let left): remaining = left
            case .invalid:
                auditLog.notice("recovery code refused", metadata: ["uid": "\(uid)"])
                await SecurityEventSystem.record(
                    SecurityEvent(
                        .codeRefused, user: admin.userKey(uid), date: now,
                        factorKind: SecurityEvent.recoveryCodeFactorKind))
                throw AdminError(.invalidRecoveryCode)
            case .noCodes: throw AdminError(.noRecoveryCodes)
            }
        } catch let error as AdminError {
            throw error
        } catch let error as OTPError where error.code == .tooManyAttempts || error.code == .factorLocked {
            auditLog.warning("recovery attempts at the limit", metadata: ["uid": "\(uid)"])
            throw AdminError(.tooManyRecoveryAttempts, underlying: error)
        } catch {
            throw AdminError(.recoveryStoreUnavailable, underlying: error)
        }
        var redeemed = SecurityEvent(
            .recoveryCodeRedeemed, user: admin.userKey(uid), date: now, initiatedBy: .recovery,
            factorKind: SecurityEvent.recoveryCodeFactorKind)
        redeemed.remainingCodes = remaining
        await SecurityEventSystem.record(redeemed)
        let factors = user.multiFactor.enrolledFactors
        let withdrawn = factors.filter { $0.factorID == "totp" }
        if !withdrawn.isEmpty {
            do {
                _ = try await admin.updateUser(
                    uid, UpdateUserRequest(enrolledFactors: factors.filter { $0.factorID != "totp" }),
                    initiatedBy: .recovery, now: now)
            } catch {
                throw AdminError(.factorWithdrawalFailed, underlying: error)
            }
        }
        do { try await admin.revokeRefreshTokens(uid: uid, now: now, initiatedBy: .recovery) } catch {
            throw AdminError(.revocationFailed, underlying: error)
        }
        let token: String
        do { token = try admin.createCustomToken(uid: uid, now: now) } catch {
            throw AdminError(.signInTokenFailed, underlying: error)
        }
        auditLog.notice(
            "account recovered with a recovery code",
            metadata: [
                "uid": "\(uid)", "withdrawn": "\(withdrawn.map(\.uid).joined(separator: ","))",
                "remainingCodes": "\(remaining)",
            ])
        await notify?(
            Event(
                uid: uid, email: user.email, withdrawnFactorIDs: withdrawn.map(\.uid), remainingCodes: remaining,
                date: now))
        return Recovered(uid: uid, withdrawnFactors: withdrawn, remainingCodes: remaining, customToken: token)
    }
}

/// The proof of a sign-in's first factor that a recovery builds on: whose
/// password was checked, and when. Make it where the password step
/// succeeded (the sign-in asked for a second factor), keep it with the
/// pending sign-in on the server side (never from the browser's say-so), and
/// drop it when that sign-in ends.
public struct FirstFactorProof: Codable, Sendable, Hashable {
    /// The user whose password was checked.
    public let uid: String
    /// When it was checked.
    public let checkedAt: Date

    /// The proof that `uid`'s password was checked at `checkedAt`.
    public init(uid: String, checkedAt: Date) {
        self.uid = uid
        self.checkedAt = checkedAt
    }
}
