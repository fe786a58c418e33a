public import Foundation
// The protocol and the in-memory store live in the small module that
// MultiFactorAuth and the PostgreSQL stores also build on; an app that
// imports this module keeps naming them as before.
@_exported public import IdentityKeyValueStore
import IdentitySupport
public import Logging

/// An `ExpiringStateStore` that seals every value before `base` keeps it
/// (AES-GCM with ``SealedStateCodec``, bound to its key so that a value
/// copied to another key does not open): a database then holds no snapshot,
/// TOTP key or pending credential in clear.
///
/// A value that no longer opens (its key rotated out of the ring, or
/// altered) fails the call by default (``UnopenableValues/fail``): a
/// security record read as absent would be a lock-out or a replay mark
/// forgotten, so attempt counts, replay marks and recovery codes must
/// never be sealed with ``UnopenableValues/readAsAbsent``. That one is for
/// state whose loss only costs a new sign-in (sessions, a browser's state).
/// An expired value reads as absent either way.
public struct SealingStateStore: ExpiringStateStore {
    /// What a read does with a stored value that no longer opens.
    public enum UnopenableValues: Sendable, Hashable {
        /// The call throws the `SealedStateError` (logged once per store):
        /// for security records, which must fail closed.
        case fail
        /// The value reads as absent and may be replaced: for state whose
        /// loss asks the user to sign in again, such as sessions.
        case readAsAbsent
    }

    /// Where the sealed values are kept.
    public let base: any ExpiringStateStore
    /// The codec that seals them.
    public let codec: SealedStateCodec
    /// What a read does with a value that no longer opens.
    public let unopenable: UnopenableValues
    private let logger: Logger
    private let loggedUnopenable = Locked(false)

    /// `base`, with values sealed by `codec`; a value that no longer opens
    /// fails the call (``UnopenableValues/fail``).
    public init(base: any ExpiringStateStore, codec: SealedStateCodec) {
        self.init(base: base, codec: codec, unopenable: .fail)
    }

    /// `base`, with values sealed by `codec`, reading those that no longer
    /// open as `unopenable` says.
    /// - Parameters:
    ///   - base: Where the sealed values are kept.
    ///   - codec: The codec that seals them.
    ///   - unopenable: What a read does with a value that no longer opens.
    ///   - logger: Where the first value that did not open is reported (its
    ///     key's id and the reason, never the value).
    public init(
        base: any ExpiringStateStore, codec: SealedStateCodec, unopenable: UnopenableValues,
        logger: Logger = Logger(label: "IdentityServerState.SealingStateStore")
    ) {
        self.base = base
        self.codec = codec
        self.unopenable = unopenable
        self.logger = logger
    }

    /// Seals `value` (bound to `key`, expiring with it) and keeps it in `base`.
    public func setValue(_ value: Data, forKey key: String, expiresAt: Date) async throws {
        let sealed = try codec.sealData(value, expiresAt: expiresAt, boundTo: key)
        try await base.setValue(Data(sealed.utf8), forKey: key, expiresAt: expiresAt)
    }

    /// The opened value under `key`; nil when absent, expired or not opening.
    public func value(forKey key: String, at now: Date) async throws -> Data? {
        try await base.value(forKey: key, at: now).flatMap { try open($0, key: key, now: now) }
    }

    /// The opened value under `key`, removed from `base`.
    public func takeValue(forKey key: String, at now: Date) async throws -> Data? {
        try await base.takeValue(forKey: key, at: now).flatMap { try open($0, key: key, now: now) }
    }

    /// Forgets the value under `key`.
    public func removeValue(forKey key: String) async throws {
        try await base.removeValue(forKey: key)
    }

    /// Swaps in `newValue` (sealed) when the opened live value is
    /// `expected`: sealing is randomised, so the comparison is on the
    /// opened bytes, and the swap in `base` on the sealed ones read.
    public func compareAndSwapValue(forKey key: String, expected: Data?, newValue: Data?, expiresAt: Date, at now: Date)
        async throws -> Bool
    {
        let stored = try await base.value(forKey: key, at: now)
        // A value that no longer opens fails, or reads as none and may be replaced.
        guard try stored.flatMap({ try open($0, key: key, now: now) }) == expected else { return false }
        let sealed = try newValue.map { Data(try codec.sealData($0, expiresAt: expiresAt, boundTo: key).utf8) }
        return try await base.compareAndSwapValue(
            forKey: key, expected: stored, newValue: sealed, expiresAt: expiresAt, at: now)
    }

    /// The update on `base`'s own, each attempt reading once: `decide` is
    /// given the opened value, what it keeps is sealed, and the swap in
    /// `base` is on the sealed bytes just read.
    public func updateValue<Result: Sendable>(
        forKey key: String, at now: Date, maxAttempts: Int,
        _ decide: (Data?) throws -> ExpiringStateUpdate<Result>
    ) async throws -> Result {
        try await base.updateValue(forKey: key, at: now, maxAttempts: maxAttempts) { stored in
            // A value that no longer opens fails, or reads as none and may be replaced.
            switch try decide(stored.flatMap { try open($0, key: key, now: now) }) {
            case .store(let value, let expiresAt, let result):
                return .store(
                    Data(try codec.sealData(value, expiresAt: expiresAt, boundTo: key).utf8), expiresAt: expiresAt,
                    result: result)
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

    /// The opened value; nil when it expired; per ``unopenable`` when it does not open.
    private func open(_ stored: Data, key: String, now: Date) throws(SealedStateError) -> Data? {
        do throws(SealedStateError) {
            guard let text = String(data: stored, encoding: .utf8) else {
                throw SealedStateError.malformed("not UTF-8")
            }
            return try codec.openData(text, boundTo: key, now: now)
        } catch {
            if error.code == .expired { return nil }
            if unopenable == .readAsAbsent { return nil }
            if loggedUnopenable.withLock({ logged in
                defer { logged = true }
                return !logged
            }) {
                logger.error(
                    "a sealed value does not open: the call fails (further ones are not logged)",
                    metadata: ["reason": "\(error)"])
            }
            throw error
        }
    }
}
