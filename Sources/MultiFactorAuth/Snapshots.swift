public import Foundation
import IdentityOTPFormats
import IdentityToolkit

// In-flight state that serializes: a server that runs several instances
// finishes a sign-in or an enrollment on whichever instance the next
// request reaches, and a deploy in the middle of one loses nothing. The
// snapshots are plain Codable values; where they may be kept is said on
// each. Every rendering (`description`, `dump`, a debugger) redacts what
// they hold that is secret.

extension MultiFactorResolver {
    /// A sign-in waiting for its second factor, written down so that another
    /// process can finish it: ``MultiFactorResolver/snapshot`` takes it,
    /// ``MultiFactorResolver/init(restoring:auth:)`` rebuilds a working
    /// resolver from it.
    ///
    /// It holds the pending credential, which together with a code from the
    /// user's authenticator completes the sign-in: keep it where only the
    /// server reads it — sealed in an HttpOnly cookie (`IdentityServerState`'s
    /// `SealedStateCodec`) or in a server-side store (the PostgreSQL one of
    /// `IdentityStoresPostgres`) — and drop it once the sign-in ends.
    /// Identity Platform refuses the credential after a while in any case
    /// (`sessionExpired`).
    public struct Snapshot: Codable, Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
        CustomReflectable
    {
        /// The name of the app whose `Auth` started the sign-in.
        public let appName: String
        /// The tenant the sign-in belongs to; nil for the project itself.
        public let tenantID: String?
        /// The factors the user can complete the sign-in with.
        public let hints: [AuthSession.Factor]
        /// The pending credential of the first factor (a secret).
        let pendingCredential: String

        init(appName: String, tenantID: String?, hints: [AuthSession.Factor], pendingCredential: String) {
            self.appName = appName
            self.tenantID = tenantID
            self.hints = hints
            self.pendingCredential = pendingCredential
        }

        /// The app, the tenant and the hints; never the credential.
        public var description: String {
            "MultiFactorResolver.Snapshot(appName: \(appName), tenantID: \(tenantID ?? "nil"), hints: \(hints.count), pendingCredential: <redacted>)"
        }

        /// The same as ``description``.
        public var debugDescription: String { description }

        /// What `dump` and debuggers show: the credential redacted.
        public var customMirror: Mirror {
            Mirror(
                self,
                children: [
                    "appName": appName, "tenantID": tenantID as Any, "hints": hints,
                    "pendingCredential": RedactedValue(pendingCredential),
                ], displayStyle: .struct)
        }
    }

    /// This sign-in written down, for another process (or this one, after a
    /// restart) to finish with ``init(restoring:auth:)``.
    public var snapshot: Snapshot {
        guard case .signIn(let pendingCredential) = session.kind else {
            // A resolver is only ever made for a sign-in.
            preconditionFailure("a MultiFactorResolver holds a sign-in session")
        }
        return Snapshot(
            appName: auth.app?.name ?? "", tenantID: session.tenantID, hints: hints.map(\.stored),
            pendingCredential: pendingCredential)
    }

    /// A resolver that finishes the sign-in written down in `snapshot`,
    /// through `auth`: on success `auth`'s current user is the signed-in user.
    /// - Parameters:
    ///   - snapshot: From ``snapshot`` (in this process or another).
    ///   - auth: An `Auth` of the app named in the snapshot.
    /// - Throws: ``AuthErrorCode`` `invalidMultiFactorSession` when `auth`
    ///   belongs to another app, or the snapshot has no credential.
    public convenience init(restoring snapshot: Snapshot, auth: Auth) throws {
        let appName = auth.app?.name ?? ""
        guard appName == snapshot.appName else {
            throw AuthErrorCode(
                .invalidMultiFactorSession,
                message:
                    "This sign-in was started by the app named '\(snapshot.appName)'; restore it with an Auth of that app, not of '\(appName)'."
            )
        }
        guard !snapshot.pendingCredential.isEmpty else {
            throw AuthErrorCode(.invalidMultiFactorSession, message: "The snapshot holds no pending credential.")
        }
        self.init(
            hints: snapshot.hints.map(MultiFactorInfo.make),
            session: MultiFactorSession(
                kind: .signIn(pendingCredential: snapshot.pendingCredential),
                tenantID: snapshot.tenantID, context: auth.context),
            auth: auth)
    }
}

