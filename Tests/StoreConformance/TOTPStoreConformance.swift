import Foundation
import OTP
import Testing

/// The cases every ``TOTPReplayStore`` and ``TOTPAttemptStore`` must pass,
/// whatever keeps the state: one suite, run by `swift test` on the
/// in-memory stores and by `.ci/run` on the PostgreSQL ones.
public enum TOTPStoreConformance {
    static let key = Array("12345678901234567890".utf8)

    /// The stores a verifier is built on: the two halves apart, or one
    /// store that settles each verification in one call.
    public enum VerifierStores: Sendable {
        case separate(any TOTPReplayStore, any TOTPAttemptStore)
        case combined(any TOTPVerificationStore)

        func verifier(_ totp: TOTP, limit: TOTPAttemptLimit = .default) throws -> TOTPVerifier {
            switch self {
            case let .separate(replay, attempts):
                try TOTPVerifier(totp: totp, window: 1, replayStore: replay, attemptStore: attempts, attemptLimit: limit)
            case let .combined(store):
                try TOTPVerifier(totp: totp, window: 1, store: store, attemptLimit: limit)
            }
        }
    }

    /// A fresh key id, so that cases can share a store (a database) without
    /// seeing each other's rows.
    public static func freshKey(_ label: String) -> String { "\(label)-\(UUID().uuidString)" }

