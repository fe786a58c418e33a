#if PostgreSQL
import Foundation

/// The entries `IdentityOTP`'s stores keep in the state table, as their
/// `Codable` types encode them (JSON, dates as seconds since 2001 as
/// `JSONEncoder` writes a `Date`, `Data` as base64): what version 6 writes
/// when it moves the older tables' rows, and what the settle functions of
/// earlier releases read and write during a rolling deploy. The
/// PostgreSQL suite holds each to the Swift types (a row moved here is read
/// by the Swift store, and the settle functions pass its shared cases).
enum StateEntryLayout {
    /// `ExpiringStateTOTPVerificationStore`'s default key prefix.
    static let totpKey = "totp-key/"
    /// `ExpiringStateRecoveryCodeStore`'s default key prefix.
    static let recoveryCodes = "recovery-codes/"
    /// `ExpiringStateTOTPClockOffsetStore`'s default key prefix.
    static let clockOffsets = "totp-clock/"
    /// Seconds from 1970 to 2001, the epoch of a `Date` in JSON.
    static let referenceEpoch = 978_307_200
    /// `Date.distantFuture` in JSON: a run that never lapses.
    static let distantFuture = 63_113_904_000

    /// SQL for the `Date` JSON number of the timestamp `sql` (NULL stays NULL).
    static func date(_ sql: String) -> String { "extract(epoch FROM \(sql)) - \(referenceEpoch)" }
    /// SQL for the timestamp of the `Date` JSON number (text) `sql`.
    static func timestamp(_ sql: String) -> String {
        "to_timestamp((\(sql))::double precision + \(referenceEpoch))"
    }
}
#endif
