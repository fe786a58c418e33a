import Crypto
import Foundation
import Logging
import OTP

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
    /// Attempts per account and kind in one ``window``.
    var perAccount = 10
    /// Attempts per client address and kind in one ``window``.
    var perAddress: [Kind: Int] = [.password: 100, .code: 50]
    /// How long a count lasts after its last attempt (the lock-out).
    var window: TimeInterval = 15 * 60
    var logger = Logger(label: "TOTPLogin.limits")

    /// The store's key for an account: a digest of the normalised address,
    /// so that the store holds no email addresses.
    static func accountKey(email: String) -> String {
        let normalised = email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        return sha256Hex(normalised)
    }

    /// Counts one attempt against the account and the address; refused
    /// when either is at its limit. A store that cannot be reached refuses
    /// too (503): a limit that fails open is no limit.
    func admit(_ kind: Kind, account: String, address: String?) async -> Decision {
        let now = Date()
        do {
            if let address, let limit = perAddress[kind],
               try await !store.recordAttempt(for: "totplogin/\(kind.rawValue)/address/\(address)", limit: limit, at: now,
                                              expiresAt: now.addingTimeInterval(window)) {
                logger.warning("attempt limit reached", metadata: ["kind": "\(kind.rawValue)", "per": "address"])
                return .refused(refusal)
            }
            guard try await store.recordAttempt(for: "totplogin/\(kind.rawValue)/account/\(account)", limit: perAccount, at: now,
                                                expiresAt: now.addingTimeInterval(window)) else {
                logger.warning("attempt limit reached", metadata: ["kind": "\(kind.rawValue)", "per": "account"])
                return .refused(refusal)
            }
            return .admitted
        } catch {
            logger.error("attempt store unavailable", metadata: ["error": "\(type(of: error))"])
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
    /// (no Firebase code: Identity Platform did not refuse anything).
    var refusal: Outcome {
        .html(Pages.error(status: 429, title: "Too many attempts",
                          explanation: "Too many wrong attempts for this account. Wait \(Int(window / 60)) minutes, then try again.",
                          firebaseCode: nil, next: ("/login", "Back to sign-in"), id: "attempt-limit"),
              status: .tooManyRequests)
    }
}
