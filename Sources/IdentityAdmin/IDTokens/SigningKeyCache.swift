package import Foundation
package import HTTPTypes
package import IdentityToolkit
package import _CryptoExtras

/// The public keys that verify ID tokens, fetched from the key route and
/// kept for the `Cache-Control: max-age` they come with.
///
/// - Concurrent verifications during a fetch share it (one request).
/// - A `kid` the cached set lacks (a key rotation) fetches again, at most
///   once per ``minimumRefetchInterval``, so forged `kid`s cannot make the
///   verifier hammer the key route.
/// - When a refresh fails, the expired set is still used for
///   ``staleGrace``; after that verification fails with `keysUnavailable`.
package final class SigningKeyCache: Sendable {
    /// What one fetch gives: the key set and the response's header fields.
    package typealias Fetch = @Sendable () async throws -> (JSONWebKeySet, HTTPFields)

    struct KeySet: Sendable {
        var keys: [String: _RSA.Signing.PublicKey]
        var fetchedAt: Date
        var expiresAt: Date
    }

    /// How long keys are kept when the response says nothing.
    package static let defaultMaxAge: TimeInterval = 300
    /// How long an expired key set is used while refreshes fail.
    package let staleGrace: TimeInterval
    /// The least time between two fetches caused by unknown `kid`s.
    package let minimumRefetchInterval: TimeInterval

    private let fetch: Fetch
    private let now: @Sendable () -> Date
    private let current = Locked<KeySet?>(nil)
    private let refresh = SharedFetch<KeySet>()

    package init(staleGrace: TimeInterval = 3600, minimumRefetchInterval: TimeInterval = 30,
                 now: @escaping @Sendable () -> Date = Date.init, fetch: @escaping Fetch) {
        self.staleGrace = staleGrace
        self.minimumRefetchInterval = minimumRefetchInterval
        self.now = now
        self.fetch = fetch
    }

    /// The key named `kid`.
    package func key(for kid: String) async throws(TokenVerificationError) -> _RSA.Signing.PublicKey {
        let time = now()
        let cached = current.current
        if let cached, time < cached.expiresAt {
            if let key = cached.keys[kid] { return key }
            // A fresh set without this kid: fetch again only if the last
            // fetch is old enough (a rotation), else the kid is unknown.
            guard time.timeIntervalSince(cached.fetchedAt) >= minimumRefetchInterval else { throw .unknownKey(kid: kid) }
        }
        let fresh: KeySet
        do {
            fresh = try await refresh.value { [fetch, now, current] in
                let (set, headers) = try await fetch()
                let fetchedAt = now()
                let maxAge = Self.maxAge(headers[.cacheControl]) ?? Self.defaultMaxAge
                let keySet = KeySet(keys: try Self.publicKeys(set), fetchedAt: fetchedAt, expiresAt: fetchedAt.addingTimeInterval(maxAge))
                current.withLock { $0 = keySet }
                return keySet
            }
        } catch {
            // The route is down or answers garbage: an expired set still
            // serves within the grace period.
            if let cached, time < cached.expiresAt.addingTimeInterval(staleGrace), let key = cached.keys[kid] { return key }
            throw .keysUnavailable(reason: Self.describe(error))
        }
        guard let key = fresh.keys[kid] else { throw .unknownKey(kid: kid) }
        return key
    }

    /// `max-age` of a `Cache-Control` value, in seconds; 0 for `no-store`
    /// and `no-cache`; nil when it has none.
    static func maxAge(_ cacheControl: String?) -> TimeInterval? {
        guard let cacheControl else { return nil }
        for directive in cacheControl.lowercased().split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts[0] == "no-store" || parts[0] == "no-cache" { return 0 }
            if parts[0] == "max-age", parts.count == 2, let seconds = Int(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))), seconds >= 0 {
                return TimeInterval(min(seconds, 7 * 24 * 3600))
            }
        }
        return nil
    }

    /// The RSA keys of a key set by `kid` (other key types are skipped).
    static func publicKeys(_ set: JSONWebKeySet) throws -> [String: _RSA.Signing.PublicKey] {
        var keys: [String: _RSA.Signing.PublicKey] = [:]
        for key in set.keys where key.kty == "RSA" {
            guard let n = key.n.flatMap(Data.init(base64URLEncoded:)), let e = key.e.flatMap(Data.init(base64URLEncoded:)) else { continue }
            keys[key.kid] = try _RSA.Signing.PublicKey(n: n, e: e)
        }
        guard !keys.isEmpty else { throw TokenVerificationError.keysUnavailable(reason: "the key set holds no RSA key") }
        return keys
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? TokenVerificationError, case .keysUnavailable(let reason) = error { return reason }
        return "\(error)"
    }
}
