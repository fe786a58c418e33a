import Configuration
import Foundation
import IdentityOTP
import IdentityServerState
import IdentityStoresPostgres
import IdentityToolkitTestSupport
import Logging
import Metrics
import MetricsTestKit
import MultiFactorAuth
import PostgresNIO
import StoreConformance
import Testing

/// The server the tests use: `IDENTITY_TEST_POSTGRES_URL` (no password in
/// it) and `PGPASSWORD`, as `.ci/postgres_start.sh` writes them. Without
/// them the suite is skipped — `swift test` needs no database — and
/// `.ci/run` runs it.
enum TestDatabase {
    static let environment = ProcessInfo.processInfo.environment
    static let url = environment["IDENTITY_TEST_POSTGRES_URL"]
    static var isConfigured: Bool { url != nil }

    static func settings(password: String? = environment["PGPASSWORD"], statementTimeout: Duration = .seconds(5)) throws
        -> PostgresConnectionSettings
    {
        var settings = try PostgresConnectionSettings(url: try #require(url), password: password)
        settings.statementTimeout = statementTimeout
        settings.connectTimeout = .seconds(2)
        return settings
    }

    /// Runs `body` with stores on a running client, then shuts the client down.
    /// The shared cases move time, so they judge it by the caller's clock
    /// (`clock: .caller`); ``PostgresClockTests`` checks the default.
    static func withStores<T: Sendable>(
        settings: PostgresConnectionSettings? = nil, tablePrefix: String = "test_",
        queryTimeout: Duration = .seconds(5),
        clock: PostgresIdentityStores.Clock = .caller, migrate: Bool = true,
        _ body: @Sendable (PostgresIdentityStores) async throws -> T
    ) async throws -> T {
        try await withStoresAndClient(
            settings: settings, tablePrefix: tablePrefix, queryTimeout: queryTimeout, clock: clock, migrate: migrate
        ) { stores, _ in
            try await body(stores)
        }
    }

    /// ``withStores(settings:tablePrefix:queryTimeout:clock:migrate:_:)``,
    /// with the stores' client, for statements an earlier release sends.
    static func withStoresAndClient<T: Sendable>(
        settings: PostgresConnectionSettings? = nil, tablePrefix: String = "test_",
        queryTimeout: Duration = .seconds(5),
        clock: PostgresIdentityStores.Clock = .caller, migrate: Bool = true,
        _ body: @Sendable (PostgresIdentityStores, PostgresClient) async throws -> T
    ) async throws -> T {
        let client = PostgresClient(
            configuration: try (settings ?? Self.settings()).clientConfiguration,
            backgroundLogger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                await client.run()
                return nil
            }
            let stores = try PostgresIdentityStores(
                client: client, tablePrefix: tablePrefix, queryTimeout: queryTimeout, clock: clock)
            do {
                if migrate { try await stores.migrate() }
                let result = try await body(stores, client)
                group.cancelAll()
                return result
            } catch {
                group.cancelAll()
                throw error
            }
        }
    }

    /// A raw connection as the test role, for what the stores never do
    /// (holding a row lock, terminating a backend).
    static func withConnection<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        let settings = try Self.settings()
        var configuration = PostgresConnection.Configuration(
            host: settings.host ?? "127.0.0.1", port: settings.port, username: settings.username,
            password: settings.password, database: settings.database, tls: .disable)
        configuration.options.connectTimeout = .seconds(5)
        let connection = try await PostgresConnection.connect(
            configuration: configuration, id: 99, logger: Logger(label: "test"))
        do {
            let result = try await body(connection)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }

    static func freshPrefix() -> String { "t\(UUID().uuidString.prefix(8).lowercased())_" }
}

/// By default the database's clock judges lapses: an instance whose clock
/// runs ahead (or behind) cannot end a lock-out early or see an expired
/// record as live.
@Suite(.enabled(if: TestDatabase.isConfigured, "IDENTITY_TEST_POSTGRES_URL names no PostgreSQL server"))
struct PostgresClockTests {
    @Test func theDatabasesClockJudgesLockOutsAndExpiry() async throws {
        try await TestDatabase.withStores(clock: .database) { stores in
            let key = TOTPStoreConformance.freshKey("clock")
            let limit = try TOTPAttemptLimit(maximumFailures: 1, lockout: .seconds(600))
            let now = Date()
            #expect(
                try await stores.verificationStore.recordAttempt(for: key, limit: limit, at: now)
                    == .counted(failures: 0))
            // An instance a day ahead: the lock-out (judged by the database) still holds.
            let ahead = now.addingTimeInterval(24 * 3600)
            guard
                case .lockedUntil(let until) = try await stores.verificationStore.recordAttempt(
                    for: key, limit: limit, at: ahead)
            else {
                Issue.record("a clock a day ahead ended the lock-out")
                return
            }
            #expect(
                abs(until.timeIntervalSince(now) - 600) < 60, "the lock-out ends 10 minutes after the database's now")
            // State expired by the database's clock is gone, whatever the caller's clock says.
            let state = stores.stateStore
            try await state.setValue(Data("x".utf8), forKey: key, expiresAt: now.addingTimeInterval(-1))
            #expect(try await state.value(forKey: key, at: now.addingTimeInterval(-3600)) == nil)
            try await state.setValue(Data("y".utf8), forKey: key, expiresAt: now.addingTimeInterval(600))
            #expect(try await state.value(forKey: key, at: now.addingTimeInterval(3600)) == Data("y".utf8))
        }
    }
}

