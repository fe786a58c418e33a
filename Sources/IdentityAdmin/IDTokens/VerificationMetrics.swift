import IdentitySupport

/// The metrics and the tracer of one verifier (`firebase_token_*`,
/// dimension `kind`: `id_token` or `session_cookie`), made when the
/// verifier is, so that the hot path (a remembered token) increments one
/// counter and reads one flag; a class, so that it retains one reference
/// instead of five:
///
/// - `firebase_token_verifications_total`, by `outcome` (`verified`,
///   `refused`), `reason` (`none`, or ``TokenVerificationError/Code``'s
///   word) and `source`: `cache` when the verified-token cache answered
///   (the cache hits), `signature` when the signature was checked;
/// - `firebase_token_signature_check_seconds`: the checks that were not
///   remembered (a key fetch included when one was needed).
final class VerificationMetrics: Sendable {
    /// The `kind` dimension's value.
    let kind: String
    let verifiedFromCache: TelemetryCounter
    let verifiedBySignature: TelemetryCounter
    let signatureChecks: TelemetryTimer
    /// The tracer bound when the verifier was made (a lookup per call cost
    /// half of a remembered token's check).
    let tracer: TelemetryTracer
    /// `tracer.isTracing`, read without copying the tracer.
    let isTracing: Bool

    static let verificationsLabel = "firebase_token_verifications_total"
    static let signatureChecksLabel = "firebase_token_signature_check_seconds"

    init(_ kind: IDTokenVerifier.TokenKind) {
        self.kind = kind.metricName
        verifiedFromCache = Telemetry.counter(
            Self.verificationsLabel, Self.dimensions(self.kind, "verified", "none", cached: true))
        verifiedBySignature = Telemetry.counter(
            Self.verificationsLabel, Self.dimensions(self.kind, "verified", "none", cached: false))
        signatureChecks = Telemetry.timer(Self.signatureChecksLabel, [("kind", self.kind)])
        tracer = .current
        isTracing = tracer.isTracing
    }

    /// Counts an accepted token.
    func verified(cached: Bool) {
        (cached ? verifiedFromCache : verifiedBySignature).increment()
    }

    /// Counts a refusal (a cold path: the counter is made here).
    func refused(_ code: TokenVerificationError.Code, cached: Bool) {
        Telemetry.counter(Self.verificationsLabel, Self.dimensions(kind, "refused", code.description, cached: cached))
            .increment()
    }

    /// The dimensions of `firebase_token_verifications_total`, in one order.
    static func dimensions(_ kind: String, _ outcome: String, _ reason: String, cached: Bool) -> [(String, String)] {
        [("kind", kind), ("outcome", outcome), ("reason", reason), ("source", cached ? "cache" : "signature")]
    }

    /// `firebase_token_revocation_checks_total`, by `outcome` (`ok`, or the
    /// refusal's word) and `source` (`cache`: a state looked up earlier;
    /// `lookup`: this check asked the backend, or joined a lookup in flight).
    static func revocationCheck(outcome: String, looked source: String) {
        Telemetry.counter("firebase_token_revocation_checks_total", [("outcome", outcome), ("source", source)])
            .increment()
    }
}

extension IDTokenVerifier.TokenKind {
    /// The span of a verification: the firebase-admin call's name.
    var spanName: String {
        switch self {
        case .idToken: return "verifyIDToken"
        case .sessionCookie: return "verifySessionCookie"
        }
    }

    /// The word metrics and spans use.
    var metricName: String {
        switch self {
        case .idToken: return "id_token"
        case .sessionCookie: return "session_cookie"
        }
    }
}