extension TOTPSecret {
    /// A TOTP enrollment waiting for its first code (the QR code is shown,
    /// the user has not typed a code yet), written down so that another
    /// process can finish it: ``TOTPSecret/snapshot`` takes it,
    /// ``TOTPSecret/init(restoring:)`` rebuilds the secret. The enrollment
    /// itself completes with the signed-in user (an ``AuthSession`` restored
    /// on that process) and the rebuilt secret.
    ///
    /// It holds the user's TOTP key: keep it where only the server reads it
    /// (sealed, or in a server-side store), and drop it once the enrollment
    /// ends or ``enrollmentCompletionDeadline`` passes.
    public struct Snapshot: Codable, Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
        CustomReflectable
    {
        /// The HMAC hash, such as `SHA1`.
        public let hashingAlgorithm: String
        /// Digits per code.
        public let codeLength: Int
        /// The time step in seconds.
        public let codeIntervalSeconds: Int
        /// When the enrollment must be finalized by.
        public let enrollmentCompletionDeadline: Date
        /// The key, in base32 (a secret).
        let sharedSecretKey: String
        /// The server's enrollment session (a secret).
        let sessionInfo: String

        init(secret: TOTPSecret) {
            hashingAlgorithm = secret.hashingAlgorithm
            codeLength = secret.codeLength
            codeIntervalSeconds = secret.codeIntervalSeconds
            enrollmentCompletionDeadline = secret.enrollmentCompletionDeadline
            sharedSecretKey = Base32.encode(secret.secret)
            sessionInfo = secret.sessionInfo
        }

        /// The parameters; never the key or the session.
        public var description: String {
            "TOTPSecret.Snapshot(\(hashingAlgorithm), \(codeLength) digits, \(codeIntervalSeconds) s, key: <redacted>, sessionInfo: <redacted>)"
        }

        /// The same as ``description``.
        public var debugDescription: String { description }

        /// What `dump` and debuggers show: the key and the session redacted.
        public var customMirror: Mirror {
            Mirror(
                self,
                children: [
                    "hashingAlgorithm": hashingAlgorithm, "codeLength": codeLength,
                    "codeIntervalSeconds": codeIntervalSeconds,
                    "enrollmentCompletionDeadline": enrollmentCompletionDeadline,
                    "sharedSecretKey": RedactedValue(sharedSecretKey),
                    "sessionInfo": RedactedValue(sessionInfo),
                ], displayStyle: .struct)
        }
    }

    /// This pending enrollment written down, for ``init(restoring:)``.
    public var snapshot: Snapshot { Snapshot(secret: self) }

    /// The secret written down in `snapshot`, checked as a server's answer
    /// is (a snapshot is outside input once it has left the process).
    /// - Throws: ``AuthErrorCode`` `invalidMultiFactorSession` for a key
    ///   that is not base32, an empty session or parameters no
    ///   authenticator supports.
    public convenience init(restoring snapshot: Snapshot) throws {
        guard let secret = try? Base32.decode(snapshot.sharedSecretKey, mode: .lenient), !secret.isEmpty,
            !snapshot.sessionInfo.isEmpty
        else {
            throw AuthErrorCode(
                .invalidMultiFactorSession, message: "The snapshot holds no usable TOTP key or enrollment session.")
        }
        guard
            let unsupported = Self.unsupportedParameters(
                algorithm: snapshot.hashingAlgorithm, codeLength: snapshot.codeLength,
                period: snapshot.codeIntervalSeconds)
        else {
            self.init(
                secret: secret, sessionInfo: snapshot.sessionInfo, hashingAlgorithm: snapshot.hashingAlgorithm,
                codeLength: snapshot.codeLength, codeIntervalSeconds: snapshot.codeIntervalSeconds,
                enrollmentCompletionDeadline: snapshot.enrollmentCompletionDeadline)
            return
        }
        throw AuthErrorCode(
            .invalidMultiFactorSession, message: "The snapshot has unsupported TOTP parameters (\(unsupported)).")
    }

    /// A sentence naming the parameters when an authenticator would not
    /// support them; nil when they are fine. One check for the server's
    /// answer and for snapshots.
    static func unsupportedParameters(algorithm: String, codeLength: Int, period: Int) -> String? {
        guard
            HashAlgorithm(name: algorithm) == nil || !supportedCodeLengths.contains(codeLength)
                || !supportedPeriods.contains(period)
        else {
            return nil
        }
        return "algorithm \(algorithm.prefix(16)), \(codeLength) digits, \(period) s period"
    }
}

/// An ``AuthSessionStore`` seen through a prefix: every key of `base` is
/// `scope` + `/` + the key an `Auth` uses. An `Auth` saves its session
/// under one key per app and tenant, so a server that keeps one `Auth`
/// per browser or per user in a shared store (a database) gives each a
/// scope of its own: `Auth(app: app, sessionStore: store.scoped(to: browserID))`.
public struct ScopedAuthSessionStore: AuthSessionStore {
    /// The store that holds the sessions.
    public let base: any AuthSessionStore
    /// The prefix of this view's keys.
    public let scope: String

    /// A view of `base` whose keys start with `scope`.
    public init(base: any AuthSessionStore, scope: String) {
        self.base = base
        self.scope = scope
    }

    /// Saves `session` in `base` under the scoped key.
    public func save(_ session: AuthSession, key: String) async throws {
        try await base.save(session, key: scopedKey(key))
    }
    /// The session saved in `base` under the scoped key, or nil.
    public func load(key: String) async throws -> AuthSession? { try await base.load(key: scopedKey(key)) }
    /// Forgets the session saved in `base` under the scoped key.
    public func remove(key: String) async throws { try await base.remove(key: scopedKey(key)) }

    private func scopedKey(_ key: String) -> String { scope + "/" + key }
}

extension AuthSessionStore {
    /// This store seen through the prefix `scope` (see ``ScopedAuthSessionStore``).
    public func scoped(to scope: String) -> ScopedAuthSessionStore {
        ScopedAuthSessionStore(base: self, scope: scope)
    }
}
