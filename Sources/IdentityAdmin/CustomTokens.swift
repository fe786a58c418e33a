public import Foundation
import IdentitySupport
public import IdentityToolkit
import IdentityToolkitJWT

/// Why a custom token could not be made. A struct over a private enum, so
/// a later release can add a case.
public struct CustomTokenError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of error.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        fileprivate let name: String
        /// The credential cannot sign (only a service account key can, or
        /// the emulator, which accepts unsigned tokens).
        public static let noSigningKey = Code(name: "noSigningKey")
        /// The uid is empty or longer than 128 characters.
        public static let invalidUID = Code(name: "invalidUID")
        /// A developer claim uses a name the token itself needs.
        public static let reservedClaim = Code(name: "reservedClaim")
        /// Signing failed.
        public static let signingFailed = Code(name: "signingFailed")
        /// The name, such as `noSigningKey`.
        public var description: String { name }
    }

    /// What went wrong.
    public let code: Code
    /// A sentence that names no secret (the uid's length, a claim's name).
    public let detail: String

    /// `custom token: <detail>`.
    public var description: String { "custom token: \(detail)" }
}

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

    func mint(uid: String, tenantID: String?, developerClaims: [String: JSONValue]?, now: Date) throws(CustomTokenError)
        -> String
    {
        guard (1...128).contains(uid.count) else {
            throw CustomTokenError(code: .invalidUID, detail: "the uid must have 1 to 128 characters, not \(uid.count)")
        }
        if let reserved = developerClaims?.keys.sorted().first(where: Self.reservedClaims.contains) {
            throw CustomTokenError(code: .reservedClaim, detail: "the developer claim '\(reserved)' is reserved")
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
                throw CustomTokenError(code: .signingFailed, detail: "the claims could not be encoded")
            }
        case .serviceAccount(let email, let signer):
            claims.iss = email
            claims.sub = email
            do { return try signer.sign(claims) } catch {
                throw CustomTokenError(code: .signingFailed, detail: "RS256 signing failed")
            }
        case .applicationDefault(let credential):
            let account: ServiceAccountCredential
            do { account = try credential.serviceAccount() } catch {
                throw CustomTokenError(code: .noSigningKey, detail: "\(error)")
            }
            return try CustomTokenMinter.serviceAccount(email: account.key.clientEmail, signer: account.signer)
                .mint(uid: uid, tenantID: tenantID, developerClaims: developerClaims, now: now)
        case .none:
            throw CustomTokenError(
                code: .noSigningKey,
                detail: "this credential has no private key: use a service account key (or the emulator)")
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
    /// - Throws: ``CustomTokenError``.
    public func createCustomToken(uid: String, developerClaims: [String: JSONValue]? = nil, now: Date = Date())
        throws(CustomTokenError) -> String
    {
        try customTokens.mint(uid: uid, tenantID: tenantID, developerClaims: developerClaims, now: now)
    }
}
