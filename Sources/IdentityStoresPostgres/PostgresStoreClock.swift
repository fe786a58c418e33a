#if PostgreSQL
import Foundation
import IdentitySupport
import PostgresNIO

/// The time the stores judge lapses by (``PostgresIdentityStores/Clock``).
extension PostgresStoreBackend {
    /// How long a reading of the database's clock is used before it is read
    /// again (the monotonic clock and the database's may drift apart slowly).
    static let clockOffsetLifetime: Duration = .seconds(60)

    /// The time a store judges lapses by: with ``PostgresIdentityStores/Clock/database``,
    /// the database's clock as read (`SELECT now()`, half the round trip
    /// allowed for) at most ``clockOffsetLifetime`` ago plus the monotonic
    /// time elapsed since, so that a wall clock set forward on this instance
    /// ends no lock-out early; `callerTime` with the caller's clock.
    func storeTime(callerTime: Date) async throws(PostgresStoreError) -> Date {
        guard clock == .database else { return callerTime }
        let now = ContinuousClock.now
        if let reading = databaseClock.current, now - reading.instant < Self.clockOffsetLifetime {
            return reading.time(at: now)
        }
        let sent = ContinuousClock.now
        let databaseNow = try await perform("read the database's clock") { client in
            var now: Date?
            for try await value in try await client.query("SELECT now()").decode(Date.self) { now = value }
            guard let now else { throw PostgresStoreError.corruptRow("read the database's clock") }
            return now
        }
        let received = ContinuousClock.now
        let reading = DatabaseClockReading(databaseTime: databaseNow, instant: sent + (received - sent) / 2)
        databaseClock.withLock { $0 = reading }
        return reading.time(at: received)
    }
}

/// One reading of the database's clock: its `now()` and the instant of this
/// instance's monotonic clock it was taken at. The database's time later is
/// that reading plus the monotonic time elapsed, whatever the wall clock does.
struct DatabaseClockReading: Sendable {
    /// The database's `now()`.
    var databaseTime: Date
    /// When it was read, on the monotonic clock.
    var instant: ContinuousClock.Instant

    /// The database's time at `later`.
    func time(at later: ContinuousClock.Instant) -> Date {
        databaseTime.addingTimeInterval((later - instant).timeInterval)
    }
}
#endif