/// One suite, two stores: the cases `swift test` runs on the in-memory
/// stores, here on PostgreSQL.
@Suite(.enabled(if: TestDatabase.isConfigured, "IDENTITY_TEST_POSTGRES_URL names no PostgreSQL server"))
struct PostgresConformanceTests {
    @Test func replayStore() async throws {
        try await TestDatabase.withStores { stores in
            try await TOTPStoreConformance.replayStoreRecordsEachStepOnce(stores.verificationStore)
            try await TOTPStoreConformance.concurrentRecordingsOfOneStepAcceptOne(stores.verificationStore)
        }
    }

    @Test func attemptStore() async throws {
        try await TestDatabase.withStores { stores in
            try await TOTPStoreConformance.attemptStoreCountsRunsWithBackoff(stores.verificationStore)
            try await TOTPStoreConformance.aRateLimitForgetsAfterAQuietWindow(stores.verificationStore)
        }
    }

    /// The year-long simulation of a patient guesser, on PostgreSQL. The
    /// guesser retries every 15 minutes (the first lock-out), not every
    /// minute as on the in-memory stores: the same rules on this store's
    /// SQL, a fifteenth of the round trips (the minute took 85 s of CI's
    /// PostgreSQL step at 11e25eb).
    @Test func aPatientGuesserGetsAtMostOneHundredCodesAYear() async throws {
        for combined in [false, true] {
            let name = combined ? "verification" : "separate"
            let year = try await TestDatabase.withStores { stores in
                try await TOTPStoreConformance.aPatientGuesserGetsAtMostOneHundredCodesAYear(
                    combined
                        ? .combined(stores.verificationStore)
                        : .separate(stores.verificationStore, stores.verificationStore),
                    retryInterval: 900)
            }
            print(
                "PostgreSQL \(name) stores, a year of a patient guesser at the default limit: \(year.checked) codes checked, locked for good after \(Int(year.days)) days"
            )
        }
    }

    @Test func concurrentWrongCodesStopAtTheLimit() async throws {
        let checked = try await TestDatabase.withStores { stores in
            try await TOTPStoreConformance.concurrentWrongCodesStopAtTheLimit(
                .separate(stores.verificationStore, stores.verificationStore))
        }
        print("PostgreSQL stores: 200 concurrent wrong codes, limit 5: \(checked) checked, \(200 - checked) refused")
    }

    @Test func verificationStore() async throws {
        let checked = try await TestDatabase.withStores { stores in
            try await TOTPStoreConformance.replayStoreRecordsEachStepOnce(stores.verificationStore)
            try await TOTPStoreConformance.concurrentRecordingsOfOneStepAcceptOne(stores.verificationStore)
            try await TOTPStoreConformance.attemptStoreCountsRunsWithBackoff(stores.verificationStore)
            try await TOTPStoreConformance.aRateLimitForgetsAfterAQuietWindow(stores.verificationStore)
            try await TOTPStoreConformance.verificationStoreSettles(stores.verificationStore)
            try await TOTPStoreConformance.concurrentSettlementsOfOneStepAcceptOne(stores.verificationStore)
            try await TOTPStoreConformance.aCodeAcceptedOnceIsRefusedEverywhere(.combined(stores.verificationStore))
            return try await TOTPStoreConformance.concurrentWrongCodesStopAtTheLimit(
                .combined(stores.verificationStore))
        }
        print(
            "PostgreSQL verification store: 200 concurrent wrong codes, limit 5: \(checked) checked, \(200 - checked) refused"
        )
    }

