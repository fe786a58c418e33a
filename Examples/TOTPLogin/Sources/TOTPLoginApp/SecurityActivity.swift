import Foundation
import Hummingbird
import IdentityAdmin
import IdentityOTP
import Logging

/// A "was this you?" message waiting to be mailed. Sending mail is out of
/// the example's scope: the outbox is where a mail worker would take over.
public struct OutboxNotification: Sendable, Hashable, Codable {
    /// The address it goes to.
    public var recipient: String
    /// Whose account.
    public var uid: String
    /// What happened (`SecurityEvent.Kind`'s raw value).
    public var kind: String
    public var subject: String
    public var body: String
    public var createdAt: Date

    public init(recipient: String, uid: String, kind: String, subject: String, body: String, createdAt: Date) {
        self.recipient = recipient
        self.uid = uid
        self.kind = kind
        self.subject = subject
        self.body = body
        self.createdAt = createdAt
    }
}

/// Where notifications wait for the mail worker: a table on PostgreSQL
/// (the executable's `PostgresNotificationOutbox`), a list in memory.
public protocol NotificationOutbox: Sendable {
    func enqueue(_ notification: OutboxNotification) async throws
    /// The oldest notifications not yet sent, at most `limit`.
    func pending(limit: Int) async throws -> [OutboxNotification]
}

/// The outbox of one process (and of the tests).
public actor InMemoryNotificationOutbox: NotificationOutbox {
    private var waiting: [OutboxNotification] = []

    public init() {}

    public func enqueue(_ notification: OutboxNotification) {
        waiting.append(notification)
        // A bound, as every in-memory store here has one.
        if waiting.count > 10_000 { waiting.removeFirst(waiting.count - 10_000) }
    }

    public func pending(limit: Int) -> [OutboxNotification] { Array(waiting.prefix(max(0, limit))) }
}

/// Turns the security events a user should hear about into outbox
/// notifications: a factor added or removed, a recovery code used, every
/// session ended by someone else, a lock-out. The event names no address
/// (events carry ids only), so the notifier looks the account up.
struct SecurityNotifier: SecurityEventSink {
    let admin: IdentityAdmin
    let outbox: any NotificationOutbox
    let logger: Logger

    /// The kinds worth a message, and what it says.
    static func message(for event: SecurityEvent) -> (subject: String, body: String)? {
        let whatToDo =
            "If this was you, there is nothing to do. If it was not, sign in, review your second factors and change your password."
        switch event.kind {
        case .factorEnrolled:
            return (
                "A second factor was added to your account",
                "An authenticator app was added to your account. \(whatToDo)"
            )
        case .factorWithdrawn:
            return (
                "A second factor was removed from your account",
                "A second factor was removed from your account. \(whatToDo)"
            )
        case .recoveryCodeRedeemed:
            return (
                "A recovery code was used",
                "One of your recovery codes was used to sign in without your authenticator. \(whatToDo)"
            )
        case .lockoutBegan:
            return (
                "Sign-ins to your account are paused",
                "Several wrong codes were typed for your account, so its sign-ins are paused for a while. \(whatToDo)"
            )
        case .sessionsRevoked where event.initiatedBy != .user:
            return ("You were signed out everywhere", "Every session of your account was ended. \(whatToDo)")
        default:
            return nil
        }
    }

    func record(_ event: SecurityEvent) async {
        guard let message = Self.message(for: event) else { return }
        do {
            // The event's user is of a tenant or of the project itself.
            let users: BaseAuth = event.user.tenantID.map { admin.tenantManager().authForTenant($0) } ?? admin
            guard let email = try await users.getUser(uid: event.user.uid).email else { return }
            try await outbox.enqueue(
                OutboxNotification(
                    recipient: email, uid: event.user.uid, kind: event.kind.rawValue, subject: message.subject,
                    body: message.body, createdAt: event.date))
        } catch {
            logger.error(
                "could not queue a security notification",
                metadata: ["event": "\(event.kind.rawValue)", "error": "\(type(of: error))"])
        }
    }
}

/// Runs every request with the app's security-event sink and the
/// request's facts (its id, the client address the app trusts, its
/// `User-Agent`), so that the events of the SDK and of the app go to the
/// same log, outbox and audit lines.
struct SecurityEventsMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let app: TOTPLoginApp

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let facts = SecurityEventContext(
            requestID: context.logger[metadataKey: "hb.request.id"]?.description,
            clientAddress: app.clientAddress(request, context), userAgent: request.headers[.userAgent])
        return try await SecurityEventSystem.withSink(app.securityEventSink) {
            try await SecurityEventContext.withValue(facts) { try await next(request, context) }
        }
    }
}

extension Pages {
    /// One line per recent event, newest first.
    static func activity(_ events: [SecurityEvent]) -> String {
        guard !events.isEmpty else { return "<p id=\"no-activity\">Nothing yet.</p>" }
        let dateFormat = Date.ISO8601FormatStyle(dateSeparator: .dash, dateTimeSeparator: .space, timeZone: .gmt)
        let items = events.map { event in
            let by = event.initiatedBy.map { " (by \($0 == .user ? "you" : $0.rawValue))" } ?? ""
            let from = event.context?.userAgent.map { ", \(shortAgent($0))" } ?? ""
            return
                "<li class=\"activity\" data-kind=\"\(escaped(event.kind.rawValue))\">\(escaped(event.date.formatted(dateFormat))): \(escaped(describe(event)))\(escaped(by))\(escaped(from))</li>"
        }
        return "<ul id=\"activity\">\n\(items.joined(separator: "\n"))\n</ul>"
    }

    static func describe(_ event: SecurityEvent) -> String {
        switch event.kind {
        case .factorEnrolled: "second factor added"
        case .factorWithdrawn: "second factor removed"
        case .codeRefused:
            event.factorKind == SecurityEvent.recoveryCodeFactorKind ? "wrong recovery code" : "wrong code"
        case .replayRefused: "a code used twice"
        case .lockoutBegan: "sign-ins paused after wrong codes"
        case .lockoutEnded: "sign-ins resumed"
        case .recoveryCodeRedeemed: "recovery code used"
        case .recoveryCodesIssued: "new recovery codes"
        case .sessionsRevoked: "signed out everywhere"
        case .clockDriftNoticed: "your device's clock is off"
        default: event.kind.rawValue
        }
    }

    /// The first word of a `User-Agent`, enough to tell devices apart.
    static func shortAgent(_ agent: String) -> String {
        String(agent.prefix { $0 != " " }.prefix(40))
    }
}
