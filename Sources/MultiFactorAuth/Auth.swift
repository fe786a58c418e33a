public import Foundation
import IdentitySupport
import IdentityToolkit

/// The handle of a state listener (``Auth/addStateDidChangeListener(_:)``), as Firebase's.
public typealias AuthStateDidChangeListenerHandle = any NSObjectProtocol
/// The handle of an ID token listener (``Auth/addIDTokenDidChangeListener(_:)``), as Firebase's.
public typealias IDTokenDidChangeListenerHandle = any NSObjectProtocol

/// A listener's identity.
final class ListenerHandle: NSObject, @unchecked Sendable {}

/// The entry point: signs users in and holds the current user, as Firebase's `Auth`.
///
/// `Auth.auth()` is the default app's instance, as in Firebase. Servers
/// create as many independent instances as they need with
/// ``init(app:sessionStore:now:)`` (one per request or per user), and keep
/// users across requests with ``currentSession()`` and ``restore(_:)``.
public final class Auth: Sendable {
    private static let instances = Locked<[String: Auth]>([:])
    private static let unconfigured = Auth(
        context: AuthContext(app: nil, now: Date.init, sessionStore: ExpiringStateAuthSessionStore()))

    let context: AuthContext
    private let user = Locked<User?>(nil)

    init(context: AuthContext) {
        self.context = context
        context.sessionEndedHandler.withLock { handler in
            handler = { [weak self] uid in
                guard let self, self.currentUser?.uid == uid else { return }
                try? self.signOut()
            }
        }
        context.owner.withLock { $0 = WeakAuth(self) }
        context.idTokenChangedHandler.withLock { handler in
            handler = { [weak self] uid in
                guard let self, let user = self.currentUser, user.uid == uid else { return }
                self.notify(.idToken, user)
            }
        }
    }

    // MARK: Listeners

    /// What a listener hears about.
    enum ListenerKind: Sendable { case state, idToken }

    private struct Listener: Sendable {
        let kind: ListenerKind
        let queue: DispatchQueue
        let callback: @Sendable (Auth, User?) -> Void
    }

    private let listeners = Locked<[ObjectIdentifier: (handle: ListenerHandle, listener: Listener)]>([:])

    /// Calls `listener` now with the current user, then each time a user
    /// signs in or out, on the queue of `CompletionDelivery` (as registered): Firebase's state listener.
    /// - Returns: The handle for ``removeStateDidChangeListener(_:)``.
    @discardableResult
    public func addStateDidChangeListener(_ listener: @escaping @Sendable (Auth, User?) -> Void)
        -> AuthStateDidChangeListenerHandle
    {
        add(.state, listener)
    }

    /// Stops the listener of `listenerHandle`.
    public func removeStateDidChangeListener(_ listenerHandle: AuthStateDidChangeListenerHandle) {
        remove(listenerHandle)
    }

    /// Calls `listener` now with the current user, then on each sign-in,
    /// sign-out and ID token change (a refresh), on the queue of `CompletionDelivery` (as registered).
    /// - Returns: The handle for ``removeIDTokenDidChangeListener(_:)``.
    @discardableResult
    public func addIDTokenDidChangeListener(_ listener: @escaping @Sendable (Auth, User?) -> Void)
        -> IDTokenDidChangeListenerHandle
    {
        add(.idToken, listener)
    }

    /// Stops the listener of `listenerHandle`.
    public func removeIDTokenDidChangeListener(_ listenerHandle: IDTokenDidChangeListenerHandle) {
        remove(listenerHandle)
    }

    private func add(_ kind: ListenerKind, _ callback: @escaping @Sendable (Auth, User?) -> Void) -> ListenerHandle {
        let handle = ListenerHandle()
        let listener = Listener(kind: kind, queue: CompletionDelivery.queue, callback: callback)
        let current = user.withLock { current -> User? in
            listeners.withLock { $0[ObjectIdentifier(handle)] = (handle, listener) }
            return current
        }
        listener.queue.async { callback(self, current) }
        return handle
    }

    private func remove(_ handle: any NSObjectProtocol) {
        guard let handle = handle as? ListenerHandle else { return }
        listeners.withLock { $0[ObjectIdentifier(handle)] = nil }
    }

    /// Tells the listeners of `kind` (and, for a user change, the token
    /// listeners too) about `user`.
    private func notify(_ kind: ListenerKind, _ user: User?) {
        let targets = listeners.current.values.map(\.listener).filter { kind == .state || $0.kind == .idToken }
        for listener in targets {
            listener.queue.async { listener.callback(self, user) }
        }
    }

    /// Makes `new` the current user and tells the listeners: state listeners
    /// when the signed-in user changed, token listeners always.
    private func setCurrentUser(_ new: User?) {
        let old = user.withLock { current -> User? in
            defer { current = new }
            return current
        }
        if old?.uid != new?.uid || (old == nil) != (new == nil) {
            notify(.state, new)
        } else {
            notify(.idToken, new)
        }
    }

