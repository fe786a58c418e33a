import Foundation
import IdentityOTP
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

        func verifier(_ totp: TOTP, window: Int = 1, limit: TOTPAttemptLimit = .default) throws -> TOTPVerifier {
            switch self {
            case .separate(let replay, let attempts):
                try TOTPVerifier(
                    totp: totp, window: window, replayStore: replay, attemptStore: attempts, attemptLimit: limit)
            case .combined(let store):
                try TOTPVerifier(totp: totp, window: window, store: store, attemptLimit: limit)
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
        #expect(
            try await store.recordAcceptedStep(
                50, for: a, at: retain.addingTimeInterval(1), retainUntil: retain.addingTimeInterval(301)))
    }

    /// Of 200 concurrent recordings of one step, exactly one succeeds.
    public static func concurrentRecordingsOfOneStepAcceptOne(_ store: any TOTPReplayStore) async throws {
        let key = freshKey("race")
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let accepted = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<200 {
                group.addTask {
                    try await store.recordAcceptedStep(7, for: key, at: now, retainUntil: now.addingTimeInterval(60))
                }
            }
            var count = 0
            for try await wasAccepted in group where wasAccepted { count += 1 }
            return count
        }
        #expect(accepted == 1)
    }

    /// Attempts are counted to the end of a run, then refused without
    /// counting until the lock-out ends; the next run's lock-out is twice as
    /// long; a clear starts over; a run never lapses by itself.
    public static func attemptStoreCountsRunsWithBackoff(_ store: any TOTPAttemptStore) async throws {
        let key = freshKey("limit")
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let limit = try TOTPAttemptLimit(maximumFailures: 3, lockout: .seconds(900), maximumLockout: .seconds(3600))
        for failures in 0..<3 {
            #expect(try await store.recordAttempt(for: key, limit: limit, at: now) == .counted(failures: failures))
        }
        #expect(
            try await store.recordAttempt(for: key, limit: limit, at: now) == .lockedUntil(now.addingTimeInterval(900)))
        #expect(try await store.recordAttempt(for: freshKey("other"), limit: limit, at: now) == .counted(failures: 0))
        #expect(
            try await store.recordAttempt(for: key, limit: limit, at: now.addingTimeInterval(899))
                == .lockedUntil(now.addingTimeInterval(900)))
        // The lock-out ends; the run goes on (it never lapses), and its next lock-out doubles.
        let second = now.addingTimeInterval(900)
        for failures in 3..<6 {
            #expect(try await store.recordAttempt(for: key, limit: limit, at: second) == .counted(failures: failures))
        }
        #expect(
            try await store.recordAttempt(for: key, limit: limit, at: second)
                == .lockedUntil(second.addingTimeInterval(1800)))
        // A clear starts over.
        try await store.clearAttempts(for: key)
        #expect(try await store.recordAttempt(for: key, limit: limit, at: second) == .counted(failures: 0))
    }

    /// The default limit against a patient guesser over a year of simulated
    /// time: one wrong code whenever the key is not locked. At most 100 codes
    /// are ever checked (NIST SP 800-63B §5.2.2), then the key stays locked
    /// until a clear (a recovery code, an administrator).
    /// - Parameter retryInterval: How long the guesser waits after a refusal
    ///   before trying again, in seconds. A minute probes each lock-out
    ///   closely; a store reached over the network may take a longer wait
    ///   (each probe is a round trip: a minute costs about 30,000 of them).
    /// - Returns: How many codes were checked, and the simulated days it took.
    @discardableResult
    public static func aPatientGuesserGetsAtMostOneHundredCodesAYear(
        _ stores: VerifierStores, retryInterval: Int64 = 60
    ) async throws -> (checked: Int, days: Double) {
        let totp = try TOTP(key: key)
        let verifier = try stores.verifier(totp)
        let start: Int64 = 1_800_000_000
        let year: Int64 = 365 * 24 * 3600
        let user = freshKey("patient")
        var now = start
        var checked = 0
        var lockedAt: Int64?
        while now < start + year {
            let wrong = try totp.code(at: now) == "000000" ? "111111" : "000000"
            do {
                _ = try await verifier.verify(wrong, keyID: user, at: now)
                checked += 1
                now += 1
            } catch let error as OTPError where error.code == .tooManyAttempts {
                now += retryInterval // waits, then tries again: a lock-out cannot be waited out faster
            } catch let error as OTPError where error.code == .factorLocked {
                #expect(error == .factorLocked(failures: 100))
                lockedAt = lockedAt ?? now
                now += 7 * 24 * 3600 // locked for good: tries again weekly
            }
        }
        #expect(checked == 100, "\(checked) codes checked in a year")
        let days = Double((lockedAt ?? now) - start) / 86_400
        #expect(days > 10, "the lock-outs lengthen: \(days) days to reach the final lock")
        // The right code is refused too until a success through another path clears the run.
        let later = start + year
        await #expect(throws: OTPError.factorLocked(failures: 100)) {
            _ = try await verifier.verify(try totp.code(at: later), keyID: user, at: later)
        }
        try await verifier.attemptStore.clearAttempts(for: user)
        #expect(
            try await verifier.verify(try totp.code(at: later), keyID: user, at: later)
                == .accepted(step: try totp.step(at: later)))
        return (checked, days)
    }

    /// A rate limit (for keys an attacker chooses) has no final lock and
    /// forgets a run after a quiet window.
    public static func aRateLimitForgetsAfterAQuietWindow(_ store: any TOTPAttemptStore) async throws {
        let key = freshKey("rate")
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let limit = try TOTPAttemptLimit.rateLimit(2, per: .seconds(600))
        #expect(limit.maximumConsecutiveFailures == nil)
        #expect(try await store.recordAttempt(for: key, limit: limit, at: now) == .counted(failures: 0))
        #expect(try await store.recordAttempt(for: key, limit: limit, at: now) == .counted(failures: 1))
        #expect(
            try await store.recordAttempt(for: key, limit: limit, at: now) == .lockedUntil(now.addingTimeInterval(600)))
        // The lock-out ends (no doubling); a quiet window after it forgets the run.
        #expect(
            try await store.recordAttempt(for: key, limit: limit, at: now.addingTimeInterval(600))
                == .counted(failures: 2))
        #expect(
            try await store.recordAttempt(for: key, limit: limit, at: now.addingTimeInterval(1201))
                == .counted(failures: 0))
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
            var checked = 0
            var refused = 0
            for try await wasChecked in group { if wasChecked { checked += 1 } else { refused += 1 } }
            return (checked, refused)
        }
        #expect(checked == 5, "checked \(checked), refused \(refused)")
        #expect(checked + refused == 200)
        // The right code is refused too while the key is locked.
        await #expect(throws: OTPError.tooManyAttempts(limit: 5)) {
            _ = try await verifier.verify(try totp.code(at: now), keyID: user, at: now)
        }
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

    /// A settlement counts wrong and replayed codes to the end of a run,
    /// then refuses without counting; an accepted step clears the run and is
    /// a replay afterwards; a clear keeps the step; steps lapse.
    public static func verificationStoreSettles(_ store: any TOTPVerificationStore) async throws {
        let key = freshKey("settle")
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let limit = try TOTPAttemptLimit(maximumFailures: 3, lockout: .seconds(900))
        let (lockedUntil, retain) = (now.addingTimeInterval(900), now.addingTimeInterval(90))
        func settle(_ step: UInt64?, at time: Date = now) async throws -> TOTPAttemptSettlement {
            try await store.settleAttempt(for: key, matchedStep: step, limit: limit, at: time, retainUntil: retain)
        }
        #expect(try await settle(nil) == .counted)
        #expect(try await settle(100) == .accepted)
        // The success cleared the run: three more attempts, a replay among them.
        #expect(try await settle(100) == .counted)
        #expect(try await settle(99) == .counted)
        #expect(try await settle(nil) == .counted)
        #expect(try await settle(101) == .refused(.lockedUntil(lockedUntil)))
        #expect(try await store.recordAttempt(for: key, limit: limit, at: now) == .lockedUntil(lockedUntil))
        // A clear ends the lock-out and keeps the step.
        try await store.clearAttempts(for: key)
        #expect(try await settle(100) == .counted)
        #expect(try await settle(101) == .accepted)
        #expect(try await !store.recordAcceptedStep(101, for: key, at: now, retainUntil: retain))
        #expect(try await store.recordAcceptedStep(102, for: key, at: now, retainUntil: retain))
        // After its retention end an old step is no longer a replay; after the
        // lock-out end the run goes on.
        for _ in 0..<3 { _ = try await settle(nil) }
        #expect(try await settle(nil) == .refused(.lockedUntil(lockedUntil)))
        #expect(try await settle(50, at: lockedUntil.addingTimeInterval(1)) == .accepted)
        // Keys are independent.
        #expect(
            try await store.settleAttempt(
                for: freshKey("other"), matchedStep: 50, limit: limit, at: now, retainUntil: retain) == .accepted)
    }

    /// Of 200 concurrent settlements of one matched step, exactly one is accepted.
    public static func concurrentSettlementsOfOneStepAcceptOne(_ store: any TOTPVerificationStore) async throws {
        let key = freshKey("settle-race")
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let limit = try TOTPAttemptLimit(maximumFailures: 1_000, maximumConsecutiveFailures: 100)
        let accepted = try await withThrowingTaskGroup(of: TOTPAttemptSettlement.self) { group in
            for _ in 0..<200 {
                group.addTask {
                    try await store.settleAttempt(
                        for: key, matchedStep: 7, limit: limit, at: now, retainUntil: now.addingTimeInterval(60))
                }
            }
            var count = 0
            for try await settlement in group where settlement == .accepted { count += 1 }
            return count
        }
        #expect(accepted == 1)
    }
}
