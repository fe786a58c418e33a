import Foundation
import IdentityKeyValueStore
import Testing

/// The cases every ``AppendOnlyRecordLog`` must pass: run by `swift test`
/// on the in-memory log and by `.ci/run` on PostgreSQL's.
public enum RecordLogConformance {
    /// The JSON object `{"n": n}` as a record.
    static func record(_ n: Int) -> Data { Data(#"{"n": \#(n)}"#.utf8) }

    /// The `n` of each record (a database may rewrite the JSON's spacing).
    static func numbers(_ records: [Data]) throws -> [Int] {
        try records.map { try #require((try JSONSerialization.jsonObject(with: $0) as? [String: Int])?["n"]) }
    }

    /// Records come back newest first by date (of two at one date, the
    /// later appended first), up to a limit, each subject's apart; the
    /// retention sweep removes exactly the records dated before its cutoff.
    public static func keepsNewestFirstAndRemovesByAge(_ log: any AppendOnlyRecordLog) async throws {
        let (subject, other) = (TOTPStoreConformance.freshKey("subject"), TOTPStoreConformance.freshKey("other"))
        let base = Date(timeIntervalSince1970: 1_800_000_000)
        // Appended out of date order, with two at one date.
        for (n, offset) in [(1, 0.0), (3, 120), (2, 60), (4, 120)] {
            try await log.append(record(n), subject: subject, at: base.addingTimeInterval(offset))
        }
        try await log.append(record(9), subject: other, at: base)
        #expect(try numbers(try await log.records(for: subject, limit: 10)) == [4, 3, 2, 1])
        #expect(try numbers(try await log.records(for: subject, limit: 2)) == [4, 3])
        #expect(try await log.records(for: subject, limit: 0).isEmpty)
        #expect(try numbers(try await log.records(for: other, limit: 10)) == [9])
        #expect(try await log.records(for: TOTPStoreConformance.freshKey("nobody"), limit: 10).isEmpty)
        // The sweep: records before the cutoff go (this subject's two and
        // the other's one, at least: a shared database holds other tests' too).
        #expect(try await log.removeRecords(before: base.addingTimeInterval(60)) >= 2)
        #expect(try numbers(try await log.records(for: subject, limit: 10)) == [4, 3, 2])
        #expect(try await log.records(for: other, limit: 10).isEmpty)
    }
}