    /// An independent instance for `app`.
    /// - Parameters:
    ///   - app: The app whose options (API key, project, transport) the instance uses.
    ///   - sessionStore: Where the current session is saved (in memory by default).
    ///   - now: The clock used to judge token expiry (tests align it with an emulator's).
    public convenience init(
        app: FirebaseApp, sessionStore: any AuthSessionStore = ExpiringStateAuthSessionStore(),
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.init(context: AuthContext(app: app, now: now, sessionStore: sessionStore))
    }

    /// The default app's instance. Without a configured default app, its
    /// calls fail with an `AuthErrorCode` instead of stopping the process.
    public static func auth() -> Auth {
        guard let app = FirebaseApp.app() else { return unconfigured }
        return auth(app: app)
    }

    /// The shared instance of `app`.
    public static func auth(app: FirebaseApp) -> Auth {
        instances.withLock { instances in
            if let existing = instances[app.name], existing.context.app === app { return existing }
            let auth = Auth(app: app)
            instances[app.name] = auth
            return auth
        }
    }

    static func forget(appNamed name: String) {
        instances.withLock { $0[name] = nil }
    }

    /// The app this instance belongs to.
    public var app: FirebaseApp? { context.app }

    /// The signed-in user, if any.
    public var currentUser: User? { user.current }

    /// The tenant that sign-ins and sign-ups use; nil for the project itself.
    public var tenantID: String? {
        get { context.tenantID }
        set { context.tenantID = newValue }
    }

    /// The language of emails the server sends (`X-Firebase-Locale`).
    public var languageCode: String? {
        get { context.languageCode }
        set { context.languageCode = newValue }
    }

    /// Sends this instance's requests to an emulator at `host:port`.
    public func useEmulator(withHost host: String, port: Int) {
        context.emulatorHost = "\(host):\(port)"
    }

    /// Signs in with an email and a password.
    /// - Throws: ``AuthErrorCode``; `secondFactorRequired` carries a
    ///   ``MultiFactorResolver`` under ``AuthErrorUserInfoMultiFactorResolverKey``.
    public func signIn(withEmail email: String, password: String) async throws -> AuthDataResult {
        let (response, idToken, refreshToken) = try await passwordStep(email: email, password: password)
        let user = try await completeSignIn(
            idToken: idToken, refreshToken: refreshToken, expiresIn: response.expiresIn, tenantID: context.tenantID)
        return AuthDataResult(
            user: user, additionalUserInfo: AdditionalUserInfo(providerID: EmailAuthProvider.id, isNewUser: false))
    }

    /// The password step of a sign-in (or a re-authentication): its tokens,
    /// or `secondFactorRequired` with a resolver when the user has a second factor.
    /// - Parameter reauthenticating: The uid of the user proving their
    ///   identity again, when this is a re-authentication: another user's
    ///   credential is refused (`userMismatch`) before any step is taken,
    ///   and a resolver it hands out refuses another user's sign-in before
    ///   anything is saved.
    func passwordStep(email: String, password: String, reauthenticating: String? = nil)
        async throws -> (SignInWithPasswordResponse, idToken: String, refreshToken: String)
    {
        let backend = try context.backend()
        let tenant = context.tenantID
        let response = try await AuthErrorMapping.perform {
            try await backend.accounts.signInWithPassword(
                SignInWithPasswordRequest(email: email, password: password, returnSecureToken: true, tenantId: tenant))
        }
        if let reauthenticating, let uid = response.localId, !uid.isEmpty, uid != reauthenticating {
            throw AuthErrorCode(.userMismatch)
        }
        if response.idToken == nil, let pending = response.mfaPendingCredential {
            let hints = try MultiFactorInfo.factors(from: response.mfaInfo ?? [])
            let resolver = MultiFactorResolver(
                hints: hints,
                session: MultiFactorSession(
                    kind: .signIn(pendingCredential: pending), tenantID: tenant, context: context), auth: self,
                reauthenticating: reauthenticating)
            throw AuthErrorCode(
                .secondFactorRequired,
                userInfo: [AuthErrorUserInfoMultiFactorResolverKey: resolver, AuthErrorUserInfoEmailKey: email])
        }
        guard let idToken = response.idToken, let refreshToken = response.refreshToken else {
            throw AuthErrorCode(
                .internalError, message: "The sign-in response has neither tokens nor a second-factor challenge.")
        }
        return (response, idToken, refreshToken)
    }

    /// Creates a user with an email and a password and signs it in.
    public func createUser(withEmail email: String, password: String) async throws -> AuthDataResult {
        let backend = try context.backend()
        let tenant = context.tenantID
        let response = try await AuthErrorMapping.perform {
            try await backend.accounts.signUp(
                SignUpRequest(email: email, password: password, returnSecureToken: true, tenantId: tenant))
        }
        guard let idToken = response.idToken, let refreshToken = response.refreshToken else {
            throw AuthErrorCode(.internalError, message: "The sign-up response has no tokens.")
        }
        let user = try await completeSignIn(
            idToken: idToken, refreshToken: refreshToken, expiresIn: response.expiresIn, tenantID: tenant)
        return AuthDataResult(
            user: user, additionalUserInfo: AdditionalUserInfo(providerID: EmailAuthProvider.id, isNewUser: true))
    }

