import Crypto
import Foundation
import IdentityOTP
import IdentitySupport
import IdentityToolkit

/// What ``IDTokenVerifier`` and ``BaseAuth`` remember of earlier checks, so
/// that a server does not pay a signature check and an account lookup on
/// every request of the same session.
///
/// ```swift
/// let admin = IdentityAdmin(projectID: "my-project", credential: credential,
///                           configuration: ClientConfiguration(), tokenCache: .default)
/// ```
public struct TokenCacheOptions: Sendable, Hashable {
    /// Verified tokens kept, each about 1.5 KB (the claims, and the token's
    /// decoded parts, which share one buffer);
    /// past it the oldest go first. 0 turns the cache off. Default 10,000.
    public var verifiedTokenCapacity: Int
    /// The longest a verified token is recognised without its signature
    /// being checked again. It is never recognised past its own `exp`, nor
    /// after a key rotation drops or replaces its key. Default 10 minutes.
    public var verifiedTokenMaximumAge: Duration
    /// How long the account state that a `checkRevoked` check looked up
    /// (disabled, deleted, `validSince`) answers later checks of the same
    /// account in this process. `.zero` looks the account up on every
    /// check. Default 10 seconds.
    ///
    /// Why that is safe: a revocation through this process
    /// (``BaseAuth/revokeRefreshTokens(uid:now:)``, ``BaseAuth/updateUser(_:_:)``,
    /// ``BaseAuth/deleteUser(uid:)``) forgets the account's state at once,
    /// so only a revocation made elsewhere (another instance, the console)
    /// can go unseen, for at most this long — while an ID token checked
    /// without `checkRevoked` stays valid for up to an hour after any revocation.
    public var revocationMaximumAge: Duration

    /// - Parameters:
    ///   - verifiedTokenCapacity: Verified tokens kept; 0 turns the cache off.
    ///   - verifiedTokenMaximumAge: The longest a verified token is recognised without a new signature check.
    ///   - revocationMaximumAge: How long a looked-up account state answers later `checkRevoked` checks.
    public init(
        verifiedTokenCapacity: Int = 10_000, verifiedTokenMaximumAge: Duration = .seconds(600),
        revocationMaximumAge: Duration = .seconds(10)
    ) {
        self.verifiedTokenCapacity = verifiedTokenCapacity
        self.verifiedTokenMaximumAge = verifiedTokenMaximumAge
        self.revocationMaximumAge = revocationMaximumAge
    }

    /// 10,000 verified tokens for up to 10 minutes each; account states for 10 seconds.
    public static let `default` = TokenCacheOptions()
    /// Every check verifies the signature and every `checkRevoked` looks the account up.
    public static let disabled = TokenCacheOptions(
        verifiedTokenCapacity: 0, verifiedTokenMaximumAge: .zero, revocationMaximumAge: .zero)
}

/// Tokens that passed every check, recognised again by the SHA-256 of
/// their exact bytes: a token that differs in any byte (another encoding of
/// the same signature, a changed claim) is a different entry and gets the
/// full checks. A hit costs the digest and a dictionary lookup, about a
/// microsecond for a 1 KB token, where a verification costs an RSA check.
final class VerifiedTokenCache: Sendable {
    /// A SHA-256, as four words; the first alone is already uniform, so it is all that is hashed.
    struct Digest: Hashable, Sendable {
        let words: (UInt64, UInt64, UInt64, UInt64)

        init(_ token: String) {
            var token = token
            var hash = SHA256()
            token.withUTF8 { hash.update(bufferPointer: UnsafeRawBufferPointer($0)) }
            let digest = hash.finalize()
            words = digest.withUnsafeBytes { raw in
                (
                    raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
                    raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                    raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self),
                    raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
                )
            }
        }

