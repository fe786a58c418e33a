import Foundation
import IdentityOTP
import StoreConformance
import Testing

/// A verifier with fresh in-memory stores (each test its own).
func makeVerifier(
    _ totp: TOTP, window: Int, limit: TOTPAttemptLimit = .default,
    replayStore: any TOTPReplayStore = ExpiringStateTOTPVerificationStore()
) throws -> TOTPVerifier {
    try TOTPVerifier(
        totp: totp, window: window, replayStore: replayStore, attemptStore: ExpiringStateTOTPVerificationStore(),
        attemptLimit: limit)
}

@Suite struct VerifierTests {
    static let key = Array("12345678901234567890".utf8)

    @Test func acceptsOnceThenRefusesTheSameAndEarlierSteps() async throws {
        let totp = try TOTP(key: Self.key)
        let verifier = try makeVerifier(totp, window: 2)
        let now: Int64 = 1_700_000_000
        let step = try totp.step(at: now)
        #expect(try await verifier.verify(totp.code(step: step), keyID: "u1", at: now) == .accepted(step: step))
        #expect(try await verifier.verify(totp.code(step: step), keyID: "u1", at: now) == .replayed(step: step))
        #expect(try await verifier.verify(totp.code(step: step - 1), keyID: "u1", at: now) == .replayed(step: step - 1))
        #expect(try await verifier.verify(totp.code(step: step + 1), keyID: "u1", at: now) == .accepted(step: step + 1))
        // Another key has its own history.
        #expect(try await verifier.verify(totp.code(step: step), keyID: "u2", at: now) == .accepted(step: step))
        #expect(try await verifier.verify("000000", keyID: "u3", at: now) == .invalid)
    }

