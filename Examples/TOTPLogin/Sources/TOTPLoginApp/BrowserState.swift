import Crypto
import Foundation
import IdentityServerState
import MultiFactorAuth

/// What the server remembers about one browser between two requests: its
/// CSRF token, the client's signed-in user and the sign-in steps in flight.
///
/// Plain data (Codable), so that any instance can read what another wrote:
/// behind a round-robin balancer the password step and the code step reach
/// different instances, and a deploy restarts them one at a time. Identity
/// itself is not kept here: it is the Firebase session cookie, verified on
/// every request. Everything in it is a secret (tokens, a pending
/// credential, a TOTP key): it lives sealed in a cookie or in a store, and
/// its renderings are redacted by the types it holds.
struct BrowserState: Codable, Sendable, Equatable {
    /// Sent back with every form; a POST without it is refused.
    var csrfToken: String
    /// The client's signed-in user, for the calls that need the user's own
    /// ID token (enrolling and removing a factor).
    var user: AuthSession?
    /// A password sign-in waiting for its second factor.
    var pendingSignIn: PendingSignIn?
    /// A TOTP secret shown on the enrollment page, waiting for its first code.
    var pendingSecret: TOTPSecret.Snapshot?
    /// A user whose sign-out could not end the sessions elsewhere: the
    /// sign-out page offers to try again for them.
    var unrevokedSessionsOf: String?
    /// When it was last written, so that an unchanged state is written again
    /// only now and then (to move its expiry), not on every request.
    var savedAt: Date

    /// A password sign-in that asked for the second factor.
    struct PendingSignIn: Codable, Sendable, Equatable {
        var resolver: MultiFactorResolver.Snapshot
        /// Whose attempts the code step counts (``AttemptLimits``).
        var accountKey: String
        /// The address the password was given for: the recovery path looks
        /// the user up by it.
        var email: String
        /// When the password was checked: a recovery accepts only a recent
        /// password step (`AccountRecovery.maximumFirstFactorAge`).
        var passwordCheckedAt: Date
    }

    /// A fresh state: a new CSRF token and nothing else.
    static func fresh(now: Date = Date()) -> BrowserState {
        BrowserState(csrfToken: randomToken(), savedAt: now)
    }

    /// Whether it holds nothing but its CSRF token (a browser that has only
    /// loaded pages).
    var holdsOnlyItsToken: Bool {
        user == nil && pendingSignIn == nil && pendingSecret == nil && unrevokedSessionsOf == nil
    }

    /// Forgets the user and the steps in flight, keeping nothing (sign-out).
    mutating func reset() {
        self = .fresh()
    }

    /// 32 random bytes, base64url: a valid cookie value and form field.
    static func randomToken() -> String {
        SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(
                of: "=", with: "")
    }

    /// Compares a submitted CSRF token with the expected one in time that
    /// does not depend on where they differ (swift-crypto's digest equality).
    static func tokensMatch(_ submitted: String, _ expected: String) -> Bool {
        SHA256.hash(data: Data(submitted.utf8)) == SHA256.hash(data: Data(expected.utf8))
    }
}

/// The SHA-256 of `text` in hex: store keys that do not reveal what they name.
func sha256Hex(_ text: String) -> String {
    SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
}

/// Where each browser's ``BrowserState`` lives between requests. The
/// browser holds one cookie: the state itself, sealed, or the random id of
/// its entry in a store. Either way every instance that shares the keys or
/// the store reads it.
protocol BrowserStateStorage: Sendable {
    /// The state the cookie names; nil when there is none, it expired, or
    /// the cookie was tampered with (the browser starts afresh).
    /// - Throws: When the storage cannot be reached: the app answers 503
    ///   rather than treating the browser as new.
    func load(cookie: String) async throws -> BrowserState?
    /// Writes `state` and returns the cookie's value for it.
    /// - Parameters:
    ///   - previousCookie: The cookie the request came with; nil for a new
    ///     browser.
    ///   - rotate: A new id (store) so that a cookie planted in the browser
    ///     before the sign-in does not carry its state (session fixation).
    func save(_ state: BrowserState, previousCookie: String?, rotate: Bool) async throws -> String
    /// Forgets the state a cookie names (sign-out).
    func discard(cookie: String) async throws
    /// One line for the start-up log: where the state lives.
    var summary: String { get }
}

/// How long a browser's state lasts without a request.
let browserStateLifetime: TimeInterval = 3600

/// The state itself in the cookie, sealed with AES-GCM under a key ring
/// every instance shares: no database, and a restart or another instance
/// reads it as long as the keys are the same.
struct SealedCookieStorage: BrowserStateStorage {
    /// Browsers refuse cookies over 4096 bytes (name and attributes included).
    static let maximumCookieLength = 3800
    let codec: SealedStateCodec

