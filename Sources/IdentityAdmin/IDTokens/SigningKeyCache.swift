package import Foundation
import IdentityOTPFormats
package import HTTPTypes
package import IdentityToolkit
package import Logging
package import _CryptoExtras

/// The public keys that verify ID tokens, fetched from the key route and
/// kept for the `Cache-Control: max-age` they come with.
///
/// A verification never waits on the key route when it has keys to use:
/// - Concurrent verifications during a fetch share it (one request).
/// - Once the set expires it is still used, for ``staleGrace``, while one
///   refresh runs in the background; a blackholed route then costs no
///   verification its deadline.
/// - After a failed fetch the next one waits an exponentially growing
///   delay (``initialBackoff`` doubling up to ``maximumBackoff``), so a
///   route that is down is not asked again on every request.
/// - A `kid` the cached set lacks (a key rotation) fetches again, at most
///   once per ``minimumRefetchInterval``, so forged `kid`s cannot make the
///   verifier hammer the key route.
/// - Keys that are not RS256 signature keys, or that do not parse, are
///   skipped (each logged once); a set is refused only when no usable key
///   is left.
package final class SigningKeyCache: Sendable {
    /// What one fetch gives: the key set and the response's header fields.
    package typealias Fetch = @Sendable () async throws -> (JSONWebKeySet, HTTPFields)

    struct KeySet: Sendable {
        var keys: [String: _RSA.Signing.PublicKey]
        var fetchedAt: Date
        var expiresAt: Date
    }

    private struct State: Sendable {
        var keySet: KeySet?
        /// Failed fetches since the last success.
        var consecutiveFailures = 0
        /// No fetch starts before this time (the backoff after failures).
        var nextAttempt = Date.distantPast
        /// Why the last fetch failed, for the error when nothing is usable.
        var lastFailure: String?
        /// The refresh running in the background, if any.
        var backgroundRefresh: Task<Void, Never>?
        /// Key ids already logged as skipped (each is logged once).
        var reportedKeys: Set<String> = []
        /// Moves when a fetched set drops a key or changes one (``generation``).
        var generation: UInt64 = 0
    }

    /// How long keys are kept when the response says nothing.
    package static let defaultMaxAge: TimeInterval = 300
    /// How long an expired key set is used while refreshes fail.
    package let staleGrace: TimeInterval
    /// The least time between two fetches caused by unknown `kid`s.
    package let minimumRefetchInterval: TimeInterval
    /// The wait after a first failed fetch; it doubles with each further failure.
    package let initialBackoff: TimeInterval
    /// The longest wait between two fetches after failures.
    package let maximumBackoff: TimeInterval

    private let fetch: Fetch
    private let now: @Sendable () -> Date
    private let logger: Logger
    private let state = Locked(State())
    private let refresh = SharedFetch<KeySet>()

    package init(staleGrace: TimeInterval = 3600, minimumRefetchInterval: TimeInterval = 30,
                 initialBackoff: TimeInterval = 1, maximumBackoff: TimeInterval = 300,
                 logger: Logger = Logger(label: "IdentityAdmin.keys"),
                 now: @escaping @Sendable () -> Date = Date.init, fetch: @escaping Fetch) {
        self.staleGrace = staleGrace
        self.minimumRefetchInterval = minimumRefetchInterval
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
        self.logger = logger
        self.now = now
        self.fetch = fetch
    }

    /// The key named `kid` when the set holds it and has not expired: the
    /// common case, answered without an `async` call or a copy of the
    /// state; nil sends the caller to ``key(for:)``.
    package func freshKey(for kid: String) -> _RSA.Signing.PublicKey? {
        let time = now()
        return state.withLock { state in
            guard let keySet = state.keySet, time < keySet.expiresAt else { return nil }
            return keySet.keys[kid]
        }
    }

    /// The key named `kid`.
    package func key(for kid: String) async throws(TokenVerificationError) -> _RSA.Signing.PublicKey {
        let time = now()
        let current = state.current
        if let cached = current.keySet {
            if time < cached.expiresAt {
                if let key = cached.keys[kid] { return key }
                // A fresh set without this kid: fetch again only if the last
                // fetch is old enough (a rotation), else the kid is unknown.
                guard time.timeIntervalSince(cached.fetchedAt) >= minimumRefetchInterval else { throw .unknownKey(kid: kid) }
            } else if time < cached.expiresAt.addingTimeInterval(staleGrace), let key = cached.keys[kid] {
                // Expired but within the grace: serve it, refresh behind.
                refreshInBackground(at: time)
                return key
            }
        }
        // Nothing usable for this kid: wait for a fetch, unless backing off.
        guard time >= current.nextAttempt else {
            if current.keySet.map({ time < $0.expiresAt }) == true { throw .unknownKey(kid: kid) }
            throw .keysUnavailable(reason: "the key route failed \(current.consecutiveFailures) time(s) (\(current.lastFailure ?? "no answer")); "
                                   + "the next attempt is at \(current.nextAttempt)")
        }
        let fresh: KeySet
        do {
            fresh = try await sharedRefresh()
        } catch {
            let reason = Self.describe(error)
            throw .keysUnavailable(reason: reason)
        }
        guard let key = fresh.keys[kid] else { throw .unknownKey(kid: kid) }
        return key
    }

    /// Moves whenever a fetched set lacks a key of the set before it, or
    /// holds another key under its `kid`: what a token verified with the
    /// old set needs re-checked. A key added beside the old ones (Google
    /// publishes the next key ahead of its use) does not move it.
    ///
    /// Read at `time`, it also starts a refresh in the background when the
    /// set has expired, so that a verifier answering from its
    /// verified-token cache (which never asks for a key) still learns of a
    /// rotation as soon as one that checks signatures would.
    package func generation(at time: Date) -> UInt64 {
        let (generation, expired) = state.withLock { state in
            (state.generation, state.keySet.map { time >= $0.expiresAt } ?? false)
        }
        if expired { refreshInBackground(at: time) }
        return generation
    }

    /// Waits for the refresh running in the background, if any (tests, and
    /// a server that wants warm keys before it takes traffic).
    package func awaitBackgroundRefresh() async {
        await state.current.backgroundRefresh?.value
    }

    /// For ``SigningKeyRefresher``: fetches the set now unless it stays
    /// fresh beyond its refresh point (a tenth of its lifetime, at most five
    /// minutes, before it expires), and says when to call again: the next
    /// refresh point, or the end of the backoff after a failure.
    package func refreshIfDue() async -> Date {
        func refreshPoint(_ set: KeySet) -> Date {
            let margin = min(300, set.expiresAt.timeIntervalSince(set.fetchedAt) / 10)
            return set.expiresAt.addingTimeInterval(-margin)
        }
        let current = state.current
        if let set = current.keySet, now() < refreshPoint(set) { return refreshPoint(set) }
        guard now() >= current.nextAttempt else { return current.nextAttempt }
        do {
            return refreshPoint(try await sharedRefresh())
        } catch {
            return state.current.nextAttempt
        }
    }

    /// Starts one refresh in the background unless one runs or the backoff forbids it.
    private func refreshInBackground(at time: Date) {
        state.withLock { state in
            guard state.backgroundRefresh == nil, time >= state.nextAttempt else { return }
            state.backgroundRefresh = Task { [self] in
                _ = try? await sharedRefresh()
                self.state.withLock { $0.backgroundRefresh = nil }
            }
        }
    }

    /// One fetch, shared by every caller that arrives while it runs; its
    /// outcome updates the set or the backoff.
    private func sharedRefresh() async throws -> KeySet {
        try await refresh.value { [self] in
            do {
                let (set, headers) = try await fetch()
                let fetchedAt = now()
                let maxAge = CacheControl.maxAge(headers[.cacheControl]) ?? Self.defaultMaxAge
                let keySet = KeySet(keys: try usableKeys(set), fetchedAt: fetchedAt, expiresAt: fetchedAt.addingTimeInterval(maxAge))
                state.withLock {
                    if let previous = $0.keySet?.keys,
                       previous.contains(where: { kid, key in keySet.keys[kid]?.derRepresentation != key.derRepresentation }) {
                        $0.generation &+= 1
                    }
                    $0.keySet = keySet
                    $0.consecutiveFailures = 0
                    $0.nextAttempt = .distantPast
                    $0.lastFailure = nil
                }
                Self.countFetch("ok")
                return keySet
            } catch {
                let failedAt = now()
                state.withLock { state in
                    state.consecutiveFailures += 1
                    let delay = doubled(initialBackoff, times: state.consecutiveFailures - 1, atMost: maximumBackoff)
                    state.nextAttempt = failedAt.addingTimeInterval(delay)
                    state.lastFailure = Self.describe(error)
                }
                Self.countFetch("failed")
                throw error
            }
        }
    }

    /// `firebase_signing_key_fetches_total` by `outcome` (`ok`, `failed`):
    /// one per request to the key route, however many callers shared it.
    private static func countFetch(_ outcome: String) {
        Telemetry.counter("firebase_signing_key_fetches_total", [("outcome", outcome)]).increment()
    }

    /// Why a key of a set cannot verify RS256 signatures; nil when it can.
    static func unusable(_ key: JSONWebKey) -> String? {
        guard key.kty == "RSA" else { return "kty is \(key.kty.map { "\"\($0)\"" } ?? "absent"), not \"RSA\"" }
        guard key.kid?.isEmpty == false else { return "it has no kid" }
        if let use = key.use, use != "sig" { return "use is \"\(use)\", not \"sig\"" }
        if let alg = key.alg, alg != SigningAlgorithm.rs256.rawValue { return "alg is \"\(alg)\", not \"RS256\"" }
        return nil
    }

    /// The RS256 signature keys of a set by `kid`. A key that is of another
    /// type, use or algorithm, or that does not parse, is skipped and logged
    /// once; the set is refused only when no usable key is left.
    func usableKeys(_ set: JSONWebKeySet) throws -> [String: _RSA.Signing.PublicKey] {
        var keys: [String: _RSA.Signing.PublicKey] = [:]
        for (index, key) in (set.keys ?? []).enumerated() {
            var problem = Self.unusable(key)
            if problem == nil, let kid = key.kid {
                if let n = key.n.flatMap(Data.init(lenientBase64URLEncoded:)), let e = key.e.flatMap(Data.init(lenientBase64URLEncoded:)),
                   let parsed = try? _RSA.Signing.PublicKey(n: n, e: e) {
                    keys[kid] = parsed
                } else {
                    problem = "its n and e are not an RSA public key"
                }
            }
            if let problem { report(key.kid ?? "#\(index)", problem) }
        }
        guard !keys.isEmpty else { throw TokenVerificationError.keysUnavailable(reason: "the key set holds no usable RS256 signature key") }
        return keys
    }

    /// Logs a skipped key once per key id.
    private func report(_ kid: String, _ problem: String) {
        let isNew = state.withLock { $0.reportedKeys.count < 1000 && $0.reportedKeys.insert(kid).inserted }
        guard isNew else { return }
        RequestLogger.or(logger).warning("skipping a key of the key set", metadata: ["kid": "\(LogSafeText.escaping(kid, limit: 64))", "reason": "\(LogSafeText.escaping(problem))"])
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? TokenVerificationError, error.code == .keysUnavailable {
            return "\(error)".replacingOccurrences(of: "the public keys are unavailable: ", with: "")
        }
        return "\(error)"
    }
}