        static func == (lhs: Digest, rhs: Digest) -> Bool { lhs.words == rhs.words }
        func hash(into hasher: inout Hasher) { hasher.combine(words.0) }
    }

    private struct Entry: Sendable {
        var token: DecodedIDToken
        /// The key cache's generation when the token's key was looked up.
        var keyGeneration: UInt64
    }

    private struct State: Sendable {
        var entries: ExpiringEntries<Digest, Entry>
        var hits = 0
        var misses = 0
    }

    private let state: Locked<State>
    private let maximumAge: TimeInterval

    /// A cache for `options`, or nil when they turn it off.
    init?(_ options: TokenCacheOptions) {
        guard options.verifiedTokenCapacity > 0, options.verifiedTokenMaximumAge > .zero else { return nil }
        state = Locked(State(entries: ExpiringEntries(capacity: options.verifiedTokenCapacity)))
        maximumAge = options.verifiedTokenMaximumAge.timeInterval
    }

    /// The token verified under `digest`, if it is still within its `exp`,
    /// the cache's bound, and the key generation it was verified under.
    func token(for digest: Digest, at now: Date, keyGeneration: UInt64) -> DecodedIDToken? {
        state.withLock { state in
            guard let entry = state.entries.value(for: digest, at: now), entry.keyGeneration == keyGeneration else {
                state.misses += 1
                return nil
            }
            state.hits += 1
            return entry.token
        }
    }

    /// Remembers a token that passed every check at `now`, with its key looked up at `keyGeneration`.
    func insert(_ token: DecodedIDToken, for digest: Digest, keyGeneration: UInt64, at now: Date) {
        let until = min(token.expiresAt, now.addingTimeInterval(maximumAge))
        _ = state.withLock {
            $0.entries.set(Entry(token: token, keyGeneration: keyGeneration), for: digest, expiresAt: until, now: now)
        }
    }

    /// Tokens held now (tests hold it to the capacity).
    var count: Int { state.withLock { $0.entries.count } }

    /// Forgets every verified token of `uid` in `tenant` (nil: the
    /// project's users): its sessions were revoked. A walk of the cache,
    /// paid only when a revocation is heard.
    @discardableResult
    func forget(uid: String, tenant: String?) -> Int {
        state.withLock { $0.entries.removeAll { $0.token.uid == uid && $0.token.tenant == tenant } }
    }

    /// Lookups that found a live entry, and those that did not.
    var statistics: (hits: Int, misses: Int) { state.withLock { ($0.hits, $0.misses) } }
}

/// Account states looked up by `checkRevoked` checks, by tenant and uid,
/// for ``TokenCacheOptions/revocationMaximumAge``; shared by an admin and
/// its tenants' instances, and forgotten when this process changes the account.
final class AccountStateCache: Sendable {
    struct Key: Hashable, Sendable {
        var tenant: String?
        var uid: String
    }

    /// What the revocation check needs of an account; nil `validSince` when it has none.
    struct AccountState: Sendable {
        var exists: Bool
        var disabled: Bool
        var validSince: Date?
        /// How many second factors the account has enrolled (``FirebaseSignInPolicy``).
        var secondFactorCount = 0
        /// When the account was created (``FirebaseSignInPolicy/SecondFactor/required(enrollBy:snooze:)``).
        var createdAt: Date?
    }

    private struct States {
        var entries: ExpiringEntries<Key, AccountState>
        /// Bumped by every forget: a lookup that began before one does not
        /// store what it read (it may predate the change that was heard).
        var epoch: UInt64 = 0
    }

    private let states: Locked<States>
    private let maximumAge: TimeInterval
    /// The time the states age by (tests move it).
    private let now: @Sendable () -> Date

    /// A cache for `options`, or nil when they turn it off.
    init?(_ options: TokenCacheOptions, now: @escaping @Sendable () -> Date = Date.init) {
        guard options.revocationMaximumAge > .zero else { return nil }
        states = Locked(States(entries: ExpiringEntries(capacity: 10_000)))
        maximumAge = options.revocationMaximumAge.timeInterval
        self.now = now
    }

    /// `key`'s state, if one was looked up within the maximum age.
    func state(for key: Key) -> AccountState? {
        let time = now()
        return states.withLock { $0.entries.value(for: key, at: time) }
    }

    /// The forget count a lookup starts from (``insert(_:for:ifUnchangedSince:)``).
    var epoch: UInt64 { states.withLock { $0.epoch } }

    /// Remembers `key`'s state as just looked up, unless a forget came
    /// since `epoch` (the lookup may have read the account before it changed).
    func insert(_ state: AccountState, for key: Key, ifUnchangedSince epoch: UInt64) {
        let time = now()
        states.withLock { states in
            guard states.epoch == epoch else { return }
            states.entries.set(state, for: key, expiresAt: time.addingTimeInterval(maximumAge), now: time)
        }
    }

    /// Forgets `key`'s state: the account changed, here or on an instance that said so.
    func forget(_ key: Key) {
        states.withLock { states in
            states.entries.remove(key)
            states.epoch &+= 1
        }
    }

    /// Forgets every state: changes may have gone unheard (the notification
    /// channel was down).
    func forgetAll() {
        states.withLock { states in
            states.entries.removeAll()
            states.epoch &+= 1
        }
    }
}
