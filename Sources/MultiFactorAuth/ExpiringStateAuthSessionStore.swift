import Foundation
public import IdentityKeyValueStore
import IdentitySupport

/// An ``AuthSessionStore`` over any `ExpiringStateStore`: signed-in users'
/// sessions under `auth-session/` keys, each lasting ``lifetime`` after its
/// last save, so that every instance of a server shares them.
///
/// Give it the PostgreSQL state store of `IdentityStoresPostgres`; a
/// session holds a refresh token, so wrap that store in
/// `IdentityServerState`'s `SealingStateStore` to keep it sealed at rest:
///
/// ```swift
/// let sessions = ExpiringStateAuthSessionStore(
///     state: SealingStateStore(base: stores.stateStore, codec: codec, unopenable: .readAsAbsent))
/// ```
public struct ExpiringStateAuthSessionStore: AuthSessionStore {
    /// Where the sessions are kept.
    public let state: any ExpiringStateStore
    /// A saved session is gone when it was not saved again for this long
    /// (an `Auth` saves on every sign-in and token refresh).
    public let lifetime: Duration

    /// Sessions kept in `state` for `lifetime` after each save.
    /// - Parameters:
    ///   - state: The store, shared by the instances that serve one user.
    ///   - lifetime: The time a session lasts without a save; 30 days by default.
    public init(state: any ExpiringStateStore, lifetime: Duration = .seconds(30 * 24 * 3600)) {
        self.state = state
        self.lifetime = lifetime
    }

    /// Sessions in this process's memory: at most `capacity`, the one
    /// nearest its expiry forgotten first (that user signs in again).
    /// - Parameters:
    ///   - capacity: The most sessions kept.
    ///   - lifetime: The time a session lasts without a save; 30 days by default.
    public init(capacity: Int = 100_000, lifetime: Duration = .seconds(30 * 24 * 3600)) {
        self.init(state: InMemoryExpiringStateStore(capacity: capacity), lifetime: lifetime)
    }

    /// Saves `session` under `key`, for ``lifetime`` from now.
    public func save(_ session: AuthSession, key: String) async throws {
        try await state.set(
            session, forKey: Self.prefix + key, expiresAt: Date().addingTimeInterval(lifetime.timeInterval))
    }

    /// The session saved under `key`, or nil when none is alive.
    public func load(key: String) async throws -> AuthSession? {
        try await state.get(AuthSession.self, forKey: Self.prefix + key)
    }

    /// Forgets the session saved under `key`.
    public func remove(key: String) async throws {
        try await state.removeValue(forKey: Self.prefix + key)
    }

    /// The keys' prefix in the shared store (the rows written by earlier
    /// releases' `PostgresAuthSessionStore` carry it too).
    static let prefix = "auth-session/"
}
