import Foundation
import IdentitySupport
@_spi(Generated) public import IdentityToolkit
import IdentityToolkitJWT
import _CryptoExtras

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
///
/// A token that passed every check is recognised again by a digest of its
/// exact bytes, without a second signature check, until the earlier of
/// its `exp` and ``TokenCacheOptions/verifiedTokenMaximumAge``, or until a
/// key rotation drops its key (``withCache(_:)``; on by default).
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
    /// Shared by the copies ``forTenant(_:)`` makes: a hit checks the tenant again.
    let cache: VerifiedTokenCache?
    /// Made with the verifier, from the metrics factory bound then; nil
    /// in ``withoutTelemetry()``'s copies.
    let metrics: VerificationMetrics?

    /// The `iss` this verifier requires.
    public var issuer: String { requiredIssuer }
    /// ``issuer``, made once: joining it on every call was an allocation a verification.
    private let requiredIssuer: String

    /// A verifier of ID tokens that fetches the keys with `keys` (Google's
    /// key route, or the emulator's form of it, through `GooglePublicKeysClient`).
    /// - Parameters:
    ///   - projectID: The project tokens must be for.
    ///   - tenantID: The tenant they must belong to, if any.
    ///   - clockSkew: How far `iat` and `auth_time` may lie in the future; one minute by default.
    ///   - keys: Where the public keys come from.
    public init(
        projectID: String, tenantID: String? = nil, clockSkew: Duration = .seconds(60), keys: GooglePublicKeysClient
    ) {
        self.init(
            projectID: projectID, kind: .idToken, tenantID: tenantID, clockSkew: clockSkew,
            keys: SigningKeyCache(logger: keys.executor.configuration.logger) {
                try await keys.getIDTokenSigningKeysWithHeaders()
            }, now: Date.init)
    }

    /// A verifier of session cookies that fetches the session-cookie keys
    /// with `keys` (the Identity Toolkit's route, or the emulator's form of it).
    /// - Parameters:
    ///   - projectID: The project cookies must be for.
    ///   - tenantID: The tenant they must belong to, if any.
    ///   - clockSkew: How far `iat` and `auth_time` may lie in the future; one minute by default.
    ///   - keys: Where the public keys come from.
    public init(
        projectID: String, tenantID: String? = nil, clockSkew: Duration = .seconds(60),
        sessionCookieKeys keys: SessionCookieKeysClient
    ) {
        self.init(
            projectID: projectID, kind: .sessionCookie, tenantID: tenantID, clockSkew: clockSkew,
            keys: SigningKeyCache(logger: keys.executor.configuration.logger) {
                try await keys.getSessionCookieSigningKeysWithHeaders()
            }, now: Date.init)
    }

    init(
        projectID: String, kind: TokenKind, tenantID: String?, clockSkew: Duration, keys: SigningKeyCache,
        now: @escaping @Sendable () -> Date,
        cache: VerifiedTokenCache? = VerifiedTokenCache(.default), recorded: Bool = true
    ) {
        self.projectID = projectID
        self.kind = kind
        requiredIssuer = kind.issuerPrefix.rawValue + projectID
        self.tenantID = tenantID
        self.clockSkew = clockSkew
        self.keys = keys
        self.now = now
        self.cache = cache
        metrics = recorded ? VerificationMetrics(kind) : nil
    }

    /// The same checks for tokens of `tenantID`, sharing this verifier's key cache and verified tokens.
    public func forTenant(_ tenantID: String) -> IDTokenVerifier {
        IDTokenVerifier(
            projectID: projectID, kind: kind, tenantID: tenantID, clockSkew: clockSkew, keys: keys, now: now,
            cache: cache)
    }

    /// The same checks with a verified-token cache of its own as `options`
    /// say (``TokenCacheOptions/disabled`` checks every signature).
    /// - Parameter options: The cache's capacity and bound.
    public func withCache(_ options: TokenCacheOptions) -> IDTokenVerifier {
        IDTokenVerifier(
            projectID: projectID, kind: kind, tenantID: tenantID, clockSkew: clockSkew, keys: keys, now: now,
            cache: VerifiedTokenCache(options))
    }

    /// The token's claims, once every check passed (a session cookie's too:
    /// they are an ID token's under the session issuer). A token this
    /// verifier (or one sharing its cache) accepted before is recognised
    /// by its digest; the checks of time and tenant are made again.
    ///
    /// With the `Telemetry` trait: a span `verifyIDToken` (or
    /// `verifySessionCookie`) whose children are the REST calls it made
    /// (with the tracer bound when the verifier was made: bootstrap
    /// tracing before creating ``IdentityAdmin``), and the counter
    /// `firebase_token_verifications_total` by `outcome`, `reason` and
    /// `source` (`cache` for the cache's hits, `signature`); the checks the
    /// cache did not answer are timed in `firebase_token_signature_check_seconds`.
    public func verify(_ idToken: String) async throws(TokenVerificationError) -> DecodedIDToken {
        try await verify(idToken, checkRevoked: false) { _ throws(TokenVerificationError) in }
    }

    /// A copy that records no metric and no span: the baseline that the
    /// benchmarks measure the telemetry's cost against, in the same run.
    @_spi(Benchmarks) public func withoutTelemetry() -> IDTokenVerifier {
        IDTokenVerifier(
            projectID: projectID, kind: kind, tenantID: tenantID, clockSkew: clockSkew, keys: keys, now: now,
            cache: cache, recorded: false)
    }

    /// The checks, then (when `checkRevoked`) `revocationCheck`, in one
    /// span; the counters count this verifier's checks only (the
    /// revocation check counts its own).
    func verify(
        _ idToken: String, checkRevoked: Bool,
        revocationCheck: (DecodedIDToken) async throws(TokenVerificationError) -> Void
    ) async throws(TokenVerificationError) -> DecodedIDToken {
        guard let metrics else {
            var cached = false
            let token = try await verifyRemembering(idToken, cached: &cached)
            if checkRevoked { try await revocationCheck(token) }
            return token
        }
        guard metrics.isTracing else {
            return try await verifyCounted(
                idToken, metrics: metrics, checkRevoked: checkRevoked, revocationCheck: revocationCheck, span: nil)
        }
        return try await metrics.tracer.withSpan(kind.spanName) {
            span async throws(TokenVerificationError) -> DecodedIDToken in
            try await verifyCounted(
                idToken, metrics: metrics, checkRevoked: checkRevoked, revocationCheck: revocationCheck, span: span)
        }
    }

    /// The counted checks, annotating `span` (nil without a tracer); inlined,
    /// so that the hot path takes no extra async frame.
    @inline(__always)
    private func verifyCounted(
        _ idToken: String, metrics: VerificationMetrics, checkRevoked: Bool,
        revocationCheck: (DecodedIDToken) async throws(TokenVerificationError) -> Void,
        span: TelemetrySpan?
    ) async throws(TokenVerificationError) -> DecodedIDToken {
        span?.set("firebase.token.check_revoked", checkRevoked)
        do throws(TokenVerificationError) {
            let token: DecodedIDToken
            var cached = false
            do throws(TokenVerificationError) {
                token = try await verifyRemembering(idToken, cached: &cached)
                metrics.verified(cached: cached)
                span?.set("firebase.token.cached", cached)
            } catch {
                metrics.refused(error.code, cached: cached)
                throw error
            }
            if checkRevoked { try await revocationCheck(token) }
            return token
        } catch {
            span?.set("firebase.token.refusal", error.code.description)
            span?.fail(error.code.description)
            throw error
        }
    }

    /// The checks, or the cache's answer (`cached` set, before the checks
    /// of time and tenant, so that their refusal counts as the cache's).
    private func verifyRemembering(_ idToken: String, cached: inout Bool) async throws(TokenVerificationError)
        -> DecodedIDToken
    {
        guard let cache else { return try await timedEveryCheck(idToken, at: now()) }
        let digest = VerifiedTokenCache.Digest(idToken)
        let time = now()
        // Read before the key lookup: a rotation during the checks marks the entry stale.
        let generation = keys.generation(at: time)
        if let token = cache.token(for: digest, at: time, keyGeneration: generation) {
            cached = true
            do throws(ClaimFailure) {
                try token.verifyTimesAndTenant(at: time, clockSkew: clockSkew, tenant: tenantID)
            } catch {
                throw TokenVerificationError(claimFailure: error)
            }
            return token
        }
        let token = try await timedEveryCheck(idToken, at: time)
        cache.insert(token, for: digest, keyGeneration: generation, at: time)
        return token
    }

    /// Every check, timed (a key fetch included). Inlined, with the checks:
    /// the uncached path is one `async` frame, as it was before it was timed.
    @inline(__always)
    private func timedEveryCheck(_ idToken: String, at now: Date) async throws(TokenVerificationError) -> DecodedIDToken
    {
        guard let timer = metrics?.signatureChecks else { return try await verifyEveryCheck(idToken, at: now) }
        let started = timer.start()
        defer { timer.stop(started) }
        return try await verifyEveryCheck(idToken, at: now)
    }

    /// Every check, with no cache.
    @inline(__always)
    private func verifyEveryCheck(_ idToken: String, at now: Date) async throws(TokenVerificationError)
        -> DecodedIDToken
    {
        let jwt = try await signedJWT(idToken)
        let claims = try Self.decode(jwt) { jwt throws(JWTFailure) in try jwt.claims(as: IDTokenClaims.self) }
        let token = DecodedIDToken(claims, payload: jwt.form.payload)
        do throws(ClaimFailure) {
            try token.verifyIssuer(requiredIssuer, audience: projectID)
        } catch {
            throw TokenVerificationError(claimFailure: error)
        }
        guard IdentityPlatformLimits.isValidUID(token.uid) else { throw .invalidSubject }
        do throws(ClaimFailure) {
            try token.verifyTimesAndTenant(at: now, clockSkew: clockSkew, tenant: tenantID)
        } catch {
            throw TokenVerificationError(claimFailure: error)
        }
        return token
    }
}
