import Foundation
public import IdentityKeyValueStore
import IdentitySupport
public import Logging

#if ServiceLifecycle
public import ServiceLifecycle
#endif

/// Tells every instance of a fleet at once when an account changes here
/// (sessions revoked, the user disabled, deleted or updated: every call
/// that forgets the account's cached state), and hears the others: each
/// instance then drops that user's cached account state and verified tokens,
/// so that a `checkRevoked` check anywhere looks the account up again
/// instead of trusting a state up to ``TokenCacheOptions/revocationMaximumAge``
/// old. The notices go over the storage's `NotificationChannel`
/// (PostgreSQL: `LISTEN`/`NOTIFY`).
///
/// When the channel is down, the caches fall back to their bounded
/// staleness: the fan-out logs the outage once, forgets every cached account
/// state when the channel is back (notices may have been lost meanwhile),
/// and counts what it sent, heard and missed in
/// `firebase_revocation_notifications_total` by `event` (`sent`,
/// `received`, `missed`, `send_failed`; the `Telemetry` trait). A notice
/// holds the tenant, the uid and the sending instance's number, never a
/// token.
///
/// Run it beside the server, as ``SigningKeyRefresher``:
///
/// ```swift
/// let fanOut = admin.revocationFanOut(over: stores.notificationChannel)
/// let group = ServiceGroup(configuration: .init(
///     services: [postgres, fanOut, app], gracefulShutdownSignals: [.sigterm], logger: logger))
/// ```
public final class RevocationFanOut: Sendable {
    private let channel: any NotificationChannel
    private let feed: AccountChangeFeed
    private let accountStates: AccountStateCache?
    private let tokenCaches: [VerifiedTokenCache]
    private let logger: Logger
    /// This instance's number in its notices, so that it skips its own.
    private let instance = UInt64.random(in: 1...UInt64.max)
    private let heard = Locked(Heard())

    private struct Heard {
        /// The last notice number heard from each sender (bounded).
        var lastNumber: [UInt64: UInt64] = [:]
        var interrupted = false
    }

    init(admin: BaseAuth, channel: some NotificationChannel, logger: Logger) {
        self.channel = channel
        feed = admin.accountChanges
        accountStates = admin.accountStates
        tokenCaches = [admin.idTokenVerifier.cache, admin.sessionCookieVerifier.cache].compactMap { $0 }
        self.logger = logger
    }

    /// Sends this instance's notices and applies the others' until the task
    /// is cancelled or (with the `ServiceLifecycle` trait) graceful shutdown
    /// begins; then returns without an error. A failed send is logged and
    /// counted, never thrown.
    public func run() async throws {
        #if ServiceLifecycle
        try await cancelWhenGracefulShutdown { try await self.exchange() }
        #else
        try await exchange()
        #endif
    }

    private func exchange() async throws {
        let outgoing = feed.attach()
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask {
                for await (key, number) in outgoing { await self.send(key, number: number) }
            }
            try await channel.listen { event in self.receive(event) }
            group.cancelAll()
        }
    }

    private func send(_ key: AccountStateCache.Key, number: UInt64) async {
        let notice = RevocationNotice(tenant: key.tenant, uid: key.uid, sender: instance, number: number)
        do {
            try await channel.publish(notice.payload)
            Self.count("sent")
        } catch {
            Self.count("send_failed")
            logger.warning(
                "a revocation notice could not be sent: other instances see the change within the cache's bound",
                metadata: ["error": "\(LogSafeText.escaping("\(error)", limit: 200))"])
        }
    }

    private func receive(_ event: NotificationChannelEvent) {
        switch event {
        case .listening:
            let wasInterrupted = heard.withLock { heard in
                defer { heard.interrupted = false }
                return heard.interrupted
            }
            guard wasInterrupted else { return }
            // Notices sent while the channel was down are lost: forget every state.
            accountStates?.forgetAll()
            logger.notice("the revocation channel is back; cached account states forgotten")
        case .interrupted(let reason):
            let first = heard.withLock { heard in
                defer { heard.interrupted = true }
                return !heard.interrupted
            }
            if first {
                logger.warning(
                    "the revocation channel is down: other instances' revocations reach this one within the cache's bound until it is back",
                    metadata: ["reason": "\(reason)"])
            }
        case .notification(let payload):
            guard let notice = RevocationNotice(payload: payload) else {
                logger.debug("a notification that is not a revocation notice was ignored")
                return
            }
            guard notice.sender != instance else { return }
            Self.count("received")
            let missed = heard.withLock { heard -> UInt64 in
                if heard.lastNumber.count >= 1_000, heard.lastNumber[notice.sender] == nil { heard.lastNumber = [:] }
                defer { heard.lastNumber[notice.sender] = max(notice.number, heard.lastNumber[notice.sender] ?? 0) }
                guard let last = heard.lastNumber[notice.sender], notice.number > last + 1 else { return 0 }
                return notice.number - last - 1
            }
            if missed > 0 { Self.count("missed", by: Int(clamping: missed)) }
            accountStates?.forget(AccountStateCache.Key(tenant: notice.tenant, uid: notice.uid))
            for cache in tokenCaches { cache.forget(uid: notice.uid, tenant: notice.tenant) }
        }
    }

    private static func count(_ event: String, by amount: Int = 1) {
        Telemetry.counter("firebase_revocation_notifications_total", [("event", event)]).increment(by: amount)
    }
}

