public import Foundation
import IdentitySupport
public import IdentityToolkit
import IdentityToolkitJWT

/// Makes the custom tokens of ``BaseAuth/createCustomToken(uid:developerClaims:now:)``.
enum CustomTokenMinter: Sendable {
    /// The emulator's: unsigned (`alg: none`), as firebase-admin makes in emulator mode.
    case unsigned
    /// Signed with a service account's key (RS256), as production requires.
    case serviceAccount(email: String, signer: RS256Signer)
    /// The service account of the application default credential, read
    /// when the first token is minted.
    case applicationDefault(ApplicationDefaultCredential)
    /// A credential without a key (a static token, the metadata server).
    case none

    /// The names firebase-admin refuses as developer claims.
    static let reservedClaims: Set<String> = [
        "acr", "amr", "at_hash", "aud", "auth_time", "azp", "cnf", "c_hash", "exp", "iat",
        "iss", "jti", "nbf", "nonce", "sub", "firebase",
    ]

    func mint(uid: String, tenantID: String?, developerClaims: [String: JSONValue]?, now: Date) throws -> String {
        guard (1...128).contains(uid.count) else {
            throw AdminValidationError(field: "uid", message: "must have 1 to 128 characters, not \(uid.count)")
        }
        if let reserved = developerClaims?.keys.sorted().first(where: Self.reservedClaims.contains) {
            throw AdminValidationError(field: "developerClaims.\(reserved)", message: "is a reserved claim")
        }
        let issuedAt = Int64(now.timeIntervalSince1970.rounded(.down))
        var claims = CustomTokenClaims(aud: CustomTokenAudience.identityToolkit.rawValue, uid: uid)
        claims.iat = issuedAt
        claims.exp = issuedAt + 3600
        claims.tenantID = tenantID
        claims.claims = developerClaims
        switch self {
        case .unsigned:
            claims.iss = "firebase-auth-emulator@example.com"
            claims.sub = claims.iss
            do {
                let header = Data(#"{"alg":"none","typ":"JWT"}"#.utf8)
                let payload = try JSONEncoder().encode(claims)
                return header.base64URLEncoded + "." + payload.base64URLEncoded + "."
            } catch {
                throw AdminError(.signingFailed, detail: "the claims could not be encoded", underlying: error)
            }
        case .serviceAccount(let email, let signer):
            claims.iss = email
            claims.sub = email
            do { return try signer.sign(claims) } catch {
                throw AdminError(.signingFailed, detail: "RS256 signing failed", underlying: error)
            }
        case .applicationDefault(let credential):
            // An unset variable or a bad key file is an AdminValidationError that names it.
            let account = try credential.serviceAccount()
            return try CustomTokenMinter.serviceAccount(email: account.key.clientEmail, signer: account.signer)
                .mint(uid: uid, tenantID: tenantID, developerClaims: developerClaims, now: now)
        case .none:
            throw AdminValidationError(
                field: "credential",
                message: "has no private key to sign custom tokens: use a service account key (or the emulator)")
        }
    }
}

extension BaseAuth {
    /// A custom token for `uid`, for the client's `signIn(withCustomToken:)`
    /// (firebase-admin's `createCustomToken`): how a server hands a session
    /// to a user it proved another way. Valid for an hour; scoped to this
    /// instance's tenant. Signed with the service account's key, or
    /// unsigned for the emulator (which accepts that, as Google's does).
    /// - Parameters:
    ///   - uid: The user, 1 to 128 characters.
    ///   - developerClaims: Extra claims the ID token will carry (not the reserved JWT names).
    ///   - now: The issue time (for tests).
    /// - Throws: ``AdminValidationError`` naming the uid, a reserved claim
    ///   (`developerClaims.<name>`), or a credential that cannot sign (nothing
    ///   is made); ``AdminError`` with ``AdminError/Code/signingFailed``.
    public func createCustomToken(uid: String, developerClaims: [String: JSONValue]? = nil, now: Date = Date())
        throws -> String
    {
        try customTokens.mint(uid: uid, tenantID: tenantID, developerClaims: developerClaims, now: now)
    }
}
