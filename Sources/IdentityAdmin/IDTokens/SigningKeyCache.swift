package import Foundation
package import HTTPTypes
import IdentitySupport
package import IdentityToolkit
package import Logging
package import _CryptoExtras

/// The public keys that verify ID tokens, fetched from the key route and
/// kept for the `Cache-Control: max-age` they come with: a thin shell of
/// locks, fetches and tasks around ``SigningKeyStateMachine``, which makes
/// every decision.
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

    /// A usable key and its DER form, by which a fetched set is compared
    /// with the one before it (a changed key moves the generation).
    struct VerificationKey: Sendable, Equatable {
        let key: _RSA.Signing.PublicKey
        let der: Data
        init(_ key: _RSA.Signing.PublicKey) {
            self.key = key
            der = key.derRepresentation
        }
        static func == (lhs: Self, rhs: Self) -> Bool { lhs.der == rhs.der }
    }

    typealias StateMachine = SigningKeyStateMachine<VerificationKey>
    typealias KeySet = StateMachine.KeySet

    /// How long keys are kept when the response says nothing.
    package static let defaultMaxAge: TimeInterval = 300
    /// How long an expired key set is used while refreshes fail.
    package var staleGrace: TimeInterval { policy.staleGrace }
    /// The least time between two fetches caused by unknown `kid`s.
    package var minimumRefetchInterval: TimeInterval { policy.minimumRefetchInterval }
    /// The wait after a first failed fetch; it doubles with each further failure.
    package var initialBackoff: TimeInterval { policy.initialBackoff }
    /// The longest wait between two fetches after failures.
    package var maximumBackoff: TimeInterval { policy.maximumBackoff }

    private let policy: StateMachine.Policy
    private let fetch: Fetch
    private let now: @Sendable () -> Date
    private let logger: Logger
    /// Every decision (the state machine) and the background refresh's
    /// task, behind one lock, so that the task the machine started is the
    /// one kept.
    private let state: Locked<(machine: StateMachine, backgroundRefresh: Task<Void, Never>?)>
    /// Key ids already logged as skipped (each is logged once).
    private let reportedKeys = Locked<Set<String>>([])
    private let refresh = SharedFetch<KeySet>()
    /// Where the fleet keeps the last set (``share(in:)``), and whether this
    /// instance has said it is verifying with that set (once per outage).
    private let fleetCopy = Locked<(store: SharedKeySetStore?, announced: Bool)>((nil, false))

    package init(
        staleGrace: TimeInterval = 3600, minimumRefetchInterval: TimeInterval = 30,
        initialBackoff: TimeInterval = 1, maximumBackoff: TimeInterval = 300,
        logger: Logger = Logger(label: "IdentityAdmin.keys"),
        now: @escaping @Sendable () -> Date = Date.init, fetch: @escaping Fetch
    ) {
        policy = StateMachine.Policy(
            staleGrace: staleGrace, minimumRefetchInterval: minimumRefetchInterval,
            initialBackoff: initialBackoff, maximumBackoff: maximumBackoff)
        state = Locked((StateMachine(policy: policy), nil))
        self.logger = logger
        self.now = now
        self.fetch = fetch
    }

    /// The key named `kid` when the set holds it and has not expired: the
    /// common case, answered without an `async` call or a copy of the
    /// state; nil sends the caller to ``key(for:)``.
    package func freshKey(for kid: String) -> _RSA.Signing.PublicKey? {
        let time = now()
        return state.withLock { $0.machine.freshKey(for: kid, at: time)?.key }
    }

    /// The key named `kid`: what the machine decides, carried out.
    package func key(for kid: String) async throws(TokenVerificationError) -> _RSA.Signing.PublicKey {
        let time = now()
        let action = state.withLock { state in
            let action = state.machine.key(for: kid, at: time)
            if case .useAndRefreshInBackground = action { state.backgroundRefresh = backgroundRefreshTask() }
            return action
        }
        switch action {
        case .use(let key), .useAndRefreshInBackground(let key):
            return key.key
        case .unknownKey:
            throw .unknownKey(kid: kid)
        case .keysUnavailable(let failures, let lastFailure, let nextAttempt):
            throw .keysUnavailable(
                reason:
                    "the key route failed \(failures) time(s) (\(lastFailure ?? "no answer")); the next attempt is at \(nextAttempt)"
            )
        case .fetch:
            let fresh: KeySet
            do {
                fresh = try await sharedRefresh()
            } catch {
                throw .keysUnavailable(reason: Self.describe(error))
            }
            guard let key = fresh.keys[kid] else { throw .unknownKey(kid: kid) }
            return key.key
        }
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
        state.withLock { state in
            let (generation, refreshInBackground) = state.machine.generation(at: time)
            if refreshInBackground { state.backgroundRefresh = backgroundRefreshTask() }
            return generation
        }
    }

    /// Waits for the refresh running in the background, if any (tests, and
    /// a server that wants warm keys before it takes traffic).
    package func awaitBackgroundRefresh() async {
        await state.withLock { $0.backgroundRefresh }?.value
    }

    /// For ``SigningKeyRefresher``: fetches the set now unless it stays
    /// fresh beyond its refresh point (a tenth of its lifetime, at most five
    /// minutes, before it expires), and says when to call again: the next
    /// refresh point, or the end of the backoff after a failure.
    package func refreshIfDue() async -> Date {
        let time = now()
        switch state.withLock({ $0.machine.refreshAction(at: time) }) {
        case .waitUntil(let time):
            return time
        case .fetch:
            do {
                return StateMachine.refreshPoint(of: try await sharedRefresh())
            } catch {
                return state.withLock { $0.machine.nextAttempt }
            }
        }
    }

    /// The refresh the machine marked as started (made under the lock; it
    /// takes the lock only when it ends, to tell the machine).
    private func backgroundRefreshTask() -> Task<Void, Never> {
        Task { [self] in
            _ = try? await sharedRefresh()
            state.withLock { $0.machine.backgroundRefreshEnded() }
        }
    }

    /// Keeps each set fetched from the key route in `store` too, and, when
    /// the route fails, verifies with the set stored there (by this or
    /// another instance) until that set expires (``SharedKeySetStore``).
    package func share(in store: SharedKeySetStore) {
        fleetCopy.withLock { $0.store = store }
    }

    /// One fetch, shared by every caller that arrives while it runs; its
    /// outcome goes to the machine.
    private func sharedRefresh() async throws -> KeySet {
        try await refresh.value { [self] in
            do {
                let (set, expiresAt, source) = try await fetchFromRouteOrFleet()
                let fetchedAt = now()
                let keySet = KeySet(keys: try usableKeys(set), fetchedAt: fetchedAt, expiresAt: expiresAt)
                state.withLock { $0.machine.fetchSucceeded(keySet) }
                Self.countFetch(source)
                return keySet
            } catch {
                let failedAt = now()
                state.withLock { $0.machine.fetchFailed(Self.describe(error), at: failedAt) }
                Self.countFetch("failed")
                throw error
            }
        }
    }

    /// A set from the key route (kept in the fleet's store, when there is
    /// one), or, when the route fails, the fleet's stored set while it has
    /// not expired; with its expiry and where it came from (`ok`, `shared`).
    private func fetchFromRouteOrFleet() async throws -> (JSONWebKeySet, expiresAt: Date, source: String) {
        let fleet = fleetCopy.withLock { $0.store }
        do {
            let (set, headers) = try await fetch()
            let expiresAt = now().addingTimeInterval(CacheControl.maxAge(headers[.cacheControl]) ?? Self.defaultMaxAge)
            if let fleet {
                fleetCopy.withLock { $0.announced = false }
                do {
                    try await fleet.save(set, expiresAt: expiresAt)
                } catch {
                    RequestLogger.or(logger).warning(
                        "could not keep the key set in the fleet's store",
                        metadata: ["reason": "\(LogSafeText.escaping("\(error)"))"])
                }
            }
            return (set, expiresAt, "ok")
        } catch {
            let time = now()
            // The store answers only a set that has not expired.
            guard let fleet, let (set, expiresAt) = try? await fleet.load(at: time) else { throw error }
            let isFirst = fleetCopy.withLock { copy in
                defer { copy.announced = true }
                return !copy.announced
            }
            if isFirst {
                RequestLogger.or(logger).warning(
                    "the key route failed; verifying with the key set the fleet stored, until it expires",
                    metadata: [
                        "reason": "\(LogSafeText.escaping(Self.describe(error)))", "expiresAt": "\(expiresAt)",
                        "keySet": "\(fleet.key)",
                    ])
            }
            return (set, expiresAt, "shared")
        }
    }

    /// `firebase_signing_key_fetches_total` by `outcome` (`ok`, `failed`,
    /// `shared`: the route failed and the fleet's stored set served):
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
    func usableKeys(_ set: JSONWebKeySet) throws -> [String: VerificationKey] {
        var keys: [String: VerificationKey] = [:]
        for (index, key) in (set.keys ?? []).enumerated() {
            var problem = Self.unusable(key)
            if problem == nil, let kid = key.kid {
                if let n = key.n.flatMap(Data.init(lenientBase64URLEncoded:)),
                    let e = key.e.flatMap(Data.init(lenientBase64URLEncoded:)),
                    let parsed = try? _RSA.Signing.PublicKey(n: n, e: e)
                {
                    keys[kid] = VerificationKey(parsed)
                } else {
                    problem = "its n and e are not an RSA public key"
                }
            }
            if let problem { report(key.kid ?? "#\(index)", problem) }
        }
        guard !keys.isEmpty else {
            throw TokenVerificationError.keysUnavailable(reason: "the key set holds no usable RS256 signature key")
        }
        return keys
    }

    /// Logs a skipped key once per key id.
    private func report(_ kid: String, _ problem: String) {
        let isNew = reportedKeys.withLock { $0.count < 1000 && $0.insert(kid).inserted }
        guard isNew else { return }
        RequestLogger.or(logger).warning(
            "skipping a key of the key set",
            metadata: ["kid": "\(LogSafeText.escaping(kid, limit: 64))", "reason": "\(LogSafeText.escaping(problem))"])
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? TokenVerificationError, error.code == .keysUnavailable {
            return "\(error)".replacingOccurrences(of: "the public keys are unavailable: ", with: "")
        }
        return "\(error)"
    }
}