    /// A key that got `maximumFailures` unsuccessful (wrong or replayed)
    /// codes is refused every code, the right one included, until the count
    /// lapses or is cleared; a success clears the count.
    @Test func anAttemptLimitStopsGuessing() async throws {
        let totp = try TOTP(key: Self.key)
        let attempts = ExpiringStateTOTPVerificationStore()
        let limited = try TOTPVerifier(
            totp: totp, window: 1, replayStore: ExpiringStateTOTPVerificationStore(), attemptStore: attempts,
            attemptLimit: try TOTPAttemptLimit(maximumFailures: 3, lockout: .seconds(600)))
        let now: Int64 = 1_700_000_000
        let at = Date(timeIntervalSince1970: TimeInterval(now))
        let right = try totp.code(at: now)
        let wrong = right == "000000" ? "111111" : "000000"
        #expect(try await limited.verify(wrong, keyID: "u", at: now) == .invalid)
        #expect(try await limited.verify(right, keyID: "u", at: now) == .accepted(step: try totp.step(at: now)))
        #expect(try await attempts.attempts(for: "u", at: at) == nil)
        for _ in 0..<2 { #expect(try await limited.verify(wrong, keyID: "u", at: now) == .invalid) }
        #expect(try await limited.verify(right, keyID: "u", at: now) == .replayed(step: try totp.step(at: now)))
        await #expect(throws: OTPError.tooManyAttempts(limit: 3)) {
            _ = try await limited.verify(try totp.code(at: now + 30), keyID: "u", at: now + 30)
        }
        // Other keys are not affected; a clear lets the key try again.
        #expect(try await limited.verify(right, keyID: "v", at: now) == .accepted(step: try totp.step(at: now)))
        try await attempts.clearAttempts(for: "u")
        #expect(
            try await limited.verify(try totp.code(at: now + 30), keyID: "u", at: now + 30)
                == .accepted(step: try totp.step(at: now + 30)))
        // The lock-out lapses by itself.
        for _ in 0..<3 { _ = try await limited.verify(wrong, keyID: "w", at: now) }
        await #expect(
            performing: { _ = try await limited.verify(wrong, keyID: "w", at: now + 599) },
            throws: { ($0 as? OTPError)?.code == .tooManyAttempts })
        #expect(
            try await limited.verify(try totp.code(at: now + 601), keyID: "w", at: now + 601)
                == .accepted(step: try totp.step(at: now + 601)))
        #expect(throws: OTPError.invalidAttemptLimit(0)) { _ = try TOTPAttemptLimit(maximumFailures: 0) }
        #expect(
            performing: { _ = try TOTPAttemptLimit(lockout: .milliseconds(10)) },
            throws: { ($0 as? OTPError)?.code == .invalidLockout })
        // NIST SP 800-63B §5.2.2: no limit allows more than 100 failures in a row.
        #expect(throws: OTPError.invalidAttemptLimit(101)) { _ = try TOTPAttemptLimit(maximumConsecutiveFailures: 101) }
        #expect(throws: OTPError.invalidLockout(.seconds(60))) {
            _ = try TOTPAttemptLimit(lockout: .seconds(120), maximumLockout: .seconds(60))
        }
    }

    /// The rule itself: runs of `maximumFailures`, lock-outs doubling to the
    /// cap, the final lock at 100, and nothing lapsing with time.
    @Test func theDefaultLimitsLockOutsDoubleToADayAndEndAtOneHundred() {
        let limit = TOTPAttemptLimit.default
        #expect(limit.maximumFailures == 5 && limit.maximumConsecutiveFailures == 100)
        let minutes = (1...8).map { Int(limit.lockoutSeconds(afterRun: $0) / 60) }
        #expect(minutes == [15, 30, 60, 120, 240, 480, 960, 1440])
        #expect(limit.lockoutSeconds(afterRun: 1_000) == 24 * 3600)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        // 99 failures, their last lock-out long over: the 100th attempt is counted, the 101st never.
        let ninetyNine = TOTPAttemptRecord(
            failures: 99, lockedUntil: now.addingTimeInterval(-1), forgetAt: .distantFuture)
        let (admission, record) = limit.admit(ninetyNine, at: now)
        #expect(admission == .counted(failures: 99))
        #expect(record?.failures == 100 && record?.lockedUntil == now.addingTimeInterval(24 * 3600))
        let years = now.addingTimeInterval(10 * 365 * 24 * 3600)
        #expect(limit.admit(record, at: years).admission == .locked(failures: 100))
        // A mistyped code or two is forgotten only by a success: the run waits.
        let two = limit.admit(limit.admit(nil, at: now).record, at: now).record
        #expect(limit.admit(two, at: years).admission == .counted(failures: 2))
    }

    /// The shared store cases, on the in-memory stores (`.ci/run` runs the
    /// same on PostgreSQL).
    @Test func inMemoryStoresPassTheStoreCases() async throws {
        try await TOTPStoreConformance.replayStoreRecordsEachStepOnce(ExpiringStateTOTPVerificationStore())
        try await TOTPStoreConformance.concurrentRecordingsOfOneStepAcceptOne(ExpiringStateTOTPVerificationStore())
        try await TOTPStoreConformance.attemptStoreCountsRunsWithBackoff(ExpiringStateTOTPVerificationStore())
        try await TOTPStoreConformance.aRateLimitForgetsAfterAQuietWindow(ExpiringStateTOTPVerificationStore())
        try await TOTPStoreConformance.concurrentWrongCodesStopAtTheLimit(
            .separate(ExpiringStateTOTPVerificationStore(), ExpiringStateTOTPVerificationStore()))
        let year = try await TOTPStoreConformance.aPatientGuesserGetsAtMostOneHundredCodesAYear(
            .separate(ExpiringStateTOTPVerificationStore(), ExpiringStateTOTPVerificationStore()))
        print(
            "In-memory stores, a year of a patient guesser at the default limit: \(year.checked) codes checked, locked for good after \(Int(year.days)) days; P(success) ≤ \(year.checked) × 11/10⁶ = \(Double(year.checked) * 11 / 1e6)"
        )
        try await TOTPStoreConformance.aCodeAcceptedOnceIsRefusedEverywhere(
            .separate(ExpiringStateTOTPVerificationStore(), ExpiringStateTOTPVerificationStore()))
    }

    /// The same cases on the stores an `IdentityStorage` gives (in memory
    /// here; `.ci/run` runs them on PostgreSQL's): the verification store
    /// settles each verification in one update of one entry, and its two
    /// halves serve a verifier with separate stores.
    @Test func theStoragesStoresPassTheStoreCases() async throws {
        let storage = InMemoryIdentityStorage()
        let store = storage.verificationStore
        try await TOTPStoreConformance.replayStoreRecordsEachStepOnce(store)
        try await TOTPStoreConformance.concurrentRecordingsOfOneStepAcceptOne(store)
        try await TOTPStoreConformance.attemptStoreCountsRunsWithBackoff(store)
        try await TOTPStoreConformance.aRateLimitForgetsAfterAQuietWindow(store)
        try await TOTPStoreConformance.verificationStoreSettles(store)
        try await TOTPStoreConformance.aPatientGuesserGetsAtMostOneHundredCodesAYear(.combined(store))
        try await TOTPStoreConformance.concurrentSettlementsOfOneStepAcceptOne(store)
        #expect(try await TOTPStoreConformance.concurrentWrongCodesStopAtTheLimit(.combined(store)) == 5)
        #expect(
            try await TOTPStoreConformance.concurrentWrongCodesStopAtTheLimit(
                .separate(storage.verificationStore, storage.verificationStore)) == 5)
        try await TOTPStoreConformance.aCodeAcceptedOnceIsRefusedEverywhere(.combined(store))
        try await SecurityRecordConformance.verifierReportsRefusalsAndLockouts(.combined(store))
        try await SecurityRecordConformance.clockOffsetStoreKeepsTheNewest(storage.clockOffsetStore)
        try await SecurityRecordConformance.eventLogKeepsAndSweeps(storage.securityEventLog)
        try await RecordLogConformance.keepsNewestFirstAndRemovesByAge(storage.recordLog)
        try await RecoveryCodeStoreConformance.eachCodeWorksOnce(storage.recoveryCodeStore)
        #expect(
            try await RecoveryCodeStoreConformance.oneCodeIsRedeemedOnceUnderConcurrency(storage.recoveryCodeStore) == 1
        )
        // Every store keeps its entries in the one state store.
        #expect(await storage.stateStore.count > 0)
    }

    /// A record's lapses are judged by the store's clock, not the
    /// caller's: an instance whose clock runs a day ahead of the shared
    /// store's cannot end a lock-out early, and is told the lock-out's end
    /// by the store's clock.
    @Test func theStoresClockJudgesALockOut() async throws {
        /// An in-memory store whose clock is a day behind its callers'.
        struct ADayBehind: ExpiringStateStore {
            let base = InMemoryExpiringStateStore(whenFull: .refuse)
            func setValue(_ value: Data, forKey key: String, expiresAt: Date) async throws {
                try await base.setValue(value, forKey: key, expiresAt: expiresAt)
            }
            func value(forKey key: String, at now: Date) async throws -> Data? {
                await base.value(forKey: key, at: now)
            }
            func takeValue(forKey key: String, at now: Date) async throws -> Data? {
                await base.takeValue(forKey: key, at: now)
            }
            func removeValue(forKey key: String) async throws { await base.removeValue(forKey: key) }
            func compareAndSwapValue(
                forKey key: String, expected: Data?, newValue: Data?, expiresAt: Date, at now: Date
            ) async throws -> Bool {
                try await base.compareAndSwapValue(
                    forKey: key, expected: expected, newValue: newValue, expiresAt: expiresAt, at: now)
            }
            func storeTime(callerTime: Date) async throws -> Date { callerTime.addingTimeInterval(-86_400) }
        }
        let store = ExpiringStateTOTPVerificationStore(state: ADayBehind())
        let limit = try TOTPAttemptLimit(maximumFailures: 3, lockout: .seconds(600))
        let storeNow = Date(timeIntervalSince1970: 1_800_000_000)
        let callerNow = storeNow.addingTimeInterval(86_400)
        for failures in 0..<3 {
            #expect(
                try await store.recordAttempt(for: "k", limit: limit, at: callerNow) == .counted(failures: failures))
        }
        // A day on the caller's clock is nothing on the store's.
        #expect(
            try await store.recordAttempt(for: "k", limit: limit, at: callerNow.addingTimeInterval(599))
                == .lockedUntil(storeNow.addingTimeInterval(600)))
        #expect(
            try await store.settleAttempt(
                for: "k", matchedStep: 1, limit: limit, at: callerNow.addingTimeInterval(599),
                retainUntil: callerNow.addingTimeInterval(700))
                == .refused(.lockedUntil(storeNow.addingTimeInterval(600))))
        #expect(
            try await store.recordAttempt(for: "k", limit: limit, at: callerNow.addingTimeInterval(600))
                == .counted(failures: 3))
    }

    /// A full in-memory primitive refuses a new key's record rather than
    /// forget a live one (a lock-out), and the settlement fails closed.
    @Test func aFullPrimitiveRefusesNewKeysAndForgetsNoLockout() async throws {
        let store = ExpiringStateTOTPVerificationStore(
            state: InMemoryExpiringStateStore(capacity: 2, whenFull: .refuse))
        let limit = TOTPAttemptLimit.default
        let now = Date()
        for _ in 0..<6 { _ = try await store.recordAttempt(for: "locked", limit: limit, at: now) }
        _ = try await store.recordAttempt(for: "second", limit: limit, at: now)
        await #expect(throws: InMemoryStoreFullError.self) {
            try await store.settleAttempt(
                for: "third", matchedStep: nil, limit: limit, at: now, retainUntil: now.addingTimeInterval(90))
        }
        #expect(try await !store.recordAttempt(for: "locked", limit: limit, at: now).isCounted)
    }

    /// A swap that always loses (another writer each time) ends in a typed
    /// error after the attempts allowed, with nothing written.
    @Test func anUpdateThatAlwaysLosesItsSwapFailsClosed() async throws {
        struct AlwaysChanging: ExpiringStateStore {
            func setValue(_ value: Data, forKey key: String, expiresAt: Date) async throws {}
            // A record another instance rewrites between every read and swap.
            func value(forKey key: String, at now: Date) async throws -> Data? {
                Data(#"{"lastAcceptedStep":\#(Int.random(in: 10...1_000_000))}"#.utf8)
            }
            func takeValue(forKey key: String, at now: Date) async throws -> Data? { nil }
            func removeValue(forKey key: String) async throws {}
            func compareAndSwapValue(
                forKey key: String, expected: Data?, newValue: Data?, expiresAt: Date, at now: Date
            ) async throws -> Bool { false }
        }
        let store = ExpiringStateTOTPVerificationStore(state: AlwaysChanging())
        await #expect(throws: ExpiringStateContentionError(attempts: 64)) {
            try await store.settleAttempt(
                for: "k", matchedStep: 1, limit: .default, at: Date(), retainUntil: Date().addingTimeInterval(90))
        }
    }

    /// A stream of distinct keys (caller-chosen ids) keeps the in-memory
    /// stores flat: records lapse as time passes, and a capacity bounds them.
    @Test func theVerifierReportsRefusalsLockoutsAndDriftOnEitherStores() async throws {
        for stores: TOTPStoreConformance.VerifierStores in [
            .separate(ExpiringStateTOTPVerificationStore(), ExpiringStateTOTPVerificationStore()),
            .combined(ExpiringStateTOTPVerificationStore()),
        ] {
            try await SecurityRecordConformance.verifierReportsRefusalsAndLockouts(stores)
            try await SecurityEventSystem.withSink(AppendOnlySecurityEventLog()) {
                try await SecurityRecordConformance.driftIsNoticedAndRecentringIsBounded(
                    stores, offsets: ExpiringStateTOTPClockOffsetStore())
            }
        }
    }

    @Test func inMemorySecurityRecordsPassTheirCases() async throws {
        try await SecurityRecordConformance.clockOffsetStoreKeepsTheNewest(ExpiringStateTOTPClockOffsetStore())
        try await SecurityRecordConformance.eventLogKeepsAndSweeps(AppendOnlySecurityEventLog())
        try await RecordLogConformance.keepsNewestFirstAndRemovesByAge(InMemoryAppendOnlyRecordLog())
        try await NotificationChannelConformance.everyListenerHearsEachPayloadOnce(InMemoryNotificationChannel())
        try await NotificationChannelConformance.everyListenerHearsEachPayloadOnce(
            InMemoryIdentityStorage().notificationChannel)
    }

    @Test func theDriftRuleWantsAgreeingOffsetsOfTheMinimumSize() throws {
        let rule = try TOTPClockDriftDetection(store: ExpiringStateTOTPClockOffsetStore())
        #expect(rule.drift(in: [3, 3]) == nil)
        #expect(rule.drift(in: [3, 4, 2]) == 3)
        #expect(rule.drift(in: [-2, -5, -3]) == -3)
        #expect(rule.drift(in: [3, -3, 3]) == nil)
        #expect(rule.drift(in: [0, 3, 1]) == nil)
        #expect(rule.drift(in: [1, 1, 1]) == nil)
        #expect(rule.drift(in: [0, 0, 4, 4, 4]) == 4)
        #expect(throws: OTPError.invalidWindow(0)) {
            try TOTPClockDriftDetection(store: ExpiringStateTOTPClockOffsetStore(), minimumSteps: 0)
        }
        #expect(throws: OTPError.invalidAttemptLimit(21)) {
            try TOTPClockDriftDetection(store: ExpiringStateTOTPClockOffsetStore(), consistentCodes: 21)
        }
    }

    @Test func eventsGoToTheTaskSinkWithTheRequestContextAndTheBoundedLogKeepsTheNewest() async throws {
        let log = AppendOnlySecurityEventLog(eventsPerUser: 2, users: 2)
        let long = String(repeating: "x", count: 1000)
        await SecurityEventSystem.withSink(log) {
            await SecurityEventContext.withValue(SecurityEventContext(requestID: long, userAgent: "agent")) {
                for second in 0..<3 {
                    await SecurityEventSystem.record(
                        SecurityEvent(
                            .codeRefused, user: UserKey(uid: "a"), date: Date(timeIntervalSince1970: Double(second))))
                }
            }
            await SecurityEventSystem.record(
                SecurityEvent(.codeRefused, user: UserKey(uid: "b"), date: Date(timeIntervalSince1970: 10)))
            await SecurityEventSystem.record(
                SecurityEvent(.codeRefused, user: UserKey(uid: "c"), date: Date(timeIntervalSince1970: 11)))
        }
        let a = try await log.recentEvents(for: UserKey(uid: "a"), limit: 10)
        // "a" was recorded least recently of three users in a log of two.
        #expect(a.isEmpty)
        #expect(try await log.recentEvents(for: UserKey(uid: "c"), limit: 10).count == 1)
        let kept = SecurityEventContext(requestID: long)
        #expect(kept.requestID?.count == SecurityEventContext.maximumLength)
        let perUser = AppendOnlySecurityEventLog(eventsPerUser: 2)
        for second in 0..<3 {
            await perUser.record(
                SecurityEvent(.codeRefused, user: UserKey(uid: "a"), date: Date(timeIntervalSince1970: Double(second))))
        }
        #expect(
            try await perUser.recentEvents(for: UserKey(uid: "a"), limit: 10).map(\.date.timeIntervalSince1970) == [
                2, 1,
            ])
        // Log metadata escapes what a client sent.
        var event = SecurityEvent(.codeRefused, user: UserKey(uid: "u\nforged", tenantID: "t"))
        event.context = SecurityEventContext(userAgent: "evil\r\nline")
        #expect(event.logMetadata["uid"]?.description == "u\\u{A}forged")
        #expect(event.logMetadata["userAgent"]?.description == "evil\\u{D}\\u{A}line")
    }

    @Test func theEventLogForgetsTheUserRecordedLeastRecently() async throws {
        let log = AppendOnlySecurityEventLog(eventsPerUser: 3, users: 3)
        for uid in ["a", "b", "c", "a", "d"] { await log.record(SecurityEvent(.codeRefused, user: UserKey(uid: uid))) }
        // "b" went: "a" was recorded again after it.
        #expect(try await log.recentEvents(for: UserKey(uid: "b"), limit: 10).isEmpty)
        for uid in ["a", "c", "d"] {
            #expect(try await !log.recentEvents(for: UserKey(uid: uid), limit: 10).isEmpty, "\(uid)")
        }
        #expect(try await log.recentEvents(for: UserKey(uid: "a"), limit: 10).count == 2)
        // Many users, many times over the bound: the newest ones stay, one by one.
        let busy = AppendOnlySecurityEventLog(eventsPerUser: 1, users: 100)
        for index in 0..<20_000 {
            await busy.record(SecurityEvent(.codeRefused, user: UserKey(uid: "u\(index % 5_000)")))
        }
        for index in 4_900..<5_000 {
            #expect(try await busy.recentEvents(for: UserKey(uid: "u\(index)"), limit: 1).count == 1)
        }
        #expect(try await busy.recentEvents(for: UserKey(uid: "u4899"), limit: 1).isEmpty)
        // A user whose events were swept is not counted against the bound.
        #expect(try await busy.removeEvents(before: .distantFuture) == 100)
        await busy.record(SecurityEvent(.codeRefused, user: UserKey(uid: "fresh")))
        #expect(try await busy.recentEvents(for: UserKey(uid: "fresh"), limit: 1).count == 1)
    }

    @Test func inMemoryStoresStayFlatUnderDistinctKeys() async throws {
        let (replayState, attemptState) = (
            InMemoryExpiringStateStore(whenFull: .refuse), InMemoryExpiringStateStore(whenFull: .refuse)
        )
        let replay = ExpiringStateTOTPVerificationStore(state: replayState)
        let attempts = ExpiringStateTOTPVerificationStore(state: attemptState)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        var largest = 0
        for index in 0..<50_000 {
            // One key a 10 ms step; records matter for 5 minutes.
            let now = start.addingTimeInterval(Double(index) * 0.01)
            _ = try await replay.recordAcceptedStep(
                UInt64(index), for: "key-\(index)", at: now, retainUntil: now.addingTimeInterval(60))
            _ = try await attempts.recordAttempt(for: "key-\(index)", limit: .rateLimit(5, per: .seconds(60)), at: now)
            if index % 1000 == 0 { largest = max(largest, await replayState.count, await attemptState.count) }
        }
        // 60 s of keys at 100 a second: about 6,000 live, never 50,000.
        #expect(largest <= 6_100, "largest \(largest)")
        let (replayCount, attemptCount) = (await replayState.count, await attemptState.count)
        #expect(replayCount <= 6_100 && attemptCount <= 6_100)
        // Without time passing, the capacity holds: a full store refuses new
        // keys rather than forget a live record (which would reopen a replay).
        let cappedState = InMemoryExpiringStateStore(capacity: 1_000, whenFull: .refuse)
        let capped = ExpiringStateTOTPVerificationStore(state: cappedState)
        var refused = 0
        for index in 0..<10_000 {
            do {
                _ = try await capped.recordAcceptedStep(
                    1, for: "k\(index)", at: start, retainUntil: start.addingTimeInterval(3600))
            } catch is InMemoryStoreFullError {
                refused += 1
            }
        }
        #expect(await cappedState.count == 1_000 && refused == 9_000)
        #expect(
            try await !capped.recordAcceptedStep(1, for: "k0", at: start, retainUntil: start.addingTimeInterval(3600)),
            "k0's record was kept")
    }

    /// Churning attacker-chosen keys through a full store once evicted the
    /// oldest counts, locked ones included, and so ended their lock-outs:
    /// now a full store refuses the new keys (fails closed) and keeps every
    /// live record; expired ones make room again.
    @Test func churningKeysCannotEvictALockout() async throws {
        let store = ExpiringStateTOTPVerificationStore(capacity: 10)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let limit = try TOTPAttemptLimit(maximumFailures: 3, lockout: .seconds(600))
        for _ in 0..<3 { _ = try await store.recordAttempt(for: "victim", limit: limit, at: now) }
        var refused = 0
        for index in 0..<1_000 {
            do {
                _ = try await store.recordAttempt(
                    for: "churn-\(index)", limit: .rateLimit(3, per: .seconds(60)), at: now)
            } catch let error as InMemoryStoreFullError {
                #expect(error.capacity == 10)
                refused += 1
            }
        }
        #expect(refused == 991)
        #expect(
            try await store.recordAttempt(for: "victim", limit: limit, at: now)
                == .lockedUntil(now.addingTimeInterval(600)))
        // The churned rate-limit records lapse after their quiet minute; the victim's run stays.
        let later = now.addingTimeInterval(61)
        #expect(try await store.recordAttempt(for: "newcomer", limit: limit, at: later) == .counted(failures: 0))
        #expect(try await store.attempts(for: "victim", at: later)?.failures == 3)
    }

    /// A code accepted under a narrow window stays a replay for a verifier
    /// whose window was widened later (Identity Platform allows up to 10):
    /// records were kept only for the narrow window, and widening reopened
    /// the code.
    @Test func wideningTheWindowLaterCannotReopenAReplay() async throws {
        let totp = try TOTP(key: Self.key)
        let store = ExpiringStateTOTPVerificationStore()
        let narrow = try TOTPVerifier(totp: totp, window: 1, store: store)
        let wide = try TOTPVerifier(totp: totp, window: 10, store: store)
        let now: Int64 = 1_800_000_000
        let code = try totp.code(at: now)
        let step = try totp.step(at: now)
        #expect(try await narrow.verify(code, keyID: "u", at: now) == .accepted(step: step))
        // Five steps later the narrow window's record would have lapsed; the wide window still holds the code.
        let later = now + 5 * 30
        #expect(try await wide.verify(code, keyID: "u", at: later) == .replayed(step: step))
    }

    /// The static form counts failures in the caller's state.
    @Test func theStaticCheckCountsFailuresInTheCallersState() throws {
        let totp = try TOTP(key: Self.key)
        let now: Int64 = 1_700_000_000
        let right = try totp.code(at: now)
        let wrong = right == "000000" ? "111111" : "000000"
        var failures = 0
        let limit = try TOTPAttemptLimit(maximumFailures: 2)
        #expect(
            try TOTPVerifier.check(
                wrong, totp: totp, window: 1, at: now, lastAcceptedStep: nil, failures: &failures, limit: limit)
                == .invalid)
        #expect(failures == 1)
        #expect(
            try TOTPVerifier.check(
                right, totp: totp, window: 1, at: now, lastAcceptedStep: nil, failures: &failures, limit: limit)
                == .accepted(step: try totp.step(at: now)))
        #expect(failures == 1)
        #expect(
            try TOTPVerifier.check(
                wrong, totp: totp, window: 1, at: now, lastAcceptedStep: nil, failures: &failures, limit: limit)
                == .invalid)
        #expect(throws: OTPError.tooManyAttempts(limit: 2)) {
            _ = try TOTPVerifier.check(
                right, totp: totp, window: 1, at: now, lastAcceptedStep: nil, failures: &failures, limit: limit)
        }
    }

    @Test func concurrentVerificationsOfOneCodeAcceptExactlyOne() async throws {
        let totp = try TOTP(key: Self.key)
        let verifier = try makeVerifier(totp, window: 1, limit: try TOTPAttemptLimit(maximumFailures: 1000))
        let now: Int64 = 1_800_000_000
        let code = try totp.code(at: now)
        let results = await withTaskGroup(of: TOTPVerifier.Result?.self) { group in
            for _ in 0..<200 {
                group.addTask { try? await verifier.verify(code, keyID: "same", at: now) }
            }
            var all: [TOTPVerifier.Result?] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.filter { if case .accepted = $0 { return true } else { return false } }.count == 1)
        // The replays are failures too: 100 in a row lock the key for good (nil: refused).
        let replayed = results.filter { if case .replayed = $0 { return true } else { return false } }.count
        #expect(replayed >= 99 && results.filter { $0 == nil }.count == 199 - replayed, "\(replayed) replays")
    }

    @Test func aCustomStoreIsUsed() async throws {
        actor Refusing: TOTPReplayStore {
            var calls = 0
            func recordAcceptedStep(_ step: UInt64, for keyID: String, at now: Date, retainUntil: Date) -> Bool {
                calls += 1
                return false
            }
        }
        let store = Refusing()
        let totp = try TOTP(key: Self.key)
        let verifier = try makeVerifier(totp, window: 0, replayStore: store)
        let result = try await verifier.verify(totp.code(at: 90), keyID: "k", at: 90)
        #expect(result == .replayed(step: 3))
        #expect(await store.calls == 1)
    }

    @Test func windowIsValidated() throws {
        let totp = try TOTP(key: Self.key)
        #expect(throws: OTPError.invalidWindow(11)) { try makeVerifier(totp, window: 11) }
    }

    /// With the key 0x00…0x13, steps 149,082 and 149,091 share the code
    /// 483607 (found by a search over HMAC-SHA1; checked below).
    static let collidingKey = Array(UInt8(0)...UInt8(19))
    static let collidingSteps: (earlier: UInt64, later: UInt64) = (149_082, 149_091)

    @Test func aCodeSharedByTwoStepsInTheWindowCannotBeReplayed() async throws {
        let totp = try TOTP(key: Self.collidingKey)
        let (earlier, later) = Self.collidingSteps
        #expect(totp.code(step: earlier) == "483607" && totp.code(step: later) == "483607")
        let now = Int64(earlier + 4) * 30 // both steps within a window of 5
        #expect(try totp.matchingStep(for: "483607", at: now, window: 5) == later, "the latest matching step")
        let verifier = try makeVerifier(totp, window: 5)
        #expect(try await verifier.verify("483607", keyID: "k", at: now) == .accepted(step: later))
        // Accepting the nearer, earlier step instead would have left the
        // later one open for the same code to be used twice.
        #expect(try await verifier.verify("483607", keyID: "k", at: now) == .replayed(step: later))
    }

    @Test func aCodeWhoseTwinWasUsedIsStillAccepted() async throws {
        let totp = try TOTP(key: Self.collidingKey)
        let (earlier, later) = Self.collidingSteps
        let store = ExpiringStateTOTPVerificationStore()
        let now = Int64(earlier + 4) * 30 // the earlier step is the nearer one
        let at = Date(timeIntervalSince1970: TimeInterval(now))
        #expect(
            try await store.recordAcceptedStep(earlier + 1, for: "k", at: at, retainUntil: at.addingTimeInterval(600)))
        let verifier = try makeVerifier(totp, window: 5, replayStore: store)
        #expect(try await verifier.verify(totp.code(step: later), keyID: "k", at: now) == .accepted(step: later))
    }
}

