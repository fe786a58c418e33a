import Foundation
public import IdentityServerState
import IdentityToolkit

/// The last public key sets a fleet fetched, kept in a shared store, so
/// that an instance that starts while Google's key route is unreachable
/// still verifies tokens, with the set another instance stored, until that
/// set expires.
///
/// Keys are public, but a key set is what decides which signatures pass:
/// whoever could write a set into the table could sign tokens for any
/// user. So the store is a `SealingStateStore`: each set is sealed with
/// AES-GCM under the fleet's `SealingKeyRing`, bound to its entry and its
/// expiry. A set written without the ring does not open, and is not used
/// (the verification fails closed, as without the store); a sealed set
/// replayed into the table is one the fleet fetched itself, and lapses
/// with the `Cache-Control` lifetime it came with.
package struct SharedKeySetStore: Sendable {
    let store: SealingStateStore
    /// The entry of this set (ID tokens' keys and session cookies' differ).
    let key: String

    /// What the store keeps: the set as the route gave it, and when it expires.
    struct Entry: Codable {
        var keys: JSONWebKeySet
        var expiresAt: Date
    }

    func save(_ set: JSONWebKeySet, expiresAt: Date) async throws {
        try await store.setValue(
            JSONEncoder().encode(Entry(keys: set, expiresAt: expiresAt)), forKey: key, expiresAt: expiresAt)
    }

    /// The stored set and its expiry; nil when there is none or it expired.
    func load(at now: Date) async throws -> (JSONWebKeySet, Date)? {
        guard let data = try await store.value(forKey: key, at: now) else { return nil }
        let entry = try JSONDecoder().decode(Entry.self, from: data)
        return entry.expiresAt > now ? (entry.keys, entry.expiresAt) : nil
    }
}

extension BaseAuth {
    /// Keeps the public key sets this instance fetches in `store`, which
    /// every instance of the fleet shares, and verifies with the stored sets
    /// while Google's key route fails: an instance that starts during an
    /// outage of the route verifies tokens until the stored sets expire
    /// (about six hours after their fetch, by Google's `Cache-Control`),
    /// says so once in its log, and counts
    /// `firebase_signing_key_fetches_total{outcome="shared"}`; it fetches
    /// from the route again when the route answers.
    ///
    /// The store must be sealed: a key set decides which signatures pass,
    /// so a set that whoever can write the table could plant would be a way
    /// to forge tokens. Sealed with the fleet's ring (AES-GCM, bound to its
    /// entry and expiry), a set written without the ring does not open and
    /// is not used: the verification fails closed, as without the store.
    ///
    /// Call it once, at start-up, before serving. A tenant's instance shares
    /// its project's key caches, so one call serves them all.
    /// - Parameter store: The fleet's shared store, sealed with the fleet's
    ///   key ring, such as
    ///   `SealingStateStore(base: postgresStores.stateStore, codec: SealedStateCodec(keyRing: ring, purpose: "signing-keys"))`.
    public func shareSigningKeys(in store: SealingStateStore) {
        idTokenVerifier.keys.share(in: SharedKeySetStore(store: store, key: "identity-admin.signing-keys.id-tokens"))
        sessionCookieVerifier.keys.share(
            in: SharedKeySetStore(store: store, key: "identity-admin.signing-keys.session-cookies"))
    }
}