    init(keyRing: SealingKeyRing) {
        codec = SealedStateCodec(keyRing: keyRing, purpose: "totplogin.browser")
    }

    func load(cookie: String) async throws -> BrowserState? {
        // Expired, tampered with, or sealed under a key that left the ring:
        // a new browser, never an error page.
        try? codec.open(BrowserState.self, from: cookie)
    }

    func save(_ state: BrowserState, previousCookie: String?, rotate: Bool) async throws -> String {
        let sealed = try codec.seal(state, expiresAt: state.savedAt.addingTimeInterval(browserStateLifetime))
        guard sealed.utf8.count <= Self.maximumCookieLength else {
            throw BrowserStateTooLarge(length: sealed.utf8.count)
        }
        return sealed
    }

    func discard(cookie: String) async throws {}

    var summary: String {
        "browser state sealed in its cookie (\(codec.keyRing.keys.count) key(s), newest \(codec.keyRing.newest.id))"
    }
}

/// The sealed state would not fit in a cookie.
struct BrowserStateTooLarge: Error, CustomStringConvertible {
    let length: Int
    var description: String {
        "the sealed browser state is \(length) bytes, more than a cookie holds (\(SealedCookieStorage.maximumCookieLength)); keep it in a store (--postgres)"
    }
}

/// The state in an ``ExpiringStateStore`` shared by the instances (the
/// PostgreSQL one); the cookie holds only a random id. The store's key is a
/// digest of that id, so that a reader of the table cannot use its keys as
/// cookies.
///
/// A browser that has only loaded a page holds nothing but its CSRF token:
/// that state goes sealed in the cookie itself (``preStateCodec``, a
/// `p.`-prefixed value), and the store gets a row only when a form post
/// gives the state something to keep (a sign-in step). So requests without
/// a cookie, which anyone can send, never grow the table.
struct StoreBackedStorage: BrowserStateStorage {
    let store: any ExpiringStateStore
    let name: String
    /// Seals the state of a browser that has a CSRF token only.
    let preStateCodec: SealedStateCodec

    static let preStatePrefix = "p."

    func load(cookie: String) async throws -> BrowserState? {
        if cookie.hasPrefix(Self.preStatePrefix) {
            // Expired, tampered with or under an old key: a new browser.
            guard
                let state = try? preStateCodec.open(
                    BrowserState.self, from: cookie.dropFirst(Self.preStatePrefix.count)),
                state.holdsOnlyItsToken
            else { return nil }
            return state
        }
        return try await store.get(BrowserState.self, forKey: Self.key(cookie))
    }

    func save(_ state: BrowserState, previousCookie: String?, rotate: Bool) async throws -> String {
        let previousRow = previousCookie.flatMap { $0.hasPrefix(Self.preStatePrefix) ? nil : $0 }
        if state.holdsOnlyItsToken && previousRow == nil {
            return Self.preStatePrefix
                + (try preStateCodec.seal(state, expiresAt: state.savedAt.addingTimeInterval(browserStateLifetime)))
        }
        let id = rotate ? nil : previousRow
        if rotate, let previousRow { try await store.removeValue(forKey: Self.key(previousRow)) }
        let cookie = id ?? BrowserState.randomToken()
        try await store.set(
            state, forKey: Self.key(cookie), expiresAt: state.savedAt.addingTimeInterval(browserStateLifetime))
        return cookie
    }

    func discard(cookie: String) async throws {
        try await store.removeValue(forKey: Self.key(cookie))
    }

    var summary: String { "browser state in \(name)" }

    static func key(_ cookie: String) -> String {
        "totplogin/browser/" + sha256Hex(cookie)
    }
}

/// Where ``TOTPLoginApp`` keeps each browser's state between requests.
public struct BrowserStateConfiguration: Sendable {
    let storage: any BrowserStateStorage

    /// The state sealed in the browser's cookie (AES-GCM): no database.
    /// Every instance needs the same key ring, from configuration.
    public static func sealedCookie(keyRing: SealingKeyRing) -> BrowserStateConfiguration {
        BrowserStateConfiguration(storage: SealedCookieStorage(keyRing: keyRing))
    }

    /// The state in a store every instance shares (PostgreSQL's), the cookie
    /// holding a random id; `name` says which in the start-up log. Until a
    /// browser has something to keep, its token alone is sealed in its
    /// cookie under `keyRing` (every instance's), and no row is written.
    public static func store(_ store: any ExpiringStateStore, name: String, keyRing: SealingKeyRing)
        -> BrowserStateConfiguration
    {
        BrowserStateConfiguration(
            storage: StoreBackedStorage(
                store: store, name: name,
                preStateCodec: SealedStateCodec(keyRing: keyRing, purpose: "totplogin.browser-pre")))
    }
}