    @Test func securityRecords() async throws {
        try await TestDatabase.withStores { stores in
            try await SecurityRecordConformance.verifierReportsRefusalsAndLockouts(.combined(stores.verificationStore))
            try await SecurityRecordConformance.verifierReportsRefusalsAndLockouts(
                .separate(stores.verificationStore, stores.verificationStore))
            try await SecurityRecordConformance.clockOffsetStoreKeepsTheNewest(stores.clockOffsetStore)
            try await SecurityEventSystem.withSink(AppendOnlySecurityEventLog()) {
                try await SecurityRecordConformance.driftIsNoticedAndRecentringIsBounded(
                    .combined(stores.verificationStore), offsets: stores.clockOffsetStore)
            }
            try await SecurityRecordConformance.eventLogKeepsAndSweeps(stores.securityEventLog)
            try await RecordLogConformance.keepsNewestFirstAndRemovesByAge(stores.recordLog)
            // The events are rows of the record log, as JSON an operator can query.
            let kinds = try await TestDatabase.withConnection { connection in
                try await connection.query(
                    PostgresQuery(
                        unsafeSQL: "SELECT DISTINCT record->>'kind' FROM test_record_log WHERE record ? 'kind'"),
                    logger: Logger(label: "test")
                )
                .collect().map { try $0.decode(String.self) }
            }
            #expect(kinds.contains("clock_drift_noticed"))
        }
    }

    /// `LISTEN`/`NOTIFY`: the shared cases, and two instances (pools) on
    /// one database hear each other.
    @Test func notificationChannel() async throws {
        try await TestDatabase.withStores { stores in
            try await NotificationChannelConformance.everyListenerHearsEachPayloadOnce(stores.notificationChannel)
            #expect(stores.notificationChannel.name == "test_notifications")
        }
    }

    @Test func aCodeAcceptedOnOneInstanceIsRefusedOnAnother() async throws {
        // Two clients (two pools), as two instances would have.
        try await TestDatabase.withStores { first in
            try await TestDatabase.withStores { second in
                let totp = try TOTP(key: Array("12345678901234567890".utf8))
                let a = try TOTPVerifier(
                    totp: totp, window: 1, replayStore: first.verificationStore, attemptStore: first.verificationStore)
                let b = try TOTPVerifier(
                    totp: totp, window: 1, replayStore: second.verificationStore, attemptStore: second.verificationStore
                )
                let user = TOTPStoreConformance.freshKey("fleet")
                let now: Int64 = 1_800_000_000
                #expect(
                    try await a.verify(try totp.code(at: now), keyID: user, at: now)
                        == .accepted(step: try totp.step(at: now)))
                #expect(
                    try await b.verify(try totp.code(at: now), keyID: user, at: now)
                        == .replayed(step: try totp.step(at: now)))
            }
        }
    }

    @Test func recoveryCodeStore() async throws {
        try await TestDatabase.withStores { stores in
            try await RecoveryCodeStoreConformance.eachCodeWorksOnce(stores.recoveryCodeStore)
            let redeemed = try await RecoveryCodeStoreConformance.oneCodeIsRedeemedOnceUnderConcurrency(
                stores.recoveryCodeStore)
            print(
                "100 concurrent redemptions of one recovery code on PostgreSQL: \(redeemed) succeeded, \(100 - redeemed) refused"
            )
        }
    }

    @Test func stateStore() async throws {
        try await TestDatabase.withStores { stores in
            try await StateStoreConformance.keepsValuesUntilTheyExpire(stores.stateStore)
            try await StateStoreConformance.aValueIsTakenOnce(stores.stateStore)
            try await StateStoreConformance.swapsOnlyFromTheValueRead(stores.stateStore)
            let codec = SealedStateCodec(
                keyRing: try SealingKeyRing([try SealingKey.random(id: "k1")]), purpose: "test")
            try await StateStoreConformance.keepsValuesUntilTheyExpire(
                SealingStateStore(base: stores.stateStore, codec: codec))
            try await StateStoreConformance.swapsOnlyFromTheValueRead(
                SealingStateStore(base: stores.stateStore, codec: codec))
            try await StateStoreConformance.updatesDecideOnTheLiveValue(stores.stateStore)
            try await StateStoreConformance.updatesDecideOnTheLiveValue(
                SealingStateStore(base: stores.stateStore, codec: codec))
        }
    }

    @Test func authSessionStore() async throws {
        try await TestDatabase.withStores { stores in
            try await StateStoreConformance.keepsAuthSessions(ExpiringStateAuthSessionStore(state: stores.stateStore))
            let codec = SealedStateCodec(
                keyRing: try SealingKeyRing([try SealingKey.random(id: "k1")]), purpose: "sessions")
            let sealed = ExpiringStateAuthSessionStore(state: SealingStateStore(base: stores.stateStore, codec: codec))
            try await StateStoreConformance.keepsAuthSessions(sealed)
            // At rest: no token in the row.
            let session = AuthSession(
                uid: "u", email: nil, displayName: nil, isEmailVerified: false, isAnonymous: true, tenantID: nil,
                idToken: "ID-TOKEN-MARKER", refreshToken: "REFRESH-MARKER", idTokenExpiration: Date(), factors: [])
            let key = TOTPStoreConformance.freshKey("sealed")
            try await sealed.save(session, key: key)
            let raw = try #require(try await stores.stateStore.value(forKey: "auth-session/" + key, at: Date()))
            #expect(!String(decoding: raw, as: UTF8.self).contains("MARKER"))
            #expect(try await sealed.load(key: key) == session)
        }
    }
}

