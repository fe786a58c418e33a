#if Emulator
import Foundation
import IdentityToolkit
import IdentityToolkitJWT

/// The events the emulator sends blocking functions: production's claims
/// (firebase-functions' `DecodedPayload`), signed with the key of its ID
/// tokens, so that a handler verifying with the emulator's keys (as
/// IdentityAdmin's does in emulator mode) accepts them.
struct BlockingEventTokens: Sendable {
    let key: EmulatorSigningKey
    let project: String

    /// How long an event is valid: Identity Platform's 7-second wait, with
    /// room for clocks that differ.
    static let lifetimeSeconds: Int64 = 60

    /// What the attempt is, beside the user.
    struct Attempt: Sendable {
        var type: BlockingEventType
        var signInMethod: String?
        var secondFactor: String?
        var ipAddress: String?
        var userAgent: String?
        /// The IdP's profile of the user, for an IdP sign-in.
        var rawUserInfo: String? = nil
        /// The IdP's tokens the project forwards.
        var providerTokens = BlockingFunctionCalls.ProviderTokens()
    }

    /// The claims of an event about `user` for the function at `functionURL`.
    func claims(for user: EmulatedUser, attempt: Attempt, functionURL: String, eventID: String, at now: Date)
        -> BlockingEventClaims
    {
        let issuedAt = Int64(now.timeIntervalSince1970)
        let record = BlockingUserRecord(
            uid: user.localId, email: user.email, emailVerified: user.emailVerified, displayName: user.displayName,
            photoUrl: user.photoUrl,
            phoneNumber: user.phoneNumber, disabled: user.disabled,
            metadata: BlockingUserMetadata(
                creationTime: Int64(user.createdAt.timeIntervalSince1970 * 1000),
                lastSignInTime: user.lastLoginAt.map { Int64($0.timeIntervalSince1970 * 1000) }),
            // The providers a lookup lists (a password only when the account has one).
            providerData: (AccountViews.userInfo(user).providerUserInfo ?? []).compactMap {
                provider -> BlockingProviderInfo? in
                guard let uid = provider.rawId, let providerID = provider.providerId else { return nil }
                return BlockingProviderInfo(
                    uid: uid, providerID: providerID, displayName: provider.displayName, email: provider.email,
                    photoUrl: provider.photoUrl, phoneNumber: provider.phoneNumber)
            },
            multiFactor: user.enrollments.isEmpty
                ? nil
                : BlockingMultiFactor(
                    enrolledFactors: user.enrollments.map {
                        BlockingEnrolledFactor(
                            uid: $0.id, displayName: $0.displayName, phoneNumber: $0.phoneNumber,
                            enrollmentTime: $0.enrolledAt.formatted(.iso8601),
                            factorID: ($0.isTOTP ? SecondFactorID.totp : .phone).rawValue)
                    }),
            customClaims: SessionTokens.object(user.customAttributes),
            tokensValidAfterTime: Int64(user.validSince.timeIntervalSince1970), tenantID: user.realm.tenant)
        var claims = BlockingEventClaims(
            iss: TokenIssuerPrefix.idToken.rawValue + project, aud: functionURL, iat: issuedAt,
            exp: issuedAt + Self.lifetimeSeconds,
            sub: user.localId, eventID: eventID, eventType: attempt.type, ipAddress: attempt.ipAddress,
            userAgent: attempt.userAgent, locale: "en",
            signInMethod: attempt.signInMethod, signInSecondFactor: attempt.secondFactor,
            tenantID: user.realm.tenant, userRecord: record)
        claims.rawUserInfo = attempt.rawUserInfo
        claims.oauthIdToken = attempt.providerTokens.idToken
        claims.oauthAccessToken = attempt.providerTokens.accessToken
        claims.oauthRefreshToken = attempt.providerTokens.refreshToken
        return claims
    }

    /// The signed event.
    func sign(_ claims: BlockingEventClaims) throws -> String {
        try key.signer.sign(claims)
    }
}

extension EmulatorServices {
    /// The events' minter, with the key of the ID tokens.
    var blockingEvents: BlockingEventTokens { BlockingEventTokens(key: tokens.key, project: defaultProject) }
}

extension IdentityToolkitEmulator {
    /// The signed event the emulator sends the function at `functionURL`
    /// about the user `uid` of `tenant` (nil: the project's own users), as
    /// the user is now.
    /// - Throws: `USER_NOT_FOUND` when there is no such user.
    func blockingEvent(
        uid: String, tenant: String?, attempt: BlockingEventTokens.Attempt, functionURL: String,
        eventID: String = Data.randomToken(bytes: 16)
    ) async throws -> String {
        let services = self.services
        let events = services.blockingEvents
        let claims = try await services.run { state, context in
            guard let user = state.user(uid, in: Realm(project: services.defaultProject, tenant: tenant)) else {
                throw APIServerError.userNotFound
            }
            return events.claims(
                for: user, attempt: attempt, functionURL: functionURL, eventID: eventID, at: context.now)
        }
        return try events.sign(claims)
    }
}
#endif
