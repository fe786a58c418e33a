import Foundation
import IdentitySupport
import IdentityToolkit
import Logging

/// The account lookups of `checkRevoked` checks, treated as the key cache
/// treats the key route, so that an unreachable backend costs requests a
/// fast 503 instead of each one's full deadline:
/// - one lookup in flight per account, however many requests ask at once;
/// - after ``openingFailures`` failed lookups in a row the breaker opens:
///   lookups fail at once for ``initialOpenInterval`` (doubling with each
///   further failure, up to ``maximumOpenInterval``); then one lookup tries
///   the backend while the others keep failing fast, and its success closes
///   the breaker;
/// - a warning says so, at most once per ``warningInterval``.
///
/// States looked up within their staleness bound are served by the
/// ``AccountStateCache`` before a lookup is asked for. Shared by an admin and
/// its tenants' instances (one backend).
final class AccountLookups: Sendable {
    typealias AccountState = AccountStateCache.AccountState
    typealias Key = AccountStateCache.Key

    private struct Breaker {
        var consecutiveFailures = 0
        var openUntil = Date.distantPast
        /// A lookup trying the backend after the breaker's open interval.
        var trialRunning = false
        var lastWarning = Date.distantPast
        var lastFailure = ""
    }

    /// Failed lookups in a row that open the breaker.
    let openingFailures: Int
    /// How long the breaker first stays open.
    let initialOpenInterval: TimeInterval
    /// The longest it stays open.
    let maximumOpenInterval: TimeInterval
    /// The least time between two warnings.
    let warningInterval: TimeInterval

    private let fetches = KeyedSharedFetch<Key, AccountState>()
    private let breaker = Locked(Breaker())
    private let now: @Sendable () -> Date
    private let logger: Logger

    init(
        openingFailures: Int = 3, initialOpenInterval: TimeInterval = 1, maximumOpenInterval: TimeInterval = 30,
        warningInterval: TimeInterval = 60,
        logger: Logger = Logger(label: "IdentityAdmin.accounts"), now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.openingFailures = openingFailures
        self.initialOpenInterval = initialOpenInterval
        self.maximumOpenInterval = maximumOpenInterval
        self.warningInterval = warningInterval
        self.logger = logger
        self.now = now
    }

    /// `key`'s state from `lookUp`, shared with concurrent callers for the
    /// same key; refused at once while the breaker is open.
    func state(for key: Key, lookUp: @escaping @Sendable () async throws -> AccountState)
        async throws(TokenVerificationError) -> AccountState
    {
        let isTrial = try admit()
        defer { if isTrial { breaker.withLock { $0.trialRunning = false } } }
        do {
            return try await fetches.value(for: key) { [self] in
                do {
                    let state = try await lookUp()
                    succeeded()
                    return state
                } catch {
                    failed(error)
                    throw error
                }
            }
        } catch {
            throw .revocationCheckFailed(reason: "\(error)")
        }
    }

    /// Whether a lookup may go to the backend now; true when it is the one
    /// trial after the open interval.
    private func admit() throws(TokenVerificationError) -> Bool {
        let time = now()
        let admission: Result<Bool, TokenVerificationError> = breaker.withLock { breaker in
            guard breaker.consecutiveFailures >= openingFailures else { return .success(false) }
            if time < breaker.openUntil || breaker.trialRunning {
                let wait = max(0, breaker.openUntil.timeIntervalSince(time))
                return .failure(
                    .revocationCheckFailed(
                        reason:
                            "the last \(breaker.consecutiveFailures) account lookups failed (\(breaker.lastFailure)); the next try is in \(Int(wait.rounded(.up))) s"
                    ))
            }
            breaker.trialRunning = true
            return .success(true)
        }
        return try admission.get()
    }

    private func succeeded() {
        breaker.withLock { breaker in
            breaker.consecutiveFailures = 0
            breaker.openUntil = .distantPast
        }
    }

    private func failed(_ error: any Error) {
        let time = now()
        let description = LogSafeText.escaping("\(error)", limit: 200)
        let warning: String? = breaker.withLock { breaker in
            breaker.consecutiveFailures += 1
            breaker.lastFailure = description
            if breaker.consecutiveFailures >= openingFailures {
                breaker.openUntil = time.addingTimeInterval(
                    doubled(
                        initialOpenInterval, times: breaker.consecutiveFailures - openingFailures,
                        atMost: maximumOpenInterval))
            }
            guard time.timeIntervalSince(breaker.lastWarning) >= warningInterval else { return nil }
            breaker.lastWarning = time
            return breaker.consecutiveFailures >= openingFailures
                ? "account lookups for checkRevoked failed \(breaker.consecutiveFailures) times in a row: requests that check revocation get 503 at once until one succeeds"
                : "an account lookup for checkRevoked failed: the request gets 503"
        }
        if let warning {
            RequestLogger.or(logger).warning("\(warning)", metadata: ["error": "\(description)"])
        }
    }
}