@Suite(.enabled(if: TestDatabase.isConfigured, "IDENTITY_TEST_POSTGRES_URL names no PostgreSQL server"))
struct PostgresOperationTests {
    @Test func migrationIsIdempotentAndSafeFromManyInstancesAtOnce() async throws {
        let prefix = TestDatabase.freshPrefix()
        try await TestDatabase.withStores(tablePrefix: prefix, migrate: false) { stores in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 { group.addTask { try await stores.migrate() } }
                try await group.waitForAll()
            }
            try await stores.migrate()
            #expect(
                try await stores.verificationStore.recordAttempt(for: "k", limit: .default, at: Date())
                    == .counted(failures: 0))
        }
        let versions = try await TestDatabase.withConnection { connection in
            try await connection.query(
                PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(prefix)schema"), logger: Logger(label: "test")
            ).collect().count
        }
        #expect(versions == 1)
    }

    /// An instance that starts beside busy ones migrates without waiting
    /// for their writes: a migrated database takes no table lock (before,
    /// `CREATE INDEX IF NOT EXISTS` waited for every open write, and held
    /// up the writes behind it, until the query timeout).
    @Test func migratingAMigratedDatabaseWaitsForNoWrite() async throws {
        let prefix = TestDatabase.freshPrefix()
        try await TestDatabase.withStores(tablePrefix: prefix) { stores in
            try await TestDatabase.withConnection { writer in
                let logger = Logger(label: "test")
                try await writer.query("BEGIN", logger: logger)
                for table in ["state", "record_log", "totp_verifications", "totp_clock_offsets"] {
                    try await writer.query(
                        PostgresQuery(unsafeSQL: "DELETE FROM \(prefix)\(table) WHERE false"), logger: logger)
                }
                try await stores.migrate()
                try await writer.query("ROLLBACK", logger: logger)
            }
        }
    }

    /// A database that a newer release migrated is left as it is: an older
    /// instance in a rolling deploy puts back no table, index or function.
    @Test func aNewerRecordedVersionIsLeftAsItIs() async throws {
        let prefix = TestDatabase.freshPrefix()
        try await TestDatabase.withStores(tablePrefix: prefix) { stores in
            let logger = Logger(label: "test")
            try await TestDatabase.withConnection { connection in
                try await connection.query(
                    PostgresQuery(unsafeSQL: "DROP INDEX \(prefix)state_expires_at"), logger: logger)
                try await connection.query(
                    PostgresQuery(
                        unsafeSQL:
                            "INSERT INTO \(prefix)schema (version) VALUES (\(PostgresIdentityStores.schemaVersion + 1))"
                    ),
                    logger: logger)
            }
            try await stores.migrate()
            let indexes = try await TestDatabase.withConnection { connection in
                try await connection.query(
                    PostgresQuery(unsafeSQL: "SELECT to_regclass('\(prefix)state_expires_at') IS NOT NULL"),
                    logger: logger
                )
                .collect().map { try $0.decode(Bool.self) }
            }
            #expect(indexes == [false])
        }
    }

    /// The settle call is a prepared statement named after its store's
    /// function and the state table's statements: two prefixes on one pool
    /// (one connection, so both are prepared on it) each settle, read and
    /// swap on their own tables.
    @Test func twoPrefixesOnOnePoolSettleOnTheirOwnTables() async throws {
        var settings = try TestDatabase.settings()
        settings.maximumConnections = 1
        let client = PostgresClient(
            configuration: settings.clientConfiguration,
            backgroundLogger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            let one = try PostgresIdentityStores(client: client, tablePrefix: TestDatabase.freshPrefix())
            let other = try PostgresIdentityStores(client: client, tablePrefix: TestDatabase.freshPrefix())
            try await one.migrate()
            try await other.migrate()
            let now = Date()
            func settle(_ stores: PostgresIdentityStores, _ step: UInt64) async throws -> TOTPAttemptSettlement {
                try await stores.verificationStore.settleAttempt(
                    for: "shared-key", matchedStep: step, limit: .default, at: now,
                    retainUntil: now.addingTimeInterval(60))
            }
            #expect(try await settle(one, 7) == .accepted)
            #expect(try await settle(other, 7) == .accepted, "the second prefix's call ran on the first prefix's table")
            #expect(try await settle(one, 7) == .counted)
            #expect(try await settle(other, 7) == .counted)
            // The state table's prepared statements too: each prefix reads,
            // inserts and swaps its own rows.
            let key = "shared-state-key"
            func increment(_ stores: PostgresIdentityStores) async throws -> Int {
                try await stores.stateStore.updateValue(forKey: key, at: now) { stored in
                    let next = (stored.map { Int(String(decoding: $0, as: UTF8.self)) ?? -100 } ?? 0) + 1
                    return .store(Data(String(next).utf8), expiresAt: now.addingTimeInterval(60), result: next)
                }
            }
            #expect(try await increment(one) == 1)
            #expect(try await increment(other) == 1, "the second prefix's insert ran on the first prefix's table")
            #expect(try await increment(one) == 2)
            #expect(try await increment(one) == 3)
            #expect(try await increment(other) == 2)
            #expect(try await one.stateStore.value(forKey: key, at: now) == Data("3".utf8))
            #expect(try await other.stateStore.value(forKey: key, at: now) == Data("2".utf8))
        }
    }

    /// An app starts the sweepers with its services, before `migrate()`
    /// has made the tables: they wait for them without a warning, then
    /// sweep (an expired row goes, a live one stays).
    @Test func sweepersStartedBeforeTheTablesWaitQuietlyThenSweep() async throws {
        let records = LogRecords()
        let client = PostgresClient(
            configuration: try TestDatabase.settings().clientConfiguration,
            backgroundLogger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            let stores = try PostgresIdentityStores(
                client: client, tablePrefix: TestDatabase.freshPrefix(), clock: .caller,
                logger: Logger(label: "test", factory: { _ in CapturingLogHandler(records: records) }))
            group.addTask { await stores.runSweeper(every: .milliseconds(200)) }
            group.addTask { try await stores.recordLog.retentionSweeper(every: .milliseconds(200)).run() }
            try await Task.sleep(for: .seconds(1.5))
            #expect(records.lines.contains { $0.hasPrefix("debug the tables are not there yet") })
            try await stores.migrate()
            let now = Date()
            try await stores.stateStore.setValue(
                Data("old".utf8), forKey: "expired", expiresAt: now.addingTimeInterval(-60))
            try await stores.stateStore.setValue(
                Data("live".utf8), forKey: "live", expiresAt: now.addingTimeInterval(3600))
            let deadline = ContinuousClock.now + .seconds(60)
            var swept = false
            while !swept && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
                swept = try await TestDatabase.withConnection { connection in
                    try await connection.query(
                        PostgresQuery(unsafeSQL: "SELECT key FROM \(stores.tablePrefix)state"),
                        logger: Logger(label: "test")
                    )
                    .collect().map { try $0.decode(String.self) } == ["live"]
                }
            }
            #expect(swept, "the expired row is still there")
            #expect(
                !records.lines.contains { $0.hasPrefix("warning") },
                "\(records.lines.filter { $0.hasPrefix("warning") })")
        }
    }

    @Test func withoutMigrationTheErrorSaysSo() async throws {
        try await TestDatabase.withStores(tablePrefix: TestDatabase.freshPrefix(), migrate: false) { stores in
            do {
                _ = try await stores.verificationStore.recordAcceptedStep(1, for: "k", at: Date(), retainUntil: Date())
                Issue.record("a store without its tables answered")
            } catch let error as PostgresStoreError {
                #expect(error.code == .notMigrated)
                #expect(error.description.contains("migrate()"))
            }
        }
    }

    /// A call that comes before `migrate()` (an instance serving while
    /// another migrates) fails as not migrated, and the same connection
    /// works once the tables are there: postgres-nio remembers a prepared
    /// statement whose preparation failed, with its error, for the life of
    /// the connection, so the stores must not leave such a statement behind.
    @Test func aCallBeforeMigrationLeavesTheConnectionUsable() async throws {
        var settings = try TestDatabase.settings()
        settings.maximumConnections = 1
        try await TestDatabase.withStores(settings: settings, tablePrefix: TestDatabase.freshPrefix(), migrate: false) {
            stores in
            let now = Date()
            let limit = TOTPAttemptLimit.default
            func everyCall() async throws {
                _ = try await stores.stateStore.value(forKey: "k", at: now)
                _ = try await stores.stateStore.compareAndSwapValue(
                    forKey: "k", expected: nil, newValue: Data([1]), expiresAt: now.addingTimeInterval(60), at: now)
                _ = try await stores.stateStore.compareAndSwapValue(
                    forKey: "k", expected: Data([1]), newValue: Data([2]), expiresAt: now.addingTimeInterval(60),
                    at: now)
                _ = try await stores.stateStore.updateValue(forKey: "u", at: now) { _ in
                    ExpiringStateUpdate.store(Data([3]), expiresAt: now.addingTimeInterval(60), result: ())
                }
                _ = try await stores.verificationStore.settleAttempt(
                    for: "k", matchedStep: 1, limit: limit, at: now, retainUntil: now.addingTimeInterval(60))
            }
            do {
                try await everyCall()
                Issue.record("a store without its tables answered")
            } catch let error as PostgresStoreError {
                #expect(error.code == .notMigrated, "\(error)")
            }
            // Each call on its own before migrating, so that each statement's preparation fails once.
            _ = try? await stores.stateStore.value(forKey: "k", at: now)
            _ = try? await stores.stateStore.compareAndSwapValue(
                forKey: "k", expected: nil, newValue: Data([1]), expiresAt: now.addingTimeInterval(60), at: now)
            _ = try? await stores.stateStore.compareAndSwapValue(
                forKey: "k", expected: Data([1]), newValue: Data([2]), expiresAt: now.addingTimeInterval(60), at: now)
            _ = try? await stores.stateStore.updateValue(forKey: "u", at: now) { _ in
                ExpiringStateUpdate.store(Data([3]), expiresAt: now.addingTimeInterval(60), result: ())
            }
            _ = try? await stores.verificationStore.settleAttempt(
                for: "k", matchedStep: 1, limit: limit, at: now, retainUntil: now.addingTimeInterval(60))
            try await stores.migrate()
            try await everyCall()
            #expect(try await stores.stateStore.value(forKey: "k", at: now) == Data([2]))
            #expect(try await stores.stateStore.value(forKey: "u", at: now) == Data([3]))
        }
    }

    @Test func sweepingRemovesExpiredRowsOnly() async throws {
        try await TestDatabase.withStores(tablePrefix: TestDatabase.freshPrefix()) { stores in
            let now = Date()
            for index in 0..<5 {
                try await stores.stateStore.setValue(
                    Data([1]), forKey: "old-\(index)", expiresAt: now.addingTimeInterval(-1))
                _ = try await stores.verificationStore.recordAcceptedStep(
                    1, for: "old-\(index)", at: now, retainUntil: now.addingTimeInterval(-1))
            }
            try await stores.stateStore.setValue(Data([2]), forKey: "live", expiresAt: now.addingTimeInterval(60))
            #expect(try await stores.sweepExpired(now: now) == 10)
            #expect(try await stores.stateStore.value(forKey: "live", at: now) == Data([2]))
            #expect(try await stores.sweepExpired(now: now) == 0)
        }
    }

    @Test func aWrongPasswordIsNamedAndVerificationFailsClosed() async throws {
        let wrong = try TestDatabase.settings(password: "not-the-password")
        await #expect(throws: PostgresStoreError.self) { try await PostgresIdentityStores.checkConnection(wrong) }
        do {
            try await PostgresIdentityStores.checkConnection(wrong)
        } catch {
            #expect(error.code == .authenticationFailed)
            #expect(!error.description.contains("not-the-password"))
        }
        // Through a pool: the verifier throws within the query timeout.
        let started = ContinuousClock.now
        try await TestDatabase.withStores(settings: wrong, queryTimeout: .seconds(2), migrate: false) { stores in
            let verifier = try TOTPVerifier(
                totp: try TOTP(key: Array("12345678901234567890".utf8)), replayStore: stores.verificationStore,
                attemptStore: stores.verificationStore)
            await #expect(throws: PostgresStoreError.self) {
                _ = try await verifier.verify("123456", keyID: "u", at: Int64(1_800_000_000))
            }
        }
        #expect(ContinuousClock.now - started < .seconds(6))
    }

    @Test func anUnreachableServerIsATypedErrorNotAHang() async throws {
        var down = try TestDatabase.settings()
        down.port = 1
        do {
            try await PostgresIdentityStores.checkConnection(down)
            Issue.record("connected to port 1")
        } catch {
            #expect(error.code == .unavailable || error.code == .timedOut, "\(error)")
        }
        let started = ContinuousClock.now
        try await TestDatabase.withStores(settings: down, queryTimeout: .seconds(1), migrate: false) { stores in
            let verifier = try TOTPVerifier(
                totp: try TOTP(key: Array("12345678901234567890".utf8)), replayStore: stores.verificationStore,
                attemptStore: stores.verificationStore)
            do {
                _ = try await verifier.verify("123456", keyID: "u", at: Int64(1_800_000_000))
                Issue.record("a verification passed with the database down")
            } catch let error as PostgresStoreError {
                #expect(error.code == .unavailable || error.code == .timedOut, "\(error)")
            }
        }
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    /// A connection dropped in the middle of a call: the call waits on a
    /// row lock another transaction holds, and its backend is terminated.
    @Test func aConnectionDroppedMidCallIsATypedError() async throws {
        let key = TOTPStoreConformance.freshKey("dropped")
        try await TestDatabase.withStores { stores in
            _ = try await stores.verificationStore.recordAttempt(for: key, limit: .default, at: Date())
            try await TestDatabase.withConnection { locker in
                let logger = Logger(label: "test")
                let lockerPID =
                    try await locker.query("SELECT pg_backend_pid()", logger: logger).collect().first?.decode(
                        Int32.self) ?? 0
                try await locker.query("BEGIN", logger: logger)
                try await locker.query(
                    PostgresQuery(unsafeSQL: "SELECT 1 FROM test_state WHERE key = 'totp-key/\(key)' FOR UPDATE"),
                    logger: logger)
                let call = Task {
                    try await stores.verificationStore.recordAttempt(for: key, limit: .default, at: Date())
                }
                // Wait until the call is blocked on this lock (no other
                // test's), then end its backend.
                var terminated = false
                for _ in 0..<50 where !terminated {
                    try await Task.sleep(for: .milliseconds(100))
                    let rows = try await TestDatabase.withConnection { killer in
                        try await killer.query(
                            """
                            SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                            WHERE \(lockerPID) = ANY(pg_blocking_pids(pid))
                            """, logger: logger
                        ).collect()
                    }
                    terminated = !rows.isEmpty
                }
                #expect(terminated)
                do {
                    _ = try await call.value
                    Issue.record("a call whose connection was terminated succeeded")
                } catch let error as PostgresStoreError {
                    #expect(error.code == .unavailable, "\(error)")
                }
                try await locker.query("ROLLBACK", logger: logger)
            }
            // The pool recovers: a call works again. Until the pool notices
            // the close it may hand out the dropped connection once more;
            // that call fails with a typed error too, at once (unavailable)
            // or at the query timeout (timedOut: seen once in CI, with the
            // suite's other tests loading both cores).
            var recovered = false
            for _ in 0..<5 where !recovered {
                do {
                    recovered = try await stores.verificationStore.attempts(for: key)?.failures ?? 0 >= 1
                } catch let error as PostgresStoreError {
                    #expect(error.code == .unavailable || error.code == .timedOut, "\(error)")
                    try await Task.sleep(for: .milliseconds(200))
                }
            }
            #expect(recovered)
        }
    }

    @Test func aLockHeldTooLongEndsAtTheStatementTimeout() async throws {
        let key = TOTPStoreConformance.freshKey("slow")
        // Migrated with the usual timeout: on a fresh database the other
        // suites' migrations hold the advisory lock for longer than 500 ms.
        try await TestDatabase.withStores { _ in }
        try await TestDatabase.withStores(
            settings: try TestDatabase.settings(statementTimeout: .milliseconds(500)), migrate: false
        ) { stores in
            _ = try await stores.verificationStore.recordAttempt(for: key, limit: .default, at: Date())
            try await TestDatabase.withConnection { locker in
                let logger = Logger(label: "test")
                try await locker.query("BEGIN", logger: logger)
                try await locker.query(
                    PostgresQuery(unsafeSQL: "SELECT 1 FROM test_state WHERE key = 'totp-key/\(key)' FOR UPDATE"),
                    logger: logger)
                do {
                    _ = try await stores.verificationStore.recordAttempt(for: key, limit: .default, at: Date())
                    Issue.record("a call waited out a held lock")
                } catch let error as PostgresStoreError {
                    #expect(error.code == .timedOut)
                    #expect(error.sqlState == "57014")
                }
                try await locker.query("ROLLBACK", logger: logger)
            }
        }
    }
}

