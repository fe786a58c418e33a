import Foundation
import IdentitySupport

/// Every decision of ``SigningKeyCache``, apart from its lock, its fetches
/// and its tasks, as async-http-client keeps a request's decisions in
/// `Transaction+StateMachine`: each call takes the time and says what the
/// shell does next. Its tests drive it with times and outcomes alone.
///
/// The rules:
/// - a key of an unexpired set is used; a `kid` the set lacks fetches
///   again only when the set is at least ``Policy/minimumRefetchInterval``
///   old (a rotation), else it is unknown;
/// - an expired set is still used for ``Policy/staleGrace`` while one
///   refresh runs in the background;
/// - with nothing usable, the caller fetches, unless a failed fetch set a
///   backoff (``Policy/initialBackoff`` doubling to ``Policy/maximumBackoff``);
/// - ``generation`` moves when a fetched set drops or changes a key of the
///   set before it (a key added beside the old ones does not move it).
struct SigningKeyStateMachine<Key: Sendable & Equatable>: Sendable {
    /// The timings the rules use.
    struct Policy: Sendable {
        var staleGrace: TimeInterval
        var minimumRefetchInterval: TimeInterval
        var initialBackoff: TimeInterval
        var maximumBackoff: TimeInterval
    }

    /// A fetched set: the usable keys by `kid`, and when it was fetched and expires.
    struct KeySet: Sendable {
        var keys: [String: Key]
        var fetchedAt: Date
        var expiresAt: Date
    }

    /// What a caller that needs a key does.
    enum KeyAction: Equatable {
        /// Use this key.
        case use(Key)
        /// Use this key (expired, within the grace) and start a background refresh.
        case useAndRefreshInBackground(Key)
        /// Fetch (shared with the callers that also fetch), then look the `kid` up in the new set.
        case fetch
        /// Fail: the `kid` is unknown to a fresh set.
        case unknownKey
        /// Fail: nothing usable, and the backoff forbids a fetch until `nextAttempt`.
        case keysUnavailable(failures: Int, lastFailure: String?, nextAttempt: Date)
    }

    /// What the refresher does now.
    enum RefreshAction: Equatable {
        /// Nothing until then.
        case waitUntil(Date)
        /// Fetch now.
        case fetch
    }

    let policy: Policy
    private(set) var keySet: KeySet?
    /// Failed fetches since the last success.
    private(set) var consecutiveFailures = 0
    /// No fetch starts before this time.
    private(set) var nextAttempt = Date.distantPast
    /// Why the last fetch failed.
    private(set) var lastFailure: String?
    /// Moves when a fetched set drops a key or changes one.
    private(set) var generation: UInt64 = 0
    /// Whether a background refresh runs (the shell holds its task).
    private(set) var refreshingInBackground = false

    init(policy: Policy) {
        self.policy = policy
    }

    /// The key named `kid` when an unexpired set holds it: the hot path,
    /// which changes nothing.
    func freshKey(for kid: String, at time: Date) -> Key? {
        guard let keySet, time < keySet.expiresAt else { return nil }
        return keySet.keys[kid]
    }

    /// What a caller that needs `kid` at `time` does.
    mutating func key(for kid: String, at time: Date) -> KeyAction {
        if let keySet {
            if time < keySet.expiresAt {
                if let key = keySet.keys[kid] { return .use(key) }
                // A fresh set without this kid: fetch again only if the last
                // fetch is old enough (a rotation), else the kid is unknown.
                guard time.timeIntervalSince(keySet.fetchedAt) >= policy.minimumRefetchInterval else {
                    return .unknownKey
                }
            } else if time < keySet.expiresAt.addingTimeInterval(policy.staleGrace), let key = keySet.keys[kid] {
                return startsBackgroundRefresh(at: time) ? .useAndRefreshInBackground(key) : .use(key)
            }
        }
        guard time >= nextAttempt else {
            if let keySet, time < keySet.expiresAt { return .unknownKey }
            return .keysUnavailable(failures: consecutiveFailures, lastFailure: lastFailure, nextAttempt: nextAttempt)
        }
        return .fetch
    }

    /// The generation at `time`, and whether the shell starts a background
    /// refresh: the set has expired, so that a verifier answering from its
    /// verified-token cache (which asks for no key) learns of a rotation as
    /// soon as one that checks signatures would.
    mutating func generation(at time: Date) -> (generation: UInt64, refreshInBackground: Bool) {
        let expired = keySet.map { time >= $0.expiresAt } ?? false
        return (generation, expired && startsBackgroundRefresh(at: time))
    }

    /// Marks a background refresh as started when none runs and the backoff allows one.
    private mutating func startsBackgroundRefresh(at time: Date) -> Bool {
        guard !refreshingInBackground, time >= nextAttempt else { return false }
        refreshingInBackground = true
        return true
    }

    /// The background refresh ended (either way).
    mutating func backgroundRefreshEnded() {
        refreshingInBackground = false
    }

    /// A fetch succeeded: the set is kept, the backoff cleared, and the
    /// generation moved if a key of the old set is gone or changed.
    mutating func fetchSucceeded(_ set: KeySet) {
        if let previous = keySet?.keys, previous.contains(where: { kid, key in set.keys[kid] != key }) {
            generation &+= 1
        }
        keySet = set
        consecutiveFailures = 0
        nextAttempt = .distantPast
        lastFailure = nil
    }

    /// A fetch failed at `time` for `reason`: the next waits the backoff.
    mutating func fetchFailed(_ reason: String, at time: Date) {
        consecutiveFailures += 1
        nextAttempt = time.addingTimeInterval(
            doubled(policy.initialBackoff, times: consecutiveFailures - 1, atMost: policy.maximumBackoff))
        lastFailure = reason
    }

    /// For the refresher: fetch now unless the set stays fresh beyond its
    /// refresh point (a tenth of its lifetime, at most five minutes, before
    /// it expires), or the backoff forbids it.
    func refreshAction(at time: Date) -> RefreshAction {
        if let keySet {
            let point = Self.refreshPoint(of: keySet)
            if time < point { return .waitUntil(point) }
        }
        return time >= nextAttempt ? .fetch : .waitUntil(nextAttempt)
    }

    /// When the refresher fetches `set` again.
    static func refreshPoint(of set: KeySet) -> Date {
        let margin = min(300, set.expiresAt.timeIntervalSince(set.fetchedAt) / 10)
        return set.expiresAt.addingTimeInterval(-margin)
    }
}
