public import Foundation

/// An append-only log of records, each filed under a subject (a user): the
/// package's second storage shape, for what must stay as it happened (an
/// audit trail of security events), beside ``ExpiringStateStore`` for
/// state that changes. A record is appended, read back newest first with
/// its subject's others, and removed only by age (the retention sweep);
/// it is never updated, so appending needs no read and cannot contend.
///
/// Every record is the bytes of one JSON value, so that a database keeps
/// it in a form its operators can query (PostgreSQL: `jsonb`).
/// `IdentityOTP`'s `AppendOnlySecurityEventLog` keeps security events in
/// any such log; ``InMemoryAppendOnlyRecordLog`` is the embedded default,
/// `IdentityStoresPostgres`' `PostgresRecordLog` the fleet's.
public protocol AppendOnlyRecordLog: Sendable {
    /// Appends `record` under `subject`, dated `date`.
    /// - Parameters:
    ///   - record: The bytes of one JSON value.
    ///   - subject: Whose record it is (the key it is read back by).
    ///   - date: When it happened: what reads order by, and what the
    ///     retention sweep judges.
    func append(_ record: Data, subject: String, at date: Date) async throws

    /// The newest records under `subject`, newest first (of two with one
    /// date, the later appended first), at most `limit`.
    func records(for subject: String, limit: Int) async throws -> [Data]

    /// Removes every record dated before `cutoff`.
    /// - Returns: How many were removed.
    func removeRecords(before cutoff: Date) async throws -> Int
}

/// An in-memory ``AppendOnlyRecordLog``: each subject's newest records,
/// for one process (tests, a single instance). Bounded twice: at most
/// `recordsPerSubject` per subject (the oldest appended goes first), and
/// at most `subjects` subjects (the one appended to least recently goes
/// first), each in amortised constant time, so that records for many
/// subjects (an attacker's wrong codes at many users) never cost a scan.
public actor InMemoryAppendOnlyRecordLog: AppendOnlyRecordLog {
    /// Records kept per subject.
    public let recordsPerSubject: Int
    /// Subjects kept.
    public let subjects: Int

    private struct Record {
        let date: Date
        let bytes: Data
    }

    /// One append: whose, and its number.
    private struct Append {
        let subject: String
        let number: UInt64
    }

    private var records: [String: [Record]] = [:]
    /// Each subject's last append, numbered, and the appends in order (a
    /// subject's earlier ones skipped as stale): at capacity the subject
    /// appended to least recently goes.
    private var lastAppend: [String: UInt64] = [:]
    private var appends: [Append] = []
    private var firstAppend = 0
    private var appendCount: UInt64 = 0

    /// An empty log keeping `recordsPerSubject` records for each of at most `subjects` subjects.
    public init(recordsPerSubject: Int = 100, subjects: Int = 100_000) {
        self.recordsPerSubject = max(1, recordsPerSubject)
        self.subjects = max(1, subjects)
    }

    /// Appends `record` to its subject's list; past ``subjects`` subjects,
    /// the one appended to least recently is forgotten.
    public func append(_ record: Data, subject: String, at date: Date) {
        var list = records[subject] ?? []
        list.append(Record(date: date, bytes: record))
        if list.count > recordsPerSubject { list.removeFirst(list.count - recordsPerSubject) }
        records[subject] = list
        appendCount += 1
        lastAppend[subject] = appendCount
        appends.append(Append(subject: subject, number: appendCount))
        while records.count > subjects && firstAppend < appends.count {
            let oldest = appends[firstAppend]
            firstAppend += 1
            if lastAppend[oldest.subject] == oldest.number {
                records[oldest.subject] = nil
                lastAppend[oldest.subject] = nil
            }
        }
        compactAppends()
    }

    /// `subject`'s newest records, newest first (of two at one date, the later appended first).
    public func records(for subject: String, limit: Int) -> [Data] {
        let ordered = (records[subject] ?? []).enumerated().sorted {
            ($0.element.date, $0.offset) > ($1.element.date, $1.offset)
        }
        return ordered.prefix(max(0, limit)).map(\.element.bytes)
    }

    /// Forgets the records dated before `cutoff`.
    public func removeRecords(before cutoff: Date) -> Int {
        var removed = 0
        for (subject, list) in records {
            let kept = list.filter { $0.date >= cutoff }
            removed += list.count - kept.count
            records[subject] = kept.isEmpty ? nil : kept
            if kept.isEmpty { lastAppend[subject] = nil }
        }
        compactAppends()
        return removed
    }

    /// Drops the appends already passed, and the stale ones once they
    /// outnumber the live: the list stays within a few times the subjects kept.
    private func compactAppends() {
        let pending = appends.count - firstAppend
        if pending > 2 * lastAppend.count + 1024 {
            var kept: [Append] = []
            kept.reserveCapacity(lastAppend.count)
            for append in appends[firstAppend...] where lastAppend[append.subject] == append.number {
                kept.append(append)
            }
            appends = kept
            firstAppend = 0
        } else if firstAppend > 1024 && firstAppend > pending {
            appends.removeFirst(firstAppend)
            firstAppend = 0
        }
    }
}