/// What needs no server: reading connection URLs and refusing bad options.
@Suite struct PostgresSettingsTests {
    @Test func urlsAreReadAsLibpqReadsThem() throws {
        let settings = try PostgresConnectionSettings(
            url: "postgresql://app%40team@db.internal:6543/identity?sslmode=verify-full", password: "pw")
        #expect(settings.host == "db.internal")
        #expect(settings.port == 6543)
        #expect(settings.username == "app@team")
        #expect(settings.database == "identity")
        #expect(settings.tls == .verifyFull)
        #expect(settings.password == "pw")
        #expect(!settings.description.contains("pw"))
        let defaults = try PostgresConnectionSettings(url: "postgres://app@localhost")
        #expect(
            defaults.port == 5432 && defaults.database == nil && defaults.tls == .prefer && defaults.password == nil)
        let socket = try PostgresConnectionSettings(url: "postgres://app@localhost/db?host=/run/postgresql")
        #expect(socket.unixSocketPath == "/run/postgresql/.s.PGSQL.5432")
        let inURL = try PostgresConnectionSettings(url: "postgres://app:s3cret@localhost/db")
        #expect(inURL.password == "s3cret")
        #expect(PostgresConnectionSettings.urlContainsPassword("postgres://app:s3cret@localhost/db"))
        #expect(!PostgresConnectionSettings.urlContainsPassword("postgres://app@localhost/db"))
        #expect(!inURL.description.contains("s3cret"))
    }

    @Test func badURLsAreRefusedWithoutTheirPassword() {
        for url in [
            "mysql://app@localhost/db", "postgres://localhost/db", "postgres://app:hunter2@/db",
            "postgres://app:hunter2@localhost/db?sslmode=maybe",
            "postgres://app:hunter2@localhost/db?options=-c%20x", "not a url", "postgres://app@localhost:99999/db",
        ] {
            do {
                _ = try PostgresConnectionSettings(url: url)
                Issue.record("accepted \(url)")
            } catch {
                #expect(error.code == .invalidConfiguration, "\(url)")
                #expect(!error.description.contains("hunter2"), "\(error)")
            }
        }
    }
}

