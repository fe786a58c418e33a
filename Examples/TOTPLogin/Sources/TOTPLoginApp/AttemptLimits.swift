import Crypto
import Foundation
import IdentityOTP
import Logging

/// The app's own limits on wrong passwords and codes, counted in a
/// ``TOTPAttemptStore`` that every instance shares, so that a second
/// instance does not grant the limit again. A count is taken before the
/// check (the store's one atomic call), so parallel guesses cannot all
/// slip through.
///
/// Passwords and codes are limited differently, because a stranger can
/// type any address but only the owner gets past the password:
///
/// - **Passwords** are keyed by what an attacker chooses (the typed
///   address, the client's address), so no password limit may keep the
///   owner out for good, and every record expires. Per account *and*
///   client address: a backoff that lapses (at most 15 minutes at a time),
///   so a stranger's address is slowed, not the owner's. Per account across
///   addresses: at most 100 wrong passwords in a row, after which a
///   password sign-in needs a password reset (``passwordResetRequired``),
///   which any owner can do by email and which clears the count. Per client
///   address: a rate limit on spraying many accounts.
/// - **Codes** are only tried after the right password, so the account is
///   real and the owner's: the second factor's limit (NIST SP 800-63B
///   §5.2.2's 100 in a row, final) applies, and only a recovery clears it.
///   Identity Platform limits each sign-in challenge to a few wrong codes,
///   but a new password sign-in opens a new challenge: without a count per
///   account, someone who knows the password tries codes without end.
struct AttemptLimits: Sendable {
    /// What is being tried.
    enum Kind: String, Sendable {
        case password, code
    }

    /// What the limits decided.
    enum Decision: Sendable, Equatable {
        case admitted
        case refused(Refusal)
    }

    /// Why an attempt was refused.
    enum Refusal: Sendable, Equatable {
        /// A lock-out that lapses then.
        case until(Date)
        /// Until the account proves itself another way: a password reset
        /// (passwords) or a recovery (codes).
        case untilProven
        /// The store could not count (a limit that fails open is no limit).
        case unavailable
    }

    let store: any TOTPAttemptStore
    /// Wrong passwords for one account from one client address: 10, then a
    /// minute, doubling to at most 15 minutes; forgotten after 15 quiet minutes.
    var passwordPerAccountAndAddress = try! TOTPAttemptLimit.backoff(
        10, lockout: .seconds(60), maximumLockout: .seconds(15 * 60))
    /// Wrong passwords for one account from anywhere: 100 in a row, then
    /// only a password reset lets a password sign-in through; the record is
    /// forgotten after a quiet day (the key is a typed address: it must expire).
    var passwordPerAccount = try! TOTPAttemptLimit.consecutiveFailures(
        TOTPAttemptLimit.consecutiveFailureCap, forgetAfter: .seconds(86_400))
    /// Wrong codes for one account (past its password): 10 in a row, then a
    /// lock-out of 15 minutes that doubles with each further run, and after
    /// 100 in a row the account's codes are locked until a recovery, as the
    /// library's limit does for a second factor. Above Identity Platform's
    /// per-challenge limit, so that a person who mistypes sees Firebase's
    /// own `ERROR_TOO_MANY_REQUESTS` first.
    var codePerAccount = try! TOTPAttemptLimit(maximumFailures: 10, lockout: .seconds(15 * 60))
    /// Attempts per client address and kind in 15 minutes: a rate limit
    /// (addresses are shared and chosen by whoever sends), no final lock.
    var perAddress: [Kind: TOTPAttemptLimit] = [
        .password: try! .rateLimit(100, per: .seconds(15 * 60)),
        .code: try! .rateLimit(50, per: .seconds(15 * 60)),
    ]
    var logger = Logger(label: "TOTPLogin.limits")

    /// The store's key for an account: a digest of the normalised address,
    /// so that the store holds no email addresses.
    static func accountKey(email: String) -> String {
        let normalised = email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        return sha256Hex(normalised)
    }

    /// The counts one attempt of `kind` takes, in order: the address's, then
    /// the account's from that address (passwords), then the account's.
    func keys(_ kind: Kind, account: String, address: String?) -> [(key: String, limit: TOTPAttemptLimit, per: String)]
    {
        var keys: [(key: String, limit: TOTPAttemptLimit, per: String)] = []
        if let address, let limit = perAddress[kind] {
            keys.append(("totplogin/\(kind.rawValue)/address/\(address)", limit, "address"))
        }
        switch kind {
        case .password:
            keys.append(
                (
                    Self.accountAndAddressKey(account: account, address: address), passwordPerAccountAndAddress,
                    "account and address"
                ))
            keys.append(("totplogin/password/account/\(account)", passwordPerAccount, "account"))
        case .code:
            keys.append(("totplogin/code/account/\(account)", codePerAccount, "account"))
        }
        return keys
    }

