public import Foundation
import IdentityToolkit

/// An ID token with its claims read out, as Firebase's `AuthTokenResult`:
/// the usual way an app checks `signInSecondFactor == "totp"`. The claims are
/// read, not verified: a server verifies the token (IdentityAdmin's
/// `verifyIDToken`) before trusting it.
public final class AuthTokenResult: @unchecked Sendable, CustomStringConvertible {
    /// The ID token.
    public let token: String
    /// When the token expires (`exp`).
    public let expirationDate: Date
    /// When the user signed in (`auth_time`); refreshed tokens keep it.
    public let authDate: Date
    /// When the token was issued (`iat`).
    public let issuedAtDate: Date
    /// The first factor of the sign-in (`firebase.sign_in_provider`): `password`, `custom`, …
    public let signInProvider: String
    /// The second factor of the sign-in (`firebase.sign_in_second_factor`):
    /// `"totp"` or `"phone"`; nil when the sign-in used none.
    public let signInSecondFactor: String?
    /// Every claim of the token, custom claims included (immutable JSON values).
    public let claims: [String: Any]

    init?(token: String) {
        guard let jwt = JWTCompactForm(token),
            let typed = try? JSONDecoder().decode(IDTokenClaims.self, from: jwt.payload),
            let claims = try? JSONSerialization.jsonObject(with: jwt.payload) as? [String: Any]
        else { return nil }
        self.token = token
        expirationDate = Date(timeIntervalSince1970: TimeInterval(typed.exp))
        authDate = Date(timeIntervalSince1970: TimeInterval(typed.authTime))
        issuedAtDate = Date(timeIntervalSince1970: TimeInterval(typed.iat))
        signInProvider = typed.firebase.signInProvider
        signInSecondFactor = typed.firebase.signInSecondFactor
        self.claims = claims
    }

    /// The dates and factors; never the token.
    public var description: String {
        "AuthTokenResult(signInProvider: \(signInProvider), signInSecondFactor: \(signInSecondFactor ?? "nil"), expirationDate: \(expirationDate))"
    }
}

extension User {
    /// The current ID token with its claims read out (a cached one while more
    /// than five minutes remain, as ``getIDToken()``).
    public func getIDTokenResult() async throws -> AuthTokenResult {
        try await getIDTokenResult(forcingRefresh: false)
    }

    /// The ID token with its claims read out; with `forcingRefresh`, a new one.
    public func getIDTokenResult(forcingRefresh: Bool) async throws -> AuthTokenResult {
        let token = try await getIDToken(forcingRefresh: forcingRefresh)
        guard let result = AuthTokenResult(token: token) else {
            throw AuthErrorCode(.internalError, message: "The ID token's claims could not be read.")
        }
        return result
    }
}