#if ServiceLifecycle
extension RevocationFanOut: Service {}
#endif

extension BaseAuth {
    /// The fan-out of the account changes of this admin, its tenants'
    /// instances and the admin they come from (they share their caches)
    /// over `channel`; run it beside the server. One per admin: a second
    /// one's `run()` takes over the sending.
    /// - Parameters:
    ///   - channel: The storage's `IdentityStorage.notificationChannel`.
    ///   - logger: Where the channel's outages are said.
    public func revocationFanOut(
        over channel: some NotificationChannel, logger: Logger = Logger(label: "IdentityAdmin.revocations")
    ) -> RevocationFanOut {
        RevocationFanOut(admin: self, channel: channel, logger: logger)
    }
}

/// The account changes an admin and its tenants' instances make, queued
/// for the fan-out to send; dropped when none runs. Bounded: past 10,000
/// queued (a channel far slower than the changes), the oldest go; each
/// change is numbered as it is queued, so the others count a dropped one as
/// missed, from the numbers' gap.
final class AccountChangeFeed: Sendable {
    typealias Change = (key: AccountStateCache.Key, number: UInt64)

    private struct Outbox {
        var continuation: AsyncStream<Change>.Continuation?
        var lastNumber: UInt64 = 0
    }

    private let outbox = Locked(Outbox())

    /// Queues `key`'s change, numbered, for the running fan-out, if one runs.
    func announce(_ key: AccountStateCache.Key) {
        outbox.withLock { outbox in
            guard let continuation = outbox.continuation else { return }
            outbox.lastNumber += 1
            continuation.yield((key, outbox.lastNumber))
        }
    }

    /// The changes from now on; a previous sequence ends.
    func attach() -> AsyncStream<Change> {
        let (stream, continuation) = AsyncStream.makeStream(of: Change.self, bufferingPolicy: .bufferingNewest(10_000))
        outbox.withLock { outbox in
            outbox.continuation?.finish()
            outbox.continuation = continuation
        }
        return stream
    }
}

/// One notice on the channel: `r1 <sender> <number> <tenant> <uid>`, the
/// tenant `-` for the project's users and otherwise Base64URL,
/// as the uid is, so that no field holds a space. Small enough for any
/// channel (a uid is at most 128 characters).
struct RevocationNotice: Equatable {
    var tenant: String?
    var uid: String
    var sender: UInt64
    var number: UInt64

    static let tag = "r1"

    var payload: String {
        let tenantField = tenant.map { Data($0.utf8).base64URLEncoded } ?? "-"
        return "\(Self.tag) \(sender) \(number) \(tenantField) \(Data(uid.utf8).base64URLEncoded)"
    }

    init(tenant: String?, uid: String, sender: UInt64, number: UInt64) {
        self.tenant = tenant
        self.uid = uid
        self.sender = sender
        self.number = number
    }

    /// Reads a payload; nil for anything else (another app's notice on the channel, garbage).
    init?(payload: String) {
        let fields = payload.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 5, fields[0] == Self.tag, let sender = UInt64(fields[1]), let number = UInt64(fields[2]),
            let uidBytes = Data(base64URLEncoded: String(fields[4])), let uid = String(data: uidBytes, encoding: .utf8),
            !uid.isEmpty
        else { return nil }
        if fields[3] == "-" {
            tenant = nil
        } else {
            guard let bytes = Data(base64URLEncoded: String(fields[3])), let text = String(data: bytes, encoding: .utf8)
            else { return nil }
            tenant = text
        }
        self.uid = uid
        self.sender = sender
        self.number = number
    }
}
