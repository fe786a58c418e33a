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
///
/// It is also the one primitive the security stores are built on: with
/// ``compareAndSwapValue(forKey:expected:newValue:expiresAt:at:)`` a
/// read-modify-write is atomic on every instance
/// (``updateValue(forKey:at:maxAttempts:_:)``), which is what a TOTP attempt count, a
/// replay record or a recovery code's use needs (`IdentityOTP`'s
/// `ExpiringStateTOTPVerificationStore` and `ExpiringStateRecoveryCodeStore`).
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
    /// Replaces the value under `key` with `newValue` (nil removes it) only
    /// when the live value at `now` is `expected` (nil: no live value), in
    /// one atomic step: of two concurrent swaps from the same value, one
    /// succeeds and the other finds the value changed.
    /// - Parameters:
    ///   - key: The entry.
    ///   - expected: The bytes the caller read; nil when it read none.
    ///   - newValue: What to keep instead; nil to remove the entry.
    ///   - expiresAt: When `newValue` expires (ignored for a removal).
    ///   - now: The time of the call: a value expired by then counts as none.
    /// - Returns: Whether the value was swapped.
    func compareAndSwapValue(forKey key: String, expected: Data?, newValue: Data?, expiresAt: Date, at now: Date)
        async throws -> Bool
    /// An atomic read-modify-write of the entry under `key`. The default
    /// reads, asks `decide`, and swaps with
    /// ``compareAndSwapValue(forKey:expected:newValue:expiresAt:at:)``; a
    /// store that wraps another (sealing its values) implements it on the
    /// wrapped store's own update, so that each attempt reads once; a
    /// database store may save a round trip (PostgreSQL's first inserts
    /// what `decide` keeps for none unless the key has a row, one
    /// statement for a key that has none).
    /// - Parameters:
    ///   - key: The entry.
    ///   - now: The time of the update (what has expired by then is none).
    ///   - maxAttempts: How many reads and swaps before giving up.
    ///   - decide: What to do with the live value (nil when none); it may
    ///     run more than once, so it is a pure function of what it is given.
    /// - Returns: The result of the step whose swap succeeded (or whose
    ///   decision was ``ExpiringStateUpdate/keep(result:)``).
    /// - Throws: ``ExpiringStateContentionError`` when every swap lost to
    ///   another writer, or the store's and `decide`'s errors.
    func updateValue<Result: Sendable>(
        forKey key: String, at now: Date, maxAttempts: Int,
        _ decide: (Data?) throws -> ExpiringStateUpdate<Result>
    ) async throws -> Result
    /// The time by which this store judges what has lapsed, for a caller
    /// whose clock reads `callerTime`. A store shared by a fleet answers
    /// with its own clock (a database's), so that a record's lapses (a
    /// lock-out's end, say) are judged by one clock on every instance and
    /// an instance whose clock runs ahead cannot end a lock-out early. The
    /// default is `callerTime`: one process's store has one clock.
    /// - Parameter callerTime: The caller's time of the operation.
    /// - Returns: The time to judge the operation by.
    func storeTime(callerTime: Date) async throws -> Date
}

/// What one step of ``ExpiringStateStore/updateValue(forKey:at:maxAttempts:_:)`` does
/// with the entry it read, and what the update returns.
public enum ExpiringStateUpdate<Result: Sendable>: Sendable {
    /// Keeps `value` until `expiresAt` in place of what was read.
    case store(Data, expiresAt: Date, result: Result)
    /// Removes the entry.
    case remove(result: Result)
    /// Changes nothing (the read is the answer).
    case keep(result: Result)
}

/// An ``ExpiringStateStore/updateValue(forKey:at:maxAttempts:_:)`` whose
/// entry kept changing under it: every attempt's swap found another
/// writer's value. Nothing was written by the failed attempts; the caller
/// fails closed (a verification refused, a code not consumed).
public struct ExpiringStateContentionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// How many read-and-swap attempts were made.
    public let attempts: Int

    /// A contention after `attempts` attempts.
    public init(attempts: Int) { self.attempts = attempts }

    /// What happened; the key is not named (it may be a user's id).
    public var description: String {
        "an expiring-state entry changed under each of \(attempts) attempts to update it; nothing was written"
    }
}

