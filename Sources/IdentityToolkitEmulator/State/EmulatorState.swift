#if Emulator
import Foundation
import IdentityToolkit

/// Everything the emulator knows, as one plain value: projects with their
/// configuration, tenants and accounts; sessions; codes it "sent". The rule
/// types (`AccountRules`, `MultiFactorRules`, …) read and change it; a
/// storage seam (``EmulatorStateStore``) holds it.
struct EmulatorState: Codable, Sendable {
    /// Projects by id, each with its tenants and accounts.
    var projects: [String: ProjectState] = [:]
    /// Refresh tokens, enrollment sessions and pending sign-ins.
    var sessions = SessionState()
    /// Email action codes and SMS codes, oldest first.
    var outOfBand = OutOfBandState()
    /// When expired state was last removed.
    var lastSweep = Date.distantPast
}

/// A set of users: a project itself, or one of its tenants.
struct Realm: Hashable, Sendable, Codable {
    var project: String
    var tenant: String?
}

/// A user's identity across realms.
struct UserKey: Hashable, Sendable, Codable {
    var realm: Realm
    var uid: String
}

/// A project's configuration, tenants and own accounts.
struct ProjectState: Codable, Sendable {
    /// The multi-factor settings of `GET/PATCH …/config` (`mfa`).
    var mfa: MultiFactorAuthConfig?
    /// Whether several accounts may share an address (Google's emulator's
    /// `signIn.allowDuplicateEmails`).
    var allowDuplicateEmails = false
    /// `emailPrivacyConfig.enableImprovedEmailPrivacy`; nil: the
    /// emulator's default (``EmulatorConfiguration/improvedEmailPrivacy``).
    var improvedEmailPrivacy: Bool?
    /// The blocking functions configured, which sign-ins call (`BlockingFunctionCalls`).
    var blockingFunctions = BlockingFunctionsConfig()
    /// Tenants by id, and their creation order (the order lists follow).
    var tenants: [String: TenantState] = [:]
    var tenantOrder: [String] = []
    /// The project's own accounts (not any tenant's).
    var accounts = AccountTable()
}

/// A tenant: its configuration (the admin API's `Tenant`) and its accounts.
struct TenantState: Codable, Sendable {
    var config: Tenant
    var accounts = AccountTable()
}

/// The accounts of one realm, by uid, with the index of their addresses.
struct AccountTable: Codable, Sendable {
    private(set) var byID: [String: EmulatedUser] = [:]
    /// Case-folded address (`InputRules.emailKey`) → uids, oldest first
    /// (several only when the project allows duplicate addresses).
    private(set) var byEmail: [String: [String]] = [:]
    /// Passkey credential id → uid: a credential belongs to one account.
    private(set) var byPasskey: [String: String] = [:]

    /// The account `uid`.
    subscript(uid: String) -> EmulatedUser? { byID[uid] }

    /// The (oldest) account whose address is `email`.
    func user(email: String) -> EmulatedUser? { byEmail[InputRules.emailKey(email)]?.first.flatMap { byID[$0] } }

    /// Every account whose address is `email`.
    func users(email: String) -> [EmulatedUser] {
        (byEmail[InputRules.emailKey(email)] ?? []).compactMap { byID[$0] }
    }

    /// The account (of the lowest uid) that a linked provider's address
    /// `email` belongs to. Not indexed: only `createAuthUri` asks, after
    /// the address index found nothing.
    func user(providerEmail email: String) -> EmulatedUser? {
        let key = InputRules.emailKey(email)
        return byID.values.filter { user in
            user.linkedProviders.contains { $0.email.map(InputRules.emailKey) == key }
        }
        .min { $0.localId < $1.localId }
    }

    /// The account holding the passkey `credentialID`.
    func user(passkeyCredentialID credentialID: String) -> EmulatedUser? {
        byPasskey[credentialID].flatMap { byID[$0] }
    }

    /// Every account, in uid order.
    var sortedByID: [EmulatedUser] { byID.values.sorted { $0.localId < $1.localId } }

    var count: Int { byID.count }

    /// Stores `user`, keeping the address index in step with a changed address.
    mutating func store(_ user: EmulatedUser) {
        if let old = byID[user.localId]?.email, old != user.email { unindex(old, user.localId) }
        for passkey in byID[user.localId]?.passkeys ?? [] { byPasskey[passkey.credentialId] = nil }
        for passkey in user.passkeys { byPasskey[passkey.credentialId] = user.localId }
        byID[user.localId] = user
        if let email = user.email {
            let key = InputRules.emailKey(email)
            if byEmail[key]?.contains(user.localId) != true { byEmail[key, default: []].append(user.localId) }
        }
    }

