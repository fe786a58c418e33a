import Crypto
import Foundation
import MultiFactorAuth

/// What the server remembers about one browser between two requests: its
/// CSRF token, and the sign-in steps in flight. Identity is not kept here:
/// it is the Firebase session cookie, verified on every request.
struct BrowserSession: Sendable {
    /// Sent back with every form; a POST without it is refused.
    var csrfToken: String
    /// The client signed in from this browser, for the calls that need the
    /// user's own ID token (enrolling and removing a factor).
    var auth: Auth?
    /// A password sign-in waiting for its second factor.
    var pendingSignIn: MultiFactorResolver?
    /// A TOTP secret shown on the enrollment page, waiting for its first code.
    var pendingSecret: TOTPSecret?
    var lastUsed: Date
}

/// Every browser's ``BrowserSession``, keyed by a random id in an HttpOnly
/// cookie. In memory: a restart signs no one out (the session cookie stays
/// valid) but drops the steps in flight. Bounded, and idle entries expire,
/// so that a flood of cookie-less requests cannot grow it without limit.
actor BrowserSessions {
    static let cookieName = "totplogin_browser"
    let idleLifetime: TimeInterval
    let capacity: Int
    private var sessions: [String: BrowserSession] = [:]

    init(idleLifetime: TimeInterval = 3600, capacity: Int = 10_000) {
        self.idleLifetime = idleLifetime
        self.capacity = capacity
    }

    /// The session with `id`, or a new one (with its new id) when there is none.
    func session(id: String?, now: Date = Date()) -> (id: String, session: BrowserSession, isNew: Bool) {
        if let id, var session = existing(id: id, now: now) {
            session.lastUsed = now
            sessions[id] = session
            return (id, session, false)
        }
        if sessions.count >= capacity { evict(now: now) }
        let newID = Self.randomToken()
        let session = BrowserSession(csrfToken: Self.randomToken(), lastUsed: now)
        sessions[newID] = session
        return (newID, session, true)
    }

    /// An existing session, for a POST: nil when the browser has none (a
    /// form from another site, or an expired one).
    func existing(id: String?, now: Date = Date()) -> BrowserSession? {
        guard let id, let session = sessions[id], isLive(session, now: now) else { return nil }
        return session
    }

    func update(id: String, _ change: (inout BrowserSession) -> Void) {
        guard var session = sessions[id] else { return }
        change(&session)
        session.lastUsed = Date()
        sessions[id] = session
    }

    /// Forgets everything about a browser except its CSRF token (sign-out).
    func reset(id: String) {
        guard let session = sessions[id] else { return }
        sessions[id] = BrowserSession(csrfToken: session.csrfToken, lastUsed: Date())
    }

    private func evict(now: Date) {
        sessions = sessions.filter { isLive($0.value, now: now) }
        while sessions.count >= capacity, let oldest = sessions.min(by: { $0.value.lastUsed < $1.value.lastUsed }) {
            sessions[oldest.key] = nil
        }
    }

    private func isLive(_ session: BrowserSession, now: Date) -> Bool {
        now.timeIntervalSince(session.lastUsed) <= idleLifetime
    }

    /// 32 random bytes, base64url: a valid cookie value and form field.
    static func randomToken() -> String {
        let key = SymmetricKey(size: .bits256)
        return key.withUnsafeBytes { Data($0) }.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// Compares a submitted CSRF token with the expected one in time that
    /// does not depend on where they differ (swift-crypto's digest equality).
    static func tokensMatch(_ submitted: String, _ expected: String) -> Bool {
        SHA256.hash(data: Data(submitted.utf8)) == SHA256.hash(data: Data(expected.utf8))
    }
}