extension ExpiringStateStore {
    /// `callerTime`: a store of one process judges by its caller's clock.
    public func storeTime(callerTime: Date) async throws -> Date { callerTime }

    /// Keeps `value` as JSON under `key` until `expiresAt`.
    /// - Throws: The encoder's error, or the store's.
    public func set<Value: Encodable>(_ value: Value, forKey key: String, expiresAt: Date) async throws {
        try await setValue(try JSONEncoder().encode(value), forKey: key, expiresAt: expiresAt)
    }

    /// The `Value` kept as JSON under `key`, or nil when there is none or it expired.
    /// - Throws: The decoder's error when the bytes are not a `Value`, or the store's.
    public func get<Value: Decodable>(_ type: Value.Type, forKey key: String, at now: Date = Date()) async throws
        -> Value?
    {
        guard let data = try await value(forKey: key, at: now) else { return nil }
        return try JSONDecoder().decode(Value.self, from: data)
    }

    /// The `Value` kept as JSON under `key`, removed in the same atomic step.
    public func take<Value: Decodable>(_ type: Value.Type, forKey key: String, at now: Date = Date()) async throws
        -> Value?
    {
        guard let data = try await takeValue(forKey: key, at: now) else { return nil }
        return try JSONDecoder().decode(Value.self, from: data)
    }

    /// ``updateValue(forKey:at:maxAttempts:_:)`` with 64 attempts.
    public func updateValue<Result: Sendable>(
        forKey key: String, at now: Date,
        _ decide: (Data?) throws -> ExpiringStateUpdate<Result>
    ) async throws -> Result {
        try await updateValue(forKey: key, at: now, maxAttempts: 64, decide)
    }

    /// The default update: reads the entry, asks `decide` what to do with
    /// it, and swaps only if nobody wrote in between; otherwise waits a
    /// random, growing while and reads and asks again.
    public func updateValue<Result: Sendable>(
        forKey key: String, at now: Date, maxAttempts: Int,
        _ decide: (Data?) throws -> ExpiringStateUpdate<Result>
    ) async throws -> Result {
        try await readAndSwap(forKey: key, at: now, maxAttempts: maxAttempts, firstRead: .unread, decide)
    }

    /// The read-and-swap loop of the default update, for a store whose own
    /// update has already learnt the live value by its first statement
    /// (`firstRead`), so that the loop does not read it again.
    package func readAndSwap<Result: Sendable>(
        forKey key: String, at now: Date, maxAttempts: Int, firstRead: ExpiringStateRead,
        _ decide: (Data?) throws -> ExpiringStateUpdate<Result>
    ) async throws -> Result {
        let attempts = max(1, maxAttempts)
        var read = firstRead
        for attempt in 0..<attempts {
            let current: Data?
            if case .read(let value) = read { current = value } else { current = try await value(forKey: key, at: now) }
            read = .unread
            switch try decide(current) {
            case .keep(let result):
                return result
            case .remove(let result):
                if current == nil { return result }
                if try await compareAndSwapValue(forKey: key, expected: current, newValue: nil, expiresAt: now, at: now)
                {
                    return result
                }
            case .store(let value, let expiresAt, let result):
                if try await compareAndSwapValue(
                    forKey: key, expected: current, newValue: value, expiresAt: expiresAt, at: now)
                {
                    return result
                }
            }
            // Another writer won: wait a random while that doubles with each
            // loss (up to 10 ms), so that many writers of one key (a burst
            // of guesses at one user) spread out instead of colliding again.
            if attempt + 1 < attempts {
                let ceiling = min(10_000_000, 50_000 << min(attempt, 8))
                try await Task.sleep(nanoseconds: UInt64.random(in: 0...UInt64(ceiling)))
            }
        }
        throw ExpiringStateContentionError(attempts: attempts)
    }
}

/// What an update knows of an entry before its loop's first step.
package enum ExpiringStateRead: Sendable {
    /// Nothing: the loop reads the entry.
    case unread
    /// The live value (nil: none), as a statement of the store's just saw it.
    case read(Data?)
}