    /// A step is recorded once; the same and earlier steps are replays;
    /// keys are independent; a record lapses at its retention end.
    public static func replayStoreRecordsEachStepOnce(_ store: any TOTPReplayStore) async throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let (a, b) = (freshKey("a"), freshKey("b"))
        let retain = now.addingTimeInterval(300)
        #expect(try await store.recordAcceptedStep(100, for: a, at: now, retainUntil: retain))
        #expect(try await !store.recordAcceptedStep(100, for: a, at: now, retainUntil: retain))
        #expect(try await !store.recordAcceptedStep(99, for: a, at: now, retainUntil: retain))
        #expect(try await store.recordAcceptedStep(101, for: a, at: now, retainUntil: retain))
        #expect(try await store.recordAcceptedStep(100, for: b, at: now, retainUntil: retain))
        // After its retention end the record no longer matters (no window
        // holds the step any more); a store may forget it.
        #expect(try await store.recordAcceptedStep(50, for: a, at: retain.addingTimeInterval(1), retainUntil: retain.addingTimeInterval(301)))
    }

    /// Of 200 concurrent recordings of one step, exactly one succeeds.
    public static func concurrentRecordingsOfOneStepAcceptOne(_ store: any TOTPReplayStore) async throws {
        let key = freshKey("race")
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let accepted = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<200 { group.addTask { try await store.recordAcceptedStep(7, for: key, at: now, retainUntil: now.addingTimeInterval(60)) } }
            var count = 0
            for try await wasAccepted in group where wasAccepted { count += 1 }
            return count
        }
        #expect(accepted == 1)
    }

    /// Attempts are counted up to the limit, then refused without counting;
    /// a clear starts over; a count lapses at its expiry.
    public static func attemptStoreCountsToTheLimit(_ store: any TOTPAttemptStore) async throws {
        let key = freshKey("limit")
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let lockedUntil = now.addingTimeInterval(900)
        for _ in 0..<3 { #expect(try await store.recordAttempt(for: key, limit: 3, at: now, expiresAt: lockedUntil)) }
        #expect(try await !store.recordAttempt(for: key, limit: 3, at: now, expiresAt: lockedUntil))
        #expect(try await store.recordAttempt(for: freshKey("other"), limit: 3, at: now, expiresAt: lockedUntil))
        try await store.clearAttempts(for: key)
        #expect(try await store.recordAttempt(for: key, limit: 3, at: now, expiresAt: lockedUntil))
        for _ in 0..<2 { _ = try await store.recordAttempt(for: key, limit: 3, at: now, expiresAt: lockedUntil) }
        #expect(try await !store.recordAttempt(for: key, limit: 3, at: now.addingTimeInterval(899), expiresAt: lockedUntil))
        // The lock-out ends when the count lapses.
        #expect(try await store.recordAttempt(for: key, limit: 3, at: now.addingTimeInterval(901), expiresAt: now.addingTimeInterval(1801)))
    }

    /// 200 wrong codes sent at once against a limit of 5: at most 5 are
    /// checked (the count is taken before the check, atomically).
    /// - Returns: How many codes were checked, for the caller's report.
    @discardableResult
    public static func concurrentWrongCodesStopAtTheLimit(_ stores: VerifierStores) async throws -> Int {
        let totp = try TOTP(key: key)
        let verifier = try stores.verifier(totp, limit: TOTPAttemptLimit(maximumFailures: 5))
        let now: Int64 = 1_800_000_000
        let wrong = try totp.code(at: now) == "000000" ? "111111" : "000000"
        let user = freshKey("guess")
        let (checked, refused) = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<200 {
                group.addTask {
                    do {
                        _ = try await verifier.verify(wrong, keyID: user, at: now)
                        return true
                    } catch let error as OTPError where error.code == .tooManyAttempts {
                        return false
                    }
                }
            }
            var checked = 0, refused = 0
            for try await wasChecked in group { if wasChecked { checked += 1 } else { refused += 1 } }
            return (checked, refused)
        }
        #expect(checked == 5, "checked \(checked), refused \(refused)")
        #expect(checked + refused == 200)
        // The right code is refused too while the key is locked.
        await #expect(throws: OTPError.tooManyAttempts(limit: 5)) { _ = try await verifier.verify(try totp.code(at: now), keyID: user, at: now) }
        return checked
    }

    /// A code accepted by one verifier (one instance) is a replay for
    /// another verifier (another instance) sharing the stores.
    public static func aCodeAcceptedOnceIsRefusedEverywhere(_ stores: VerifierStores) async throws {
        let totp = try TOTP(key: key)
        let first = try stores.verifier(totp)
        let second = try stores.verifier(totp)
        let now: Int64 = 1_800_000_000
        let user = freshKey("replay")
        let code = try totp.code(at: now)
        #expect(try await first.verify(code, keyID: user, at: now) == .accepted(step: try totp.step(at: now)))
        #expect(try await second.verify(code, keyID: user, at: now) == .replayed(step: try totp.step(at: now)))
    }

    /// A settlement counts wrong and replayed codes up to the limit, then
    /// refuses without counting; an accepted step clears the count and is
    /// a replay afterwards; a clear keeps the step; counts and steps lapse.
    public static func verificationStoreSettles(_ store: any TOTPVerificationStore) async throws {
        let key = freshKey("settle")
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let (lockedUntil, retain) = (now.addingTimeInterval(900), now.addingTimeInterval(90))
        func settle(_ step: UInt64?, at time: Date = now, lockedUntil: Date = lockedUntil) async throws -> TOTPAttemptSettlement {
            try await store.settleAttempt(for: key, matchedStep: step, limit: 3, at: time, attemptsExpireAt: lockedUntil, retainUntil: retain)
        }
        #expect(try await settle(nil) == .counted)
        #expect(try await settle(100) == .accepted)
        // The success cleared the count: three more attempts, a replay among them.
        #expect(try await settle(100) == .counted)
        #expect(try await settle(99) == .counted)
        #expect(try await settle(nil) == .counted)
        #expect(try await settle(101) == .refused)
        #expect(try await !store.recordAttempt(for: key, limit: 3, at: now, expiresAt: lockedUntil))
        // A clear ends the lock-out and keeps the step.
        try await store.clearAttempts(for: key)
        #expect(try await settle(100) == .counted)
        #expect(try await settle(101) == .accepted)
        #expect(try await !store.recordAcceptedStep(101, for: key, at: now, retainUntil: retain))
        #expect(try await store.recordAcceptedStep(102, for: key, at: now, retainUntil: retain))
        // After its retention end an old step is no longer a replay; after the
        // lock-out end the count starts over.
        for _ in 0..<3 { _ = try await settle(nil) }
        #expect(try await settle(nil) == .refused)
        let later = lockedUntil.addingTimeInterval(1)
        #expect(try await settle(50, at: later, lockedUntil: later.addingTimeInterval(900)) == .accepted)
        // Keys are independent.
        #expect(try await store.settleAttempt(for: freshKey("other"), matchedStep: 50, limit: 3, at: now,
                                              attemptsExpireAt: lockedUntil, retainUntil: retain) == .accepted)
    }

    /// Of 200 concurrent settlements of one matched step, exactly one is accepted.
    public static func concurrentSettlementsOfOneStepAcceptOne(_ store: any TOTPVerificationStore) async throws {
        let key = freshKey("settle-race")
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let accepted = try await withThrowingTaskGroup(of: TOTPAttemptSettlement.self) { group in
            for _ in 0..<200 {
                group.addTask {
                    try await store.settleAttempt(for: key, matchedStep: 7, limit: 1_000, at: now, attemptsExpireAt: now.addingTimeInterval(900),
                                                  retainUntil: now.addingTimeInterval(60))
                }
            }
            var count = 0
            for try await settlement in group where settlement == .accepted { count += 1 }
            return count
        }
        #expect(accepted == 1)
    }
}