    private static func accountAndAddressKey(account: String, address: String?) -> String {
        "totplogin/password/account/\(account)/address/\(address ?? "unknown")"
    }

    /// Counts one attempt against the address, and the account; refused
    /// when any count is locked. A store that cannot be reached (or an
    /// in-memory one that is full) refuses too (503): a limit that fails
    /// open is no limit.
    func admit(_ kind: Kind, account: String, address: String?, at now: Date = Date()) async -> Decision {
        do {
            for (key, limit, per) in keys(kind, account: account, address: address) {
                let admission = try await store.recordAttempt(for: key, limit: limit, at: now)
                switch admission {
                case .counted: continue
                case .lockedUntil(let until):
                    logger.warning("attempt limit reached", metadata: ["kind": "\(kind.rawValue)", "per": "\(per)"])
                    return .refused(.until(until))
                case .locked:
                    logger.warning(
                        "attempt limit reached",
                        metadata: ["kind": "\(kind.rawValue)", "per": "\(per)", "until": "proven"])
                    return .refused(.untilProven)
                }
            }
            return .admitted
        } catch {
            logger.error("attempt store unavailable", metadata: ["error": "\(error)"])
            return .refused(.unavailable)
        }
    }

    /// The page for a refusal: 429 with the app's own id (no Firebase code:
    /// Identity Platform did not refuse anything), saying how long to wait,
    /// or the way back in; 503 when the count could not be taken.
    func page(for refusal: Refusal, _ kind: Kind, now: Date = Date()) -> Outcome {
        switch refusal {
        case .until(let until):
            let minutes = max(1, Int((until.timeIntervalSince(now) / 60).rounded(.up)))
            return Self.tooManyAttempts(
                "Too many wrong attempts for this account. Wait \(minutes) minute\(minutes == 1 ? "" : "s"), then try again."
            )
        case .untilProven where kind == .password:
            return Self.passwordResetRequired
        case .untilProven:
            return Self.tooManyAttempts(
                "Too many wrong attempts in a row: this account's codes are locked. Sign in with a recovery code, or contact support."
            )
        case .unavailable:
            return TOTPLoginApp.unavailable(next: "/login")
        }
    }

    /// The account proved itself: its counts start again, the account's
    /// from this address too. (The address's own count stays: one right
    /// password must not reset a spray of guesses at other accounts.)
    func succeeded(_ kind: Kind, account: String, address: String?) async {
        for (key, _, per) in keys(kind, account: account, address: address) where per != "address" {
            await clear(key)
        }
    }

    /// A recovery or a password reset proved the account another way:
    /// every count of it starts again (its codes' final lock included, so
    /// that the new authenticator is not refused), from this address too.
    func accountProven(_ account: String, address: String?) async {
        for kind in [Kind.password, .code] { await succeeded(kind, account: account, address: address) }
    }

    private func clear(_ key: String) async {
        do { try await store.clearAttempts(for: key) } catch {
            logger.warning("could not clear an attempt count", metadata: ["error": "\(type(of: error))"])
        }
    }

    private static func tooManyAttempts(_ explanation: String) -> Outcome {
        .html(
            Pages.error(
                status: 429, title: "Too many attempts", explanation: explanation,
                firebaseCode: nil, next: ("/login", "Back to sign-in"), id: "attempt-limit"),
            status: .tooManyRequests)
    }

    /// The page after 100 wrong passwords in a row for an account, from
    /// anywhere: a password sign-in now needs a password reset, which the
    /// owner can ask for at once (no waiting, and a stranger cannot).
    static var passwordResetRequired: Outcome {
        .html(
            Pages.error(
                status: 429, title: "Reset your password to sign in",
                explanation:
                    "There were too many wrong passwords for this account. To sign in, reset your password: we email you a link.",
                firebaseCode: nil, next: ("/login/reset", "Reset my password"), id: "password-reset-required"),
            status: .tooManyRequests)
    }

    /// The page for a limit reached in the library (recovery codes), whose
    /// lock-out end the app does not see.
    var refusal: Outcome {
        Self.tooManyAttempts(
            "Too many wrong attempts for this account. Wait a while, then try again; after many, only support can help."
        )
    }
}
