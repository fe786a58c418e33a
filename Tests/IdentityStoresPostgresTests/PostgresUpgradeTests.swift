import Foundation
import IdentityOTP
import IdentityStoresPostgres
import Logging
import PostgresNIO
import StoreConformance
import Testing

/// The upgrade to schema version 6, which moved every store onto the state
/// table and the record log: the rows an earlier release wrote are read by
/// this one's stores (no lock-out, step, code or event lost), and during a
/// rolling deploy the earlier release's instances settle in the same
/// entries and cannot write around them.
@Suite(.enabled(if: TestDatabase.isConfigured, "IDENTITY_TEST_POSTGRES_URL names no PostgreSQL server"))
struct PostgresUpgradeTests {
    static let logger = Logger(label: "test")

    /// Runs `sql` on a connection of its own, binding `bindings`.
    static func run(_ sql: String, _ bindings: PostgresBindings = PostgresBindings()) async throws {
        try await TestDatabase.withConnection { connection in
            _ = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger).collect()
        }
    }

    /// The rows a database at version 5 holds, written as that release's
    /// statements wrote them; then `migrate()`; then each store of this
    /// release reads them.
    @Test func anUpgradeFromVersionFiveMovesEveryRecord() async throws {
        let prefix = TestDatabase.freshPrefix()
        try await TestDatabase.withStores(tablePrefix: prefix, clock: .database, migrate: false) { stores in
            try await stores.migrate(upTo: 5)
            let now = Date()
            let lockedUntil = now.addingTimeInterval(900)
            // A run of 3 locked for 15 minutes with an accepted step; a run
            // at the final bound (never forgotten); a replay record of a
            // verifier with separate stores; a lapsed run (not moved).
            var bindings = PostgresBindings()
            bindings.append(lockedUntil)
            bindings.append(now.addingTimeInterval(600))
            try await Self.run(
                """
                INSERT INTO \(prefix)totp_verifications (key_id, attempts, attempts_expire_at, locked_until, last_step, step_expires_at, expires_at) VALUES
                ('running', 3, 'infinity', $1, 777, $2, 'infinity'),
                ('final', 100, 'infinity', NULL, NULL, NULL, 'infinity'),
                ('lapsed', 2, now() - interval '1 minute', NULL, NULL, NULL, now() - interval '1 minute')
                """, bindings)
            var replay = PostgresBindings()
            replay.append(now.addingTimeInterval(600))
            try await Self.run(
                "INSERT INTO \(prefix)totp_replay (key_id, last_step, expires_at) VALUES ('separate', 555, $1), ('running', 800, $1)",
                replay)
            // A recovery-code set, one code of which was used.
            let codes = try RecoveryCodes.generate(count: 4)
            var set = PostgresBindings()
            set.append("recovering")
            try set.append(codes.verifiers.salt)
            set.append(codes.verifiers.rounds)
            set.append(codes.verifiers.createdAt)
            try await Self.run(
                "INSERT INTO \(prefix)recovery_sets (user_id, salt, rounds, created_at) VALUES ($1, $2, $3, $4)", set)
            for digest in codes.verifiers.digests.dropFirst() {
                var row = PostgresBindings()
                try row.append(digest)
                try await Self.run(
                    "INSERT INTO \(prefix)recovery_codes (user_id, digest) VALUES ('recovering', $1)", row)
            }
            try await Self.run(
                "INSERT INTO \(prefix)totp_clock_offsets (key_id, offsets, expires_at) VALUES ('drifting', '{2,3,-1}', now() + interval '1 day')"
            )
            // Two security events, as the version-5 table kept them.
            let user = UserKey(uid: "audited", tenantID: "tenant-a")
            var first = SecurityEvent(
                .codeRefused, user: user, date: now.addingTimeInterval(-60), factorKind: SecurityEvent.totpFactorKind)
            first.context = SecurityEventContext(requestID: "r-1")
            var second = SecurityEvent(.lockoutBegan, user: user, date: now.addingTimeInterval(-30))
            second.lockedUntil = lockedUntil.addingTimeInterval(-0.5)
            second.consecutiveFailures = 5
            for event in [first, second] {
                let encoder = JSONEncoder()
                encoder.dateEncodingStrategy = .millisecondsSince1970
                var row = PostgresBindings()
                row.append(event.date)
                row.append(String(decoding: try encoder.encode(event), as: UTF8.self))
                try await Self.run(
                    """
                    INSERT INTO \(prefix)security_events (tenant_id, uid, kind, occurred_at, event) VALUES ('tenant-a', 'audited', 'x', $1, $2::jsonb)
                    """, row)
            }

            try await stores.migrate()
            try await stores.migrate() // a second run moves nothing again

            let store = stores.verificationStore
            let running = try #require(try await store.attempts(for: "running"))
            #expect(running.failures == 3)
            #expect(abs(try #require(running.lockedUntil).timeIntervalSince(lockedUntil)) < 0.001)
            #expect(running.forgetAt == .distantFuture)
            #expect(try await store.lastAcceptedStep(for: "running") == 800, "the later of the two tables' steps")
            #expect(try await store.lastAcceptedStep(for: "separate") == 555)
            #expect(try await store.attempts(for: "lapsed") == nil)
            #expect(
                try await !store.recordAcceptedStep(
                    555, for: "separate", at: now, retainUntil: now.addingTimeInterval(60)),
                "a replay after the upgrade")
            #expect(
                try await store.recordAttempt(for: "running", limit: .default, at: now)
                    == .lockedUntil(try #require(running.lockedUntil)))
            #expect(
                try await store.recordAttempt(for: "final", limit: .default, at: now) == .locked(failures: 100),
                "the final lock holds")

            let verifiers = try #require(try await stores.recoveryCodeStore.verifiers(for: "recovering"))
            #expect(verifiers.salt == codes.verifiers.salt && verifiers.rounds == codes.verifiers.rounds)
            #expect(Set(verifiers.digests) == Set(codes.verifiers.digests.dropFirst()))
            #expect(abs(verifiers.createdAt.timeIntervalSince(codes.verifiers.createdAt)) < 0.001)
            let redeemer = RecoveryCodeRedeemer(store: stores.recoveryCodeStore, attemptStore: stores.verificationStore)
            #expect(
                try await redeemer.redeem(codes.codes[0], for: "recovering") == .invalid,
                "the code used before the upgrade")
            #expect(try await redeemer.redeem(codes.codes[1], for: "recovering") == .redeemed(remaining: 2))

            #expect(try await stores.clockOffsetStore.recentOffsets(for: "drifting", at: now) == [2, 3, -1])

            let events = try await stores.securityEventLog.recentEvents(for: user, limit: 10)
            #expect(events.map(\.kind) == [.lockoutBegan, .codeRefused])
            #expect(events.last?.context?.requestID == "r-1")
            #expect(events.first?.consecutiveFailures == 5)
        }
    }

    /// An instance of an earlier release settles through its SQL function,
    /// which version 6 made work on this release's entries: the shared
    /// cases pass when every settlement goes through it, and when it and
    /// this release's store take turns on one key (a rolling deploy), the
    /// two count one run.
    @Test func anEarlierReleasesSettlementsShareTheRun() async throws {
        try await TestDatabase.withStoresAndClient { stores, client in
            let earlier = EarlierReleaseStore(
                current: stores.verificationStore, client: client, function: "test_settle_totp_attempt_v5",
                everyOther: false)
            try await TOTPStoreConformance.attemptStoreCountsRunsWithBackoff(earlier)
            try await TOTPStoreConformance.aRateLimitForgetsAfterAQuietWindow(earlier)
            try await TOTPStoreConformance.verificationStoreSettles(earlier)
            try await TOTPStoreConformance.concurrentSettlementsOfOneStepAcceptOne(earlier)
            #expect(try await TOTPStoreConformance.concurrentWrongCodesStopAtTheLimit(.combined(earlier)) == 5)

            let mixed = EarlierReleaseStore(
                current: stores.verificationStore, client: client, function: "test_settle_totp_attempt_v5",
                everyOther: true)
            try await TOTPStoreConformance.verificationStoreSettles(mixed)
            try await TOTPStoreConformance.concurrentSettlementsOfOneStepAcceptOne(mixed)
            #expect(try await TOTPStoreConformance.concurrentWrongCodesStopAtTheLimit(.combined(mixed)) == 5)
            try await TOTPStoreConformance.aPatientGuesserGetsAtMostOneHundredCodesAYear(
                .combined(mixed), retryInterval: 900)
            try await TOTPStoreConformance.aCodeAcceptedOnceIsRefusedEverywhere(.combined(mixed))

            // Release 4's function answers `accepted` alone.
            let oldest = EarlierReleaseStore(
                current: stores.verificationStore, client: client, function: "test_settle_totp_attempt",
                everyOther: false)
            try await TOTPStoreConformance.verificationStoreSettles(oldest)
        }
    }

    /// An earlier release's other writes to the moved tables fail (fail
    /// closed: a recovery code used on an old instance must not work again
    /// here), its security events go to the record log, and the sweeper's
    /// deletes still run.
    @Test func anEarlierReleasesWritesToTheMovedTablesAreRefusedOrForwarded() async throws {
        let prefix = TestDatabase.freshPrefix()
        try await TestDatabase.withStores(tablePrefix: prefix) { stores in
            for statement in [
                "INSERT INTO \(prefix)recovery_codes (user_id, digest) VALUES ('u', '\\x00')",
                "DELETE FROM \(prefix)recovery_codes WHERE user_id = 'u'",
                "INSERT INTO \(prefix)recovery_sets (user_id, salt, rounds, created_at) VALUES ('u', '\\x00', 10000, now())",
                "INSERT INTO \(prefix)totp_verifications (key_id, attempts, attempts_expire_at, expires_at) VALUES ('k', 0, now(), now())",
                "UPDATE \(prefix)totp_verifications SET attempts = 0 WHERE key_id = 'k'",
                "INSERT INTO \(prefix)totp_replay (key_id, last_step, expires_at) VALUES ('k', 1, now())",
            ] {
                do {
                    try await Self.run(statement)
                    Issue.record("an earlier release's write went through: \(statement)")
                } catch let error as PSQLError {
                    #expect(error.serverInfo?[.sqlState] == "55000", "\(statement)")
                    #expect(error.serverInfo?[.message]?.contains("read-only since schema version 6") == true)
                }
            }
            try await Self.run("DELETE FROM \(prefix)totp_verifications WHERE expires_at <= now()")
            try await Self.run(
                """
                INSERT INTO \(prefix)security_events (tenant_id, uid, kind, occurred_at, event)
                VALUES ('', 'late', 'sessions_revoked', now(), '{"kind":"sessions_revoked","user":{"uid":"late"},"date":1800000000000}')
                """)
            let forwarded = try await stores.securityEventLog.recentEvents(for: UserKey(uid: "late"), limit: 10)
            #expect(forwarded.map(\.kind) == [.sessionsRevoked])
            let left = try await TestDatabase.withConnection { connection in
                try await connection.query(
                    PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(prefix)security_events"), logger: Self.logger
                )
                .collect().map { try $0.decode(Int.self) }
            }
            #expect(left == [0])
        }
    }
}

