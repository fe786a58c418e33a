public import Foundation
// The protocol and the in-memory store live in the small module that
// MultiFactorAuth and the PostgreSQL stores also build on; an app that
// imports this module keeps naming them as before.
@_exported public import IdentityKeyValueStore

/// An `ExpiringStateStore` that seals every value before `base` keeps it
/// (AES-GCM with ``SealedStateCodec``, bound to its key so that a value
/// copied to another key does not open): a database then holds no snapshot,
/// TOTP key or pending credential in clear. A value that no longer opens
/// (its key rotated out of the ring, or altered) reads as absent.
public struct SealingStateStore: ExpiringStateStore {
    /// Where the sealed values are kept.
    public let base: any ExpiringStateStore
    /// The codec that seals them.
    public let codec: SealedStateCodec

    /// `base`, with values sealed by `codec`.
    public init(base: any ExpiringStateStore, codec: SealedStateCodec) {
        self.base = base
        self.codec = codec
    }

    /// Seals `value` (bound to `key`, expiring with it) and keeps it in `base`.
    public func setValue(_ value: Data, forKey key: String, expiresAt: Date) async throws {
        let sealed = try codec.sealData(value, expiresAt: expiresAt, boundTo: key)
        try await base.setValue(Data(sealed.utf8), forKey: key, expiresAt: expiresAt)
    }

    /// The opened value under `key`; nil when absent, expired or not opening.
    public func value(forKey key: String, at now: Date) async throws -> Data? {
        try await base.value(forKey: key, at: now).flatMap { open($0, key: key, now: now) }
    }

    /// The opened value under `key`, removed from `base`.
    public func takeValue(forKey key: String, at now: Date) async throws -> Data? {
        try await base.takeValue(forKey: key, at: now).flatMap { open($0, key: key, now: now) }
    }

    /// Forgets the value under `key`.
    public func removeValue(forKey key: String) async throws {
        try await base.removeValue(forKey: key)
    }

    /// Swaps in `newValue` (sealed) when the opened live value is
    /// `expected`: sealing is randomised, so the comparison is on the
    /// opened bytes, and the swap in `base` on the sealed ones read.
    public func compareAndSwapValue(forKey key: String, expected: Data?, newValue: Data?, expiresAt: Date, at now: Date) async throws -> Bool {
        let stored = try await base.value(forKey: key, at: now)
        // A value that no longer opens reads as none, and may be replaced.
        guard stored.flatMap({ open($0, key: key, now: now) }) == expected else { return false }
        let sealed = try newValue.map { Data(try codec.sealData($0, expiresAt: expiresAt, boundTo: key).utf8) }
        return try await base.compareAndSwapValue(forKey: key, expected: stored, newValue: sealed, expiresAt: expiresAt, at: now)
    }

    /// The update on `base`'s own, each attempt reading once: `decide` is
    /// given the opened value, what it keeps is sealed, and the swap in
    /// `base` is on the sealed bytes just read.
    public func updateValue<Result: Sendable>(forKey key: String, at now: Date, maxAttempts: Int,
                                              _ decide: (Data?) throws -> ExpiringStateUpdate<Result>) async throws -> Result {
        try await base.updateValue(forKey: key, at: now, maxAttempts: maxAttempts) { stored in
            // A value that no longer opens reads as none, and may be replaced.
            switch try decide(stored.flatMap { open($0, key: key, now: now) }) {
            case .store(let value, let expiresAt, let result):
                return .store(Data(try codec.sealData(value, expiresAt: expiresAt, boundTo: key).utf8), expiresAt: expiresAt, result: result)
            case .remove(let result):
                return .remove(result: result)
            case .keep(let result):
                return .keep(result: result)
            }
        }
    }

    /// `base`'s time: sealing changes what is kept, not whose clock judges it.
    public func storeTime(callerTime: Date) async throws -> Date {
        try await base.storeTime(callerTime: callerTime)
    }

    private func open(_ stored: Data, key: String, now: Date) -> Data? {
        guard let text = String(data: stored, encoding: .utf8) else { return nil }
        return try? codec.openData(text, boundTo: key, now: now)
    }
}