/// The stores' statements are timed in `identity_store_seconds`, by operation and outcome.
@Suite(.enabled(if: TestDatabase.isConfigured, "IDENTITY_TEST_POSTGRES_URL names no PostgreSQL server"))
struct PostgresStoreMetricsTests {
    @Test func aSettledAttemptIsTimedByItsOperation() async throws {
        let metrics = TestMetrics()
        try await withMetricsFactory(metrics) {
            try await TestDatabase.withStores(tablePrefix: TestDatabase.freshPrefix()) { stores in
                _ = try await stores.verificationStore.settleAttempt(
                    for: "tenant/user", matchedStep: 7, limit: .default, at: Date(),
                    retainUntil: Date().addingTimeInterval(600))
            }
        }
        // A key with no entry: one statement (an insert unless a row is there).
        let timer = try metrics.expectTimer("identity_store_seconds", [("operation", "swap state"), ("outcome", "ok")])
        #expect(timer.values.count == 1)
        #expect(!metrics.timers.contains { $0.dimensions.contains { $0.1.contains("tenant/user") } })
    }
}

/// Settings from swift-configuration: the keys, and the password read as a
/// secret (an access log never shows it).
@Suite struct PostgresSettingsConfigurationTests {
    @Test func settingsAreReadFromAConfigReaderAndThePasswordStaysSecret() throws {
        let reporter = ConfigurationAccessRecorder()
        let config = ConfigReader(
            provider: InMemoryProvider(values: [
                "postgres.url": "postgres://app@db.internal:6543/identity?sslmode=require",
                "postgres.password": "hunter2-secret",
                "postgres.maximumConnections": ConfigValue(.int(7), isSecret: false),
            ]), accessReporter: reporter)
        let settings = try PostgresConnectionSettings(config: config.scoped(to: "postgres"))
        #expect(
            settings.host == "db.internal" && settings.port == 6543 && settings.password == "hunter2-secret"
                && settings.maximumConnections == 7)
        #expect(!reporter.lines.isEmpty)
        #expect(!reporter.lines.contains { $0.contains("hunter2-secret") })
    }

    @Test func aMissingURLOrOneWithAPasswordIsRefused() {
        for values: [AbsoluteConfigKey: ConfigValue] in [
            [:], ["url": "postgres://app:pw-in-url@localhost/db"],
            ["url": "postgres://app@localhost/db", "maximumConnections": ConfigValue(.int(0), isSecret: false)],
        ] {
            #expect(throws: PostgresStoreError.self) {
                _ = try PostgresConnectionSettings(config: ConfigReader(provider: InMemoryProvider(values: values)))
            }
        }
    }
}
