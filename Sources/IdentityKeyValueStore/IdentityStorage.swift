/// Where a server keeps what its instances share: the three primitives every
/// store of the package is built on. `IdentityOTP` builds its security
/// stores on any storage (`verificationStore`, `recoveryCodeStore`,
/// `clockOffsetStore`, `securityEventLog`), so an app that moves from one
/// process to a fleet changes the storage it names, not its stores:
///
/// ```swift
/// let storage = InMemoryIdentityStorage()          // one instance
/// // let storage = try PostgresIdentityStores(client: client)  // a fleet
/// let verifier = try TOTPVerifier(totp: totp, store: storage.verificationStore)
/// ```
public protocol IdentityStorage: Sendable {
    /// The expiring key-value store's type.
    associatedtype State: ExpiringStateStore
    /// The record log's type.
    associatedtype Records: AppendOnlyRecordLog
    /// The notification channel's type.
    associatedtype Notifications: NotificationChannel
    /// The expiring key-value store: attempt counts, accepted steps,
    /// recovery codes, clock offsets, state in flight.
    var stateStore: State { get }
    /// The append-only record log: security events.
    var recordLog: Records { get }
    /// The channel every instance hears: IdentityAdmin's revocation notices
    /// (`RevocationFanOut`).
    var notificationChannel: Notifications { get }
}

/// ``IdentityStorage`` in this process's memory: for a single instance
/// and tests. Its state store refuses new keys when full instead of
/// forgetting live ones (``InMemoryExpiringStateStore/WhenFull/refuse``),
/// because the package's security records live there: an evicted attempt
/// count would end a lock-out.
public struct InMemoryIdentityStorage: IdentityStorage {
    /// The expiring key-value store.
    public let stateStore: InMemoryExpiringStateStore
    /// The record log.
    public let recordLog: InMemoryAppendOnlyRecordLog
    /// The notification channel (this process's listeners).
    public let notificationChannel = InMemoryNotificationChannel()

    /// Empty storage.
    /// - Parameters:
    ///   - capacity: The most live state entries kept; past it new keys are refused.
    ///   - recordsPerSubject: Records the log keeps per subject (user).
    ///   - subjects: Subjects the log keeps.
    public init(capacity: Int = 100_000, recordsPerSubject: Int = 100, subjects: Int = 100_000) {
        stateStore = InMemoryExpiringStateStore(capacity: capacity, whenFull: .refuse)
        recordLog = InMemoryAppendOnlyRecordLog(recordsPerSubject: recordsPerSubject, subjects: subjects)
    }
}
