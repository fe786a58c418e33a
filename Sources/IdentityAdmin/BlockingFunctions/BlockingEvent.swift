public import Foundation
public import IdentityToolkit

/// What Identity Platform tells a blocking function: the user, the
/// attempt's request and, when the project forwards them, the identity
/// provider's credential. Made by ``BlockingFunctionHandler`` from an event
/// JWT whose every check passed.
public struct AuthBlockingEvent: Sendable, CustomStringConvertible {
    /// The event's id, unique per call.
    public let id: String
    /// `beforeCreate` or `beforeSignIn`.
    public let type: BlockingEventType
    /// The user, as the attempt would leave them (for `beforeCreate`: not
    /// yet created).
    public let user: BlockingUserRecord
    /// The user's tenant; nil for the project's own users.
    public let tenantID: String?
    /// How the user signs in (`password`, `emailLink`, `google.com`, …).
    public let signInMethod: String?
    /// The client's IP address, as Identity Platform saw it.
    public let ipAddress: String?
    /// The client's `User-Agent`.
    public let userAgent: String?
    /// The client's locale.
    public let locale: String?
    /// When Identity Platform issued the event.
    public let issuedAt: Date
    /// The identity provider's credential, when the project forwards it
    /// (`forwardInboundCredentials`); a secret.
    public let credential: BlockingCredential?
    /// Every claim as sent (the generated type redacts the secret ones in
    /// its description).
    public let claims: BlockingEventClaims

    init(claims: BlockingEventClaims, user: BlockingUserRecord) {
        id = claims.eventID
        type = claims.eventType
        self.user = user
        tenantID = claims.tenantID
        signInMethod = claims.signInMethod
        ipAddress = claims.ipAddress
        userAgent = claims.userAgent
        locale = claims.locale
        issuedAt = Date(timeIntervalSince1970: TimeInterval(claims.iat))
        credential = BlockingCredential(claims)
        self.claims = claims
    }

    /// The event's id, type, uid and tenant; never a credential.
    public var description: String {
        "AuthBlockingEvent(\(type.rawValue), id: \(id), uid: \(user.uid), tenant: \(tenantID ?? "none"), credential: \(credential == nil ? "none" : "<redacted>"))"
    }
}

/// A `beforeCreate` event: a user is about to be created (sign-up, a first
/// sign-in with an identity provider, an email link). Refusing it leaves no
/// account behind.
public struct BeforeCreateEvent: Sendable, CustomStringConvertible {
    /// The event.
    public let event: AuthBlockingEvent

    /// The event's description.
    public var description: String { event.description }
}

/// A `beforeSignIn` event: a user is about to get tokens (after the first
/// factor, and again when a second factor finishes the sign-in).
/// ``BlockingFunctionUpdate/sessionClaims`` go into this sign-in's ID token only.
public struct BeforeSignInEvent: Sendable, CustomStringConvertible {
    /// The event.
    public let event: AuthBlockingEvent

    /// The second factor this sign-in finishes with (`totp`, `phone`); nil
    /// for a first factor alone.
    public var secondFactor: String? { event.claims.signInSecondFactor }

    /// The event's description.
    public var description: String { event.description }
}

/// An identity provider's credential forwarded with an event: secrets,
/// never in ``description``.
public struct BlockingCredential: Sendable, CustomStringConvertible {
    /// The provider's ID token.
    public let idToken: String?
    /// The provider's access token.
    public let accessToken: String?
    /// The provider's refresh token.
    public let refreshToken: String?
    /// An OAuth 1 token secret.
    public let tokenSecret: String?
    /// When ``accessToken`` expires.
    public let expiresAt: Date?
    /// The sign-in method it comes from (`google.com`, …).
    public let providerID: String?

    init?(_ claims: BlockingEventClaims) {
        guard
            claims.oauthIdToken != nil || claims.oauthAccessToken != nil || claims.oauthRefreshToken != nil
                || claims.oauthTokenSecret != nil
        else { return nil }
        idToken = claims.oauthIdToken
        accessToken = claims.oauthAccessToken
        refreshToken = claims.oauthRefreshToken
        tokenSecret = claims.oauthTokenSecret
        expiresAt = claims.oauthExpiresIn.map { Date(timeIntervalSince1970: TimeInterval(claims.iat + $0)) }
        providerID = claims.signInMethod
    }

    /// Which parts are present; never their values.
    public var description: String {
        let parts = [
            ("idToken", idToken), ("accessToken", accessToken), ("refreshToken", refreshToken),
            ("tokenSecret", tokenSecret),
        ]
        .compactMap { $0.1 == nil ? nil : $0.0 }
        return "BlockingCredential(\(providerID ?? "unknown"): \(parts.joined(separator: ", ")) <redacted>)"
    }
}
