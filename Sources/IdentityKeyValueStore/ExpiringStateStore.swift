public import Foundation
import IdentitySupport

/// A small key-value store whose entries expire: where a server keeps state
/// in flight between two requests (a `MultiFactorResolver` snapshot
/// between the password and the code, a pending TOTP enrollment) when it
/// does not seal that state into the browser's cookie.
///
/// State a second instance needs: an app that runs several instances gives
/// every one the same store (the PostgreSQL one of `IdentityStoresPostgres`).
/// Values that hold secrets can be sealed at rest by wrapping the store in
/// `IdentityServerState`'s `SealingStateStore`.
public protocol ExpiringStateStore: Sendable {
    /// Keeps `value` under `key` until `expiresAt`, replacing what was there.
    func setValue(_ value: Data, forKey key: String, expiresAt: Date) async throws
    /// The value under `key`, or nil when there is none or it expired by `now`.
    func value(forKey key: String, at now: Date) async throws -> Data?
    /// The value under `key` (nil when none or expired), removed in the same
    /// atomic step, so that of two concurrent takers exactly one gets it:
    /// for state that must be used once.
    func takeValue(forKey key: String, at now: Date) async throws -> Data?
    /// Forgets the value under `key`.
    func removeValue(forKey key: String) async throws
}

extension ExpiringStateStore {
    /// Keeps `value` as JSON under `key` until `expiresAt`.
    /// - Throws: The encoder's error, or the store's.
    public func set<Value: Encodable>(_ value: Value, forKey key: String, expiresAt: Date) async throws {
        try await setValue(try JSONEncoder().encode(value), forKey: key, expiresAt: expiresAt)
    }

    /// The `Value` kept as JSON under `key`, or nil when there is none or it expired.
    /// - Throws: The decoder's error when the bytes are not a `Value`, or the store's.
    public func get<Value: Decodable>(_ type: Value.Type, forKey key: String, at now: Date = Date()) async throws -> Value? {
        guard let data = try await value(forKey: key, at: now) else { return nil }
        return try JSONDecoder().decode(Value.self, from: data)
    }

    /// The `Value` kept as JSON under `key`, removed in the same atomic step.
    public func take<Value: Decodable>(_ type: Value.Type, forKey key: String, at now: Date = Date()) async throws -> Value? {
        guard let data = try await takeValue(forKey: key, at: now) else { return nil }
        return try JSONDecoder().decode(Value.self, from: data)
    }
}

/// An in-memory ``ExpiringStateStore``: the embedded default, for one
/// process (tests, a single instance). Bounded: past `capacity` the
/// entries nearest their expiry go first.
public actor InMemoryExpiringStateStore: ExpiringStateStore {
    private var entries: ExpiringEntries<String, Data>

    /// An empty store.
    /// - Parameter capacity: The most entries kept.
    public init(capacity: Int = 100_000) {
        entries = ExpiringEntries(capacity: max(1, capacity))
    }

    /// Keeps `value` under `key` until `expiresAt`.
    public func setValue(_ value: Data, forKey key: String, expiresAt: Date) {
        entries.set(value, for: key, expiresAt: expiresAt, now: Date())
    }

    /// The live value under `key` at `now`.
    public func value(forKey key: String, at now: Date) -> Data? {
        entries.value(for: key, at: now)
    }

    /// The live value under `key` at `now`, removed.
    public func takeValue(forKey key: String, at now: Date) -> Data? {
        defer { entries.remove(key) }
        return entries.value(for: key, at: now)
    }

    /// Forgets the value under `key`.
    public func removeValue(forKey key: String) {
        entries.remove(key)
    }

    /// How many entries are kept (expired ones may remain until the next write).
    public var count: Int { entries.count }
}
