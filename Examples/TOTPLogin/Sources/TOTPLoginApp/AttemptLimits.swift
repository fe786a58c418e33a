import Crypto
import Foundation
import Logging
import IdentityOTP

/// The app's own limits on wrong passwords and codes, counted in a
/// ``TOTPAttemptStore`` that every instance shares, so that a second
/// instance does not grant the limit again.
///
/// Identity Platform limits each sign-in challenge to a few wrong codes,
/// but a new password sign-in opens a new challenge: without a count per
/// account, someone who knows the password tries codes without end. The
/// counts per account are above Identity Platform's per-challenge limit, so
/// that a person who mistypes sees Firebase's own `ERROR_TOO_MANY_REQUESTS`
/// first; the counts per client address stop one address from trying many
/// accounts. A count is taken before the check (the store's one atomic
/// call), so parallel guesses cannot all slip through.
struct AttemptLimits: Sendable {
    /// What is being tried.
    enum Kind: String, Sendable {
        case password, code
    }

    /// What the limit decided.
    enum Decision {
        case admitted
        case refused(Outcome)
    }

    let store: any TOTPAttemptStore
    /// Attempts per account and kind: 10 in a row, then a lock-out of 15
    /// minutes that doubles with each further run, and after 100 in a row
    /// the account is locked until a success through another path (a
    /// recovery code), as the library's limit does for a second factor.
    var perAccount = try! TOTPAttemptLimit(maximumFailures: 10, lockout: .seconds(15 * 60))
    /// Attempts per client address and kind in 15 minutes: a rate limit
    /// (addresses are shared and chosen by whoever sends), no final lock.
    var perAddress: [Kind: TOTPAttemptLimit] = [.password: try! .rateLimit(100, per: .seconds(15 * 60)),
                                                .code: try! .rateLimit(50, per: .seconds(15 * 60))]
    var logger = Logger(label: "TOTPLogin.limits")

    /// The store's key for an account: a digest of the normalised address,
    /// so that the store holds no email addresses.
    static func accountKey(email: String) -> String {
        let normalised = email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        return sha256Hex(normalised)
    }

    /// Counts one attempt against the account and the address; refused
    /// when either is locked. A store that cannot be reached (or an
    /// in-memory one that is full) refuses too (503): a limit that fails
    /// open is no limit.
    func admit(_ kind: Kind, account: String, address: String?) async -> Decision {
        let now = Date()
        do {
            if let address, let limit = perAddress[kind] {
                let admission = try await store.recordAttempt(for: "totplogin/\(kind.rawValue)/address/\(address)", limit: limit, at: now)
                guard admission.isCounted else {
                    logger.warning("attempt limit reached", metadata: ["kind": "\(kind.rawValue)", "per": "address"])
                    return .refused(refusal(admission, now: now))
                }
            }
            let admission = try await store.recordAttempt(for: "totplogin/\(kind.rawValue)/account/\(account)", limit: perAccount, at: now)
            guard admission.isCounted else {
                logger.warning("attempt limit reached", metadata: ["kind": "\(kind.rawValue)", "per": "account"])
                return .refused(refusal(admission, now: now))
            }
            return .admitted
        } catch {
            logger.error("attempt store unavailable", metadata: ["error": "\(error)"])
            return .refused(TOTPLoginApp.unavailable(next: "/login"))
        }
    }

    /// The account proved itself: its count starts again. (The address's
    /// count stays: one right password must not reset a spray of guesses.)
    func succeeded(_ kind: Kind, account: String) async {
        do { try await store.clearAttempts(for: "totplogin/\(kind.rawValue)/account/\(account)") } catch {
            logger.warning("could not clear an attempt count", metadata: ["error": "\(type(of: error))"])
        }
    }

    /// The app's page when a limit is reached: 429, with the app's own id
    /// (no Firebase code: Identity Platform did not refuse anything), saying
    /// how long to wait, or that only a recovery code opens the account now.
    func refusal(_ admission: TOTPAttemptAdmission, now: Date) -> Outcome {
        let explanation: String
        switch admission {
        case .lockedUntil(let until):
            let minutes = max(1, Int((until.timeIntervalSince(now) / 60).rounded(.up)))
            explanation = "Too many wrong attempts for this account. Wait \(minutes) minute\(minutes == 1 ? "" : "s"), then try again."
        default:
            explanation = "Too many wrong attempts in a row: this account's codes are locked. Sign in with a recovery code, or contact support."
        }
        return .html(Pages.error(status: 429, title: "Too many attempts", explanation: explanation,
                                 firebaseCode: nil, next: ("/login", "Back to sign-in"), id: "attempt-limit"),
                     status: .tooManyRequests)
    }

    /// The page for a limit reached in the library (recovery codes), whose
    /// lock-out end the app does not see.
    var refusal: Outcome {
        .html(Pages.error(status: 429, title: "Too many attempts",
                          explanation: "Too many wrong attempts for this account. Wait a while, then try again; after many, only support can help.",
                          firebaseCode: nil, next: ("/login", "Back to sign-in"), id: "attempt-limit"),
              status: .tooManyRequests)
    }
}