    /// Signs in as a new anonymous user (which cannot enroll second factors).
    public func signInAnonymously() async throws -> AuthDataResult {
        let backend = try context.backend()
        let tenant = context.tenantID
        let response = try await AuthErrorMapping.perform {
            try await backend.accounts.signUp(SignUpRequest(returnSecureToken: true, tenantId: tenant))
        }
        guard let idToken = response.idToken, let refreshToken = response.refreshToken else {
            throw AuthErrorCode(.internalError, message: "The sign-up response has no tokens.")
        }
        let user = try await completeSignIn(
            idToken: idToken, refreshToken: refreshToken, expiresIn: response.expiresIn, tenantID: tenant)
        return AuthDataResult(
            user: user,
            additionalUserInfo: AdditionalUserInfo(providerID: ProviderID.anonymous.rawValue, isNewUser: true))
    }

    /// Signs in with a custom token a server minted (firebase-admin's
    /// `createCustomToken`, IdentityAdmin's `createCustomToken(uid:)`): how a server hands a session to a user
    /// it proved another way, such as a recovery code. Identity Platform asks
    /// no second factor here: the server that minted the token vouches for the user.
    /// - Parameter token: The custom token.
    /// - Throws: ``AuthErrorCode`` (`invalidCustomToken`, `customTokenMismatch`, `userDisabled`, …).
    public func signIn(withCustomToken token: String) async throws -> AuthDataResult {
        let backend = try context.backend()
        let tenant = context.tenantID
        let response = try await AuthErrorMapping.perform {
            try await backend.accounts.signInWithCustomToken(
                SignInWithCustomTokenRequest(token: token, returnSecureToken: true, tenantId: tenant))
        }
        guard let idToken = response.idToken, let refreshToken = response.refreshToken else {
            throw AuthErrorCode(.internalError, message: "The custom-token sign-in response has no tokens.")
        }
        let user = try await completeSignIn(
            idToken: idToken, refreshToken: refreshToken, expiresIn: response.expiresIn, tenantID: tenant)
        return AuthDataResult(
            user: user,
            additionalUserInfo: AdditionalUserInfo(
                providerID: ProviderID.custom.rawValue, isNewUser: response.isNewUser ?? false))
    }

    /// Applies an out-of-band code, such as an email verification code.
    /// (Reload the user afterwards to see the change.)
    public func applyActionCode(_ code: String) async throws {
        let backend = try context.backend()
        _ = try await AuthErrorMapping.perform {
            try await backend.accounts.update(SetAccountInfoRequest(oobCode: code))
        }
    }

    /// Signs the current user out (locally; the server keeps its tokens valid).
    ///
    /// The saved session is removed from the session store in the
    /// background, ordered before any later save (a sign-in right after a
    /// sign-out keeps its session). A store that fails to remove it is
    /// reported by the next call that saves or loads a session, or by
    /// ``flushSessionStore()``.
    public func signOut() throws {
        let key = context.sessionKey
        setCurrentUser(nil)
        context.storeQueue.enqueue { try await $0.remove(key: key) }
    }

    /// Waits until every pending save or removal of this instance's session
    /// has reached the store; throws the first failure among them.
    public func flushSessionStore() async throws {
        try await context.storeQueue.flush()
    }

    /// The current user's state, to keep it across requests; nil when signed out.
    public func currentSession() -> AuthSession? {
        currentUser?.state.current
    }

    /// Makes `session` the current user (from ``currentSession()`` or a store).
    @discardableResult
    public func restore(_ session: AuthSession) -> User {
        let restored = User(session: session, context: context)
        setCurrentUser(restored)
        return restored
    }

    /// Restores the session saved in this instance's store, if there is one.
    public func restoreFromStore() async throws -> User? {
        try await context.storeQueue.flush()
        guard let session = try await context.sessionStore.load(key: context.sessionKey) else { return nil }
        return restore(session)
    }

    /// Tokens → a user with its profile and factors, made current.
    func completeSignIn(idToken: String, refreshToken: String, expiresIn: Int64?, tenantID: String?) async throws
        -> User
    {
        let backend = try context.backend()
        let response = try await AuthErrorMapping.perform {
            try await backend.accounts.lookup(GetAccountInfoRequest(idToken: idToken, tenantId: tenantID))
        }
        guard let account = response.users?.first else { throw AuthErrorCode(.userNotFound) }
        let factors = try MultiFactorInfo.factors(from: account.mfaInfo ?? [])
        let session = AuthSession(
            uid: account.localId, email: account.email, displayName: account.displayName,
            isEmailVerified: account.emailVerified ?? false,
            isAnonymous: account.email == nil && (account.providerUserInfo ?? []).isEmpty,
            tenantID: account.tenantId ?? tenantID,
            idToken: idToken, refreshToken: refreshToken,
            idTokenExpiration: IDToken.expiration(of: idToken)
                ?? context.now().addingTimeInterval(TimeInterval(expiresIn ?? 3600)),
            factors: factors.map(\.stored))
        let signedIn = restore(session)
        try await signedIn.save()
        return signedIn
    }
}
