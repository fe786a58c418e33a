import Foundation
import HTTPTypes
import IdentitySupport
import IdentityToolkit

/// A weak reference to an `Auth`.
final class WeakAuth: @unchecked Sendable {
    weak var auth: Auth?
    init(_ auth: Auth) { self.auth = auth }
}

/// What every call of one `Auth` needs: the app, the backend clients, the
/// tenant and language, the clock and the session store. Users and sessions
/// hold the context, never the `Auth`, so nothing forms a reference cycle.
final class AuthContext: Sendable {
    struct Settings {
        var emulatorHost: String?
        var tenantID: String?
        var languageCode: String?
        var backend: Backend?
    }

    /// The generated clients, rebuilt when a setting they depend on changes.
    struct Backend: Sendable {
        let accounts: AccountsClient
        let secureToken: SecureTokenClient
    }

    let app: FirebaseApp?
    let now: @Sendable () -> Date
    /// Set by the owning `Auth`: signs the user with this uid out if it is
    /// the current one (the server ended its session).
    let sessionEndedHandler = Locked<(@Sendable (String) -> Void)?>(nil)
    /// The `Auth` this context belongs to, held weakly (it holds the context).
    let owner = Locked<WeakAuth?>(nil)
    /// Set by the owning `Auth`: tells its ID token listeners about a new
    /// token of the user with this uid.
    let idTokenChangedHandler = Locked<(@Sendable (String) -> Void)?>(nil)
    let sessionStore: any AuthSessionStore
    /// Every save and removal, in the order they were asked for.
    let storeQueue: SessionStoreQueue
    private let settings: Locked<Settings>

    init(app: FirebaseApp?, now: @escaping @Sendable () -> Date, sessionStore: any AuthSessionStore) {
        self.app = app
        self.now = now
        self.sessionStore = sessionStore
        self.storeQueue = SessionStoreQueue(store: sessionStore)
        let environmentHost = ClientConfiguration.environmentEmulatorHost()
        self.settings = Locked(Settings(emulatorHost: environmentHost))
        if let environmentHost { Self.sayOnce(emulatorHost: environmentHost) }
    }

    private static let saidEmulatorHost = Locked(false)

    /// One line per process on standard error when `FIREBASE_AUTH_EMULATOR_HOST`
    /// sends every `Auth` to an emulator (as Firebase's SDKs honour it), so a
    /// variable left set is seen; `useEmulator(withHost:port:)` still wins.
    private static func sayOnce(emulatorHost: String) {
        let first = saidEmulatorHost.withLock { said in
            defer { said = true }
            return !said
        }
        guard first else { return }
        let host = LogSafeText.escaping(emulatorHost, limit: 64)
        FileHandle.standardError.write(
            Data(
                "MultiFactorAuth: \(ClientConfiguration.emulatorEnvironmentVariable) is set: Auth sends its requests to the emulator at \(host) over plain HTTP (useEmulator(withHost:port:) overrides it)\n"
                    .utf8))
    }

    /// The server ended the session of user `uid` (a refresh refused, a
    /// withdrawal that ended every session): as Firebase does, that user is
    /// signed out if it is still the current one.
    func sessionEnded(for uid: String) {
        sessionEndedHandler.current?(uid)
    }

    /// The user `uid` has a new ID token (a refresh, an enrollment).
    func idTokenChanged(for uid: String) {
        idTokenChangedHandler.current?(uid)
    }

    var tenantID: String? {
        get { settings.current.tenantID }
        set { settings.withLock { $0.tenantID = newValue } }
    }

    var languageCode: String? {
        get { settings.current.languageCode }
        set {
            settings.withLock {
                $0.languageCode = newValue
                $0.backend = nil
            }
        }
    }

    var emulatorHost: String? {
        get { settings.current.emulatorHost }
        set {
            settings.withLock {
                $0.emulatorHost = newValue
                $0.backend = nil
            }
        }
    }

    /// The clients for this app; throws when the app or its API key is missing.
    func backend() throws -> Backend {
        guard let app else {
            throw AuthErrorCode(
                .internalError,
                message:
                    "No Firebase app is configured: call FirebaseApp.configure() (with a GoogleService-Info.plist) or FirebaseApp.configure(options:) first."
            )
        }
        guard let apiKey = app.options.apiKey, !apiKey.isEmpty else {
            throw AuthErrorCode(
                .invalidAPIKey, message: "The Firebase app '\(app.name)' has no API key: set FirebaseOptions.apiKey.")
        }
        return settings.withLock { settings in
            if let backend = settings.backend { return backend }
            var headers: HTTPFields = [:]
            if let name = HTTPField.Name("X-Client-Version") { headers[name] = "Swift/swift-identity-mfa/1" }
            if let name = HTTPField.Name("X-Firebase-GMPID") { headers[name] = app.options.googleAppID }
            if let language = settings.languageCode, let name = HTTPField.Name("X-Firebase-Locale") {
                headers[name] = language
            }
            let configuration = ClientConfiguration(
                transport: app.options.httpTransport, emulatorHost: settings.emulatorHost,
                requestTimeout: app.options.requestTimeout, headers: headers)
            let backend = Backend(
                accounts: AccountsClient(apiKey: apiKey, configuration: configuration),
                secureToken: SecureTokenClient(apiKey: apiKey, configuration: configuration))
            settings.backend = backend
            return backend
        }
    }

    /// The key this context's session is saved under.
    var sessionKey: String { (app?.name ?? "-") + "/" + (tenantID ?? "") }
}

/// Runs an `Auth`'s session-store operations one after another, in the
/// order they were asked for, so that a removal started by the synchronous
/// `signOut()` can never land after the save of a sign-in that followed it.
/// A failure is kept and thrown by the next ``flush()``.
final class SessionStoreQueue: Sendable {
    private struct State {
        var tail: Task<Void, Never>?
        var failure: (any Error)?
    }

    private let state = Locked(State())
    private let store: any AuthSessionStore

    init(store: any AuthSessionStore) {
        self.store = store
    }

    /// Queues `operation` after every earlier one; returns at once.
    func enqueue(_ operation: @escaping @Sendable (any AuthSessionStore) async throws -> Void) {
        let store = self.store
        state.withLock { state in
            let previous = state.tail
            state.tail = Task {
                await previous?.value
                do {
                    try await operation(store)
                } catch {
                    self.state.withLock { $0.failure = $0.failure ?? error }
                }
            }
        }
    }

    /// Waits for every queued operation, then throws (and forgets) the
    /// first failure among them.
    func flush() async throws {
        await state.current.tail?.value
        let failure = state.withLock { state -> (any Error)? in
            defer { state.failure = nil }
            return state.failure
        }
        if let failure { throw failure }
    }
}