@Suite struct VerifierCheckTests {
    @Test func checkAppliesTheSameRuleAsVerify() async throws {
        let totp = try TOTP(key: Array("12345678901234567890".utf8))
        let now: Int64 = 1_700_000_000
        let code = try totp.code(at: now)
        let step = try totp.step(at: now)
        #expect(
            try TOTPVerifier.check(code, totp: totp, window: 1, at: now, lastAcceptedStep: nil) == .accepted(step: step)
        )
        #expect(
            try TOTPVerifier.check(code, totp: totp, window: 1, at: now, lastAcceptedStep: step)
                == .replayed(step: step))
        #expect(
            try TOTPVerifier.check(code, totp: totp, window: 1, at: now, lastAcceptedStep: step - 1)
                == .accepted(step: step))
        #expect(
            try TOTPVerifier.check(
                "000000" == code ? "111111" : "000000", totp: totp, window: 0, at: now, lastAcceptedStep: nil)
                == .invalid)
        let verifier = try makeVerifier(totp, window: 1)
        #expect(try await verifier.verify(code, keyID: "k", at: now) == .accepted(step: step))
        #expect(try await verifier.verify(code, keyID: "k", at: now) == .replayed(step: step))
        #expect(throws: OTPError.self) {
            try TOTPVerifier.check(code, totp: totp, window: 11, at: now, lastAcceptedStep: nil)
        }
    }
}