/// A `TOTPVerificationStore` as an instance of an earlier release uses the
/// database after the upgrade: its settlements are calls of its SQL
/// function (with its arguments, parsing its answers); the rest, which it
/// can no longer do, is this release's store. With `everyOther`, the two
/// take turns on the settlements, as two instances of a rolling deploy.
struct EarlierReleaseStore: TOTPVerificationStore {
    let current: ExpiringStateTOTPVerificationStore
    let client: PostgresClient
    let function: String
    let everyOther: Bool
    private let turns = Turns()

    init(current: ExpiringStateTOTPVerificationStore, client: PostgresClient, function: String, everyOther: Bool) {
        self.current = current
        self.client = client
        self.function = function
        self.everyOther = everyOther
    }

    final class Turns: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func next() -> Int {
            lock.withLock {
                count += 1
                return count
            }
        }
    }

    func settleAttempt(
        for keyID: String, matchedStep: UInt64?, limit: TOTPAttemptLimit, at now: Date, retainUntil: Date
    ) async throws -> TOTPAttemptSettlement {
        try await settleAttemptReportingRun(
            for: keyID, matchedStep: matchedStep, limit: limit, at: now, retainUntil: retainUntil
        ).settlement
    }

    func settleAttemptReportingRun(
        for keyID: String, matchedStep: UInt64?, limit: TOTPAttemptLimit, at now: Date,
        retainUntil: Date
    ) async throws -> TOTPAttemptSettlementReport {
        if everyOther && turns.next() % 2 == 0 {
            return try await current.settleAttemptReportingRun(
                for: keyID, matchedStep: matchedStep, limit: limit, at: now, retainUntil: retainUntil)
        }
        let step = matchedStep.map { Int64(clamping: $0) }
        let stepExpiresAt: Date? = matchedStep == nil ? nil : retainUntil
        let cap = limit.maximumConsecutiveFailures.map { Int32(clamping: $0) }
        let rows = try await client.query(
            """
            SELECT \(unescaped: function)(\(keyID), \(step), \(stepExpiresAt), \(now), \(Int32(clamping: limit.maximumFailures)), \(cap),
            \(limit.lockout.timeInterval), \(limit.maximumLockout.timeInterval))
            """)
        var answer = ""
        for try await text in rows.decode(String.self) { answer = text }
        return try Self.settlement(answer)
    }

    /// The function's answer, as the earlier release read it.
    static func settlement(_ answer: String) throws -> TOTPAttemptSettlementReport {
        if answer == "accepted" { return TOTPAttemptSettlementReport(settlement: .accepted, failuresBefore: nil) }
        let parts = answer.split(separator: ":", maxSplits: 1)
        guard parts.count == 2 else { throw AnswerError(answer: answer) }
        switch parts[0] {
        case "accepted": return TOTPAttemptSettlementReport(settlement: .accepted, failuresBefore: Int(parts[1]))
        case "counted": return TOTPAttemptSettlementReport(settlement: .counted, failuresBefore: Int(parts[1]))
        case "locked":
            guard let failures = Int(parts[1]) else { throw AnswerError(answer: answer) }
            return TOTPAttemptSettlementReport(settlement: .refused(.locked(failures: failures)), failuresBefore: nil)
        case "until":
            guard let epoch = Double(parts[1]) else { throw AnswerError(answer: answer) }
            return TOTPAttemptSettlementReport(
                settlement: .refused(.lockedUntil(Date(timeIntervalSince1970: epoch))), failuresBefore: nil)
        default: throw AnswerError(answer: answer)
        }
    }

    struct AnswerError: Error { let answer: String }

    func recordAttempt(for keyID: String, limit: TOTPAttemptLimit, at now: Date) async throws -> TOTPAttemptAdmission {
        let report = try await settleAttemptReportingRun(
            for: keyID, matchedStep: nil, limit: limit, at: now, retainUntil: now)
        if case .refused(let admission) = report.settlement { return admission }
        return .counted(failures: report.failuresBefore ?? -1)
    }

    func recordAcceptedStep(_ step: UInt64, for keyID: String, at now: Date, retainUntil: Date) async throws -> Bool {
        try await current.recordAcceptedStep(step, for: keyID, at: now, retainUntil: retainUntil)
    }

    func clearAttempts(for keyID: String) async throws {
        try await current.clearAttempts(for: keyID)
    }
}