    /// Removes `uid`'s account and its address; returns it.
    @discardableResult
    mutating func remove(_ uid: String) -> EmulatedUser? {
        guard let user = byID.removeValue(forKey: uid) else { return nil }
        if let email = user.email { unindex(email, uid) }
        for passkey in user.passkeys { byPasskey[passkey.credentialId] = nil }
        return user
    }

    private mutating func unindex(_ email: String, _ uid: String) {
        let key = InputRules.emailKey(email)
        byEmail[key]?.removeAll { $0 == uid }
        if byEmail[key]?.isEmpty == true { byEmail[key] = nil }
    }
}

/// A user as the emulator stores it.
struct EmulatedUser: Codable, Sendable {
    var localId: String
    var realm: Realm
    var email: String?
    /// The password, in Google's emulator's form or as an imported hash.
    var password: StoredPassword?
    var emailVerified = false
    var displayName: String?
    var photoUrl: String?
    /// The user's handle at the provider it signed up with (`screen_name`).
    var screenName: String?
    /// The phone number of phone sign-in (E.164), not a second factor's.
    var phoneNumber: String?
    var createdAt: Date
    var lastLoginAt: Date?
    var lastRefreshAt: Date?
    var passwordUpdatedAt: Date?
    var disabled = false
    var isAnonymous: Bool
    /// The address the account had first, which `RECOVER_EMAIL` restores.
    var initialEmail: String?
    /// Whether the user signed in with an email link.
    var emailLinkSignin = false
    /// Identity providers other than password and phone (imported).
    var linkedProviders: [LinkedProvider] = []
    var enrollments: [SecondFactor] = []
    /// Google-compatible mode: every factor was withdrawn, so lookups list
    /// `mfaInfo: []` as Google's emulator keeps it (production and the
    /// default mode omit an empty list).
    var listsWithdrawnFactors = false
    /// Enrolled passkeys, oldest first (``PasskeyRules``).
    var passkeys: [EnrolledPasskey] = []
    /// Bumped when earlier sessions are revoked; refresh tokens of an
    /// earlier generation stop working.
    var tokenGeneration = 0
    /// Tokens of sign-ins before this time fail `checkRevoked`.
    var validSince: Date
    /// The custom claims an admin set, a JSON object as text (nil: none).
    var customAttributes: String?

    var key: UserKey { UserKey(realm: realm, uid: localId) }
}

/// A federated identity linked to an account (`providerUserInfo`).
struct LinkedProvider: Codable, Sendable, Equatable {
    var providerId: String
    var rawId: String
    var federatedId: String? = nil
    var email: String?
    var displayName: String?
    var photoUrl: String?
    var screenName: String? = nil
}

/// A passkey as the emulator keeps it: its credential id and name. As in
/// Google's emulator, no public key is kept and no signature checked; the
/// credential id stands for the authenticator (``PasskeyRules``).
struct EnrolledPasskey: Codable, Sendable, Equatable {
    var credentialId: String
    var name: String
}

/// An enrolled second factor.
struct SecondFactor: Codable, Sendable {
    enum Kind: Codable, Sendable {
        /// `lastAcceptedStep`: the last time step whose code was accepted
        /// (RFC 6238 §5.2: a code is never accepted twice).
        case totp(secret: [UInt8], lastAcceptedStep: UInt64?)
        case phone(number: String)
    }

    var id: String
    var displayName: String?
    var enrolledAt: Date
    var kind: Kind

    var isTOTP: Bool {
        if case .totp = kind { return true }
        return false
    }

    var phoneNumber: String? {
        if case .phone(let number) = kind { return number }
        return nil
    }
}

/// The facts an ID token states about a session.
struct SessionFacts: Codable, Sendable {
    /// The first factor (`firebase.sign_in_provider`).
    var provider: ProviderID
    var secondFactor: SecondFactorID?
    var secondFactorID: String?
    var authTime: Date
    /// A custom token's developer claims (a JSON object as text), which the
    /// session's ID tokens carry, refreshed ones included.
    var developerClaims: String? = nil
    /// A SAML sign-in's attribute statements (a JSON object as text): the
    /// session's ID tokens carry them as `firebase.sign_in_attributes`.
    var signInAttributes: String? = nil
}

/// What a successful sign-in step yields; the routes sign the ID token.
struct SessionGrant: Sendable {
    var uid: String
    var realm: Realm
    var email: String?
    var emailVerified: Bool
    var displayName: String?
    var facts: SessionFacts
    var refreshToken: String
    /// The user's custom claims, a JSON object as text, copied into ID tokens.
    var customAttributes: String?
    /// The user's phone number and linked providers, for `firebase.identities`.
    var phoneNumber: String? = nil
    var linkedProviders: [LinkedProvider] = []
    /// The user's photo URL (the ID token's `picture`).
    var photoUrl: String? = nil
    /// A blocking function's `sessionClaims`: into this sign-in's ID token alone.
    var sessionClaims: [String: JSONValue]? = nil
}
#endif
