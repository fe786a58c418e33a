import Foundation
import Logging
import PostgresNIO
import Testing

@testable import IdentityStoresPostgres

/// Version 6's move of the older tables during a rolling deploy: an
/// earlier release's instance that writes while `migrate()` runs loses
/// nothing. The migration locks the moved tables before it copies them, so
/// a write in flight commits first and is copied, and a later one waits
/// and then meets the read-only triggers.
@Suite(.enabled(if: TestDatabase.isConfigured, "IDENTITY_TEST_POSTGRES_URL names no PostgreSQL server"))
struct PostgresMigrationRaceTests {
    /// An old-release connection holds an open transaction that uses a
    /// recovery code and issues a new user's set when `migrate()` starts,
    /// and commits while it waits. Without the lock the copy's snapshot
    /// missed both: the used code worked again and the new set was gone.
    /// (The verification and replay tables were held by the migration's
    /// earlier `CREATE INDEX IF NOT EXISTS`, by chance: the lock makes it
    /// hold for every moved table.)
    @Test func writesInFlightDuringTheMoveAreKept() async throws {
        let prefix = TestDatabase.freshPrefix()
        try await TestDatabase.withStores(tablePrefix: prefix, clock: .database, migrate: false) { stores in
            try await stores.migrate(upTo: 5)
            try await TestDatabase.withConnection { connection in
                let logger = Logger(label: "test")
                func run(_ sql: String) async throws {
                    _ = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).collect()
                }
                try await run(
                    "INSERT INTO \(prefix)recovery_sets (user_id, salt, rounds, created_at) VALUES ('u', '\\x00', 10000, now())"
                )
                try await run(
                    "INSERT INTO \(prefix)recovery_codes (user_id, digest) VALUES ('u', '\\x01'), ('u', '\\x02')")
                // The earlier release's writes, not yet committed.
                try await run("BEGIN")
                try await run("DELETE FROM \(prefix)recovery_codes WHERE user_id = 'u' AND digest = '\\x01'")
                try await run(
                    "INSERT INTO \(prefix)recovery_sets (user_id, salt, rounds, created_at) VALUES ('v', '\\x00', 10000, now())"
                )
                try await run("INSERT INTO \(prefix)recovery_codes (user_id, digest) VALUES ('v', '\\x03')")
                let migration = Task { try await stores.migrate() }
                // Generous: the migration must reach the old tables and wait on them.
                try await Task.sleep(for: .seconds(2))
                try await run("COMMIT")
                try await migration.value
            }
            let used = try #require(try await stores.recoveryCodeStore.verifiers(for: "u"))
            #expect(used.digests == [Data([0x02])], "the code used during the move works again")
            let issued = try await stores.recoveryCodeStore.verifiers(for: "v")
            #expect(issued?.digests == [Data([0x03])], "the set issued during the move is gone")
        }
    }
}

/// The database's time as the stores judge it: one reading of `now()`
/// plus the monotonic time since, so that a wall clock set forward on an
/// instance ends no lock-out early.
@Suite struct DatabaseClockReadingTests {
    @Test func theDatabasesTimeFollowsTheMonotonicClockNotTheWallClock() {
        let read = ContinuousClock.now
        let databaseTime = Date(timeIntervalSince1970: 1_800_000_000)
        let reading = DatabaseClockReading(databaseTime: databaseTime, instant: read)
        #expect(reading.time(at: read) == databaseTime)
        #expect(reading.time(at: read + .seconds(42)) == databaseTime.addingTimeInterval(42))
        #expect(reading.time(at: read - .milliseconds(500)) == databaseTime.addingTimeInterval(-0.5))
    }
}
