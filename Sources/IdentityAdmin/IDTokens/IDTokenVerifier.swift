import Foundation
public import IdentityToolkit
import IdentityToolkitJWT

/// Verifies Firebase ID tokens, or session cookies, as Google documents it,
/// for one project (and optionally one tenant): RS256 only, `kid` among the
/// published keys, the signature, `aud` = the project, `iss` =
/// `https://securetoken.google.com/<project>` (cookies:
/// `https://session.firebase.google.com/<project>`), `exp` in the future,
/// `iat` and `auth_time` not in the future (within ``clockSkew``), `sub` a
/// uid of 1 to 128 characters, and `firebase.tenant` equal to the verifier's
/// tenant when it has one.
///
/// Unlike a verifier that checks the issuer against the token's own audience,
/// the project is this verifier's, so a token for another project is refused.
/// Without a tenant it accepts the project's own users and every tenant's,
/// as firebase-admin does (``forTenant(_:)`` or
/// ``DecodedIDToken/requireTenant(_:)`` narrow it).
public struct IDTokenVerifier: Sendable {
    /// What a verifier accepts: ID tokens and session cookies carry the same
    /// claims, under different issuers and keys.
    public enum TokenKind: Sendable, Hashable {
        /// ID tokens (`iss` `https://securetoken.google.com/<project>`).
        case idToken
        /// Session cookies (`iss` `https://session.firebase.google.com/<project>`).
        case sessionCookie

        var issuerPrefix: TokenIssuerPrefix {
            switch self {
            case .idToken: return .idToken
            case .sessionCookie: return .sessionCookie
            }
        }
    }

    /// The project tokens must be for.
    public let projectID: String
    /// Whether this verifier takes ID tokens or session cookies.
    public let kind: TokenKind
    /// The tenant tokens must belong to; nil accepts the project's users and every tenant's.
    public let tenantID: String?
    /// How far `iat` and `auth_time` may lie in the future (clocks differ a
    /// little); `exp` gets no allowance.
    public let clockSkew: Duration

    let keys: SigningKeyCache
    let now: @Sendable () -> Date

    /// The `iss` this verifier requires.
    public var issuer: String { kind.issuerPrefix.rawValue + projectID }

    /// A verifier of ID tokens that fetches the keys with `keys` (Google's
    /// key route, or the emulator's form of it, through `GooglePublicKeysClient`).
    /// - Parameters:
    ///   - projectID: The project tokens must be for.
    ///   - tenantID: The tenant they must belong to, if any.
    ///   - clockSkew: How far `iat` and `auth_time` may lie in the future; one minute by default.
    ///   - keys: Where the public keys come from.
    public init(projectID: String, tenantID: String? = nil, clockSkew: Duration = .seconds(60), keys: GooglePublicKeysClient) {
        self.init(projectID: projectID, kind: .idToken, tenantID: tenantID, clockSkew: clockSkew,
                  keys: SigningKeyCache(logger: keys.executor.configuration.logger) { try await keys.getIDTokenSigningKeysWithHeaders() }, now: Date.init)
    }

    /// A verifier of session cookies that fetches the session-cookie keys
    /// with `keys` (the Identity Toolkit's route, or the emulator's form of it).
    /// - Parameters:
    ///   - projectID: The project cookies must be for.
    ///   - tenantID: The tenant they must belong to, if any.
    ///   - clockSkew: How far `iat` and `auth_time` may lie in the future; one minute by default.
    ///   - keys: Where the public keys come from.
    public init(projectID: String, tenantID: String? = nil, clockSkew: Duration = .seconds(60), sessionCookieKeys keys: SessionCookieKeysClient) {
        self.init(projectID: projectID, kind: .sessionCookie, tenantID: tenantID, clockSkew: clockSkew,
                  keys: SigningKeyCache(logger: keys.executor.configuration.logger) { try await keys.getSessionCookieSigningKeysWithHeaders() }, now: Date.init)
    }

    init(projectID: String, kind: TokenKind, tenantID: String?, clockSkew: Duration, keys: SigningKeyCache, now: @escaping @Sendable () -> Date) {
        self.projectID = projectID
        self.kind = kind
        self.tenantID = tenantID
        self.clockSkew = clockSkew
        self.keys = keys
        self.now = now
    }

    /// The same checks for tokens of `tenantID`, sharing this verifier's key cache.
    public func forTenant(_ tenantID: String) -> IDTokenVerifier {
        IDTokenVerifier(projectID: projectID, kind: kind, tenantID: tenantID, clockSkew: clockSkew, keys: keys, now: now)
    }

    /// The token's claims, once every check passed (a session cookie's too:
    /// they are an ID token's under the session issuer).
    public func verify(_ idToken: String) async throws(TokenVerificationError) -> DecodedIDToken {
        let jwt: ParsedJWT
        do {
            jwt = try ParsedJWT(idToken)
        } catch .notCompactForm {
            throw .malformed("not a JWT (three strict base64url parts, at most 16 KB)")
        } catch {
            throw .malformed("the header is not a JOSE header")
        }
        guard jwt.header.alg == .rs256 else { throw .unsupportedAlgorithm(jwt.header.alg.rawValue) }
        guard let kid = jwt.header.kid, !kid.isEmpty else { throw .malformed("the header has no kid") }
        guard jwt.hasValidSignature(try await keys.key(for: kid)) else { throw .badSignature }
        let claims: IDTokenClaims
        do {
            claims = try jwt.claims(as: IDTokenClaims.self)
        } catch {
            if case .undecodableClaims(let decoding) = error { throw .malformed("the claims do not decode (\(Self.describe(decoding)))") }
            throw .malformed("the claims do not decode")
        }
        guard claims.aud == projectID else { throw .wrongAudience(expected: projectID, found: claims.aud) }
        guard claims.iss == issuer else { throw .wrongIssuer(expected: issuer, found: claims.iss) }
        guard (1...IdentityPlatformLimits.maximumUIDLength).contains(claims.sub.count) else { throw .invalidSubject }
        let time = now().timeIntervalSince1970
        let skew = TimeInterval(clockSkew.components.seconds)
        guard time < TimeInterval(claims.exp) else { throw .expired(at: Date(timeIntervalSince1970: TimeInterval(claims.exp))) }
        guard TimeInterval(claims.iat) <= time + skew else { throw .issuedInTheFuture(at: Date(timeIntervalSince1970: TimeInterval(claims.iat))) }
        guard TimeInterval(claims.authTime) <= time + skew else {
            throw .authenticatedInTheFuture(at: Date(timeIntervalSince1970: TimeInterval(claims.authTime)))
        }
        if let tenantID, claims.firebase.tenant != tenantID { throw .tenantMismatch(expected: tenantID, found: claims.firebase.tenant) }
        return DecodedIDToken(claims, payload: jwt.form.payload)
    }

    /// Which claim failed to decode, without its value.
    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            return "missing \((context.codingPath.map(\.stringValue) + [key.stringValue]).joined(separator: "."))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? "not a JSON object" : "wrong type at \(path)"
        @unknown default:
            return "undecodable"
        }
    }
}
