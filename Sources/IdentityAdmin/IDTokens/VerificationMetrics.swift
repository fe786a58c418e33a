import IdentityOTPFormats

/// The metrics of one verifier (`firebase_token_*`, dimension `kind`:
/// `id_token` or `session_cookie`), made when the verifier is, so that the
/// hot path (a remembered token) only increments two counters:
///
/// - `firebase_token_verifications_total`, by `outcome` (`verified`,
///   `refused`) and `reason` (`none`, or ``TokenVerificationError/Code``'s word);
/// - `firebase_token_cache_hits_total`: verifications the verified-token
///   cache answered without a signature check;
/// - `firebase_token_signature_check_seconds`: the checks that were not
///   remembered (a key fetch included when one was needed).
struct VerificationMetrics: Sendable {
    /// The `kind` dimension's value.
    let kind: String
    let verified: TelemetryCounter
    let cacheHits: TelemetryCounter
    let signatureChecks: TelemetryTimer

    static let verificationsLabel = "firebase_token_verifications_total"
    static let cacheHitsLabel = "firebase_token_cache_hits_total"
    static let signatureChecksLabel = "firebase_token_signature_check_seconds"

    init(_ kind: IDTokenVerifier.TokenKind) {
        self.kind = kind.metricName
        verified = Telemetry.counter(Self.verificationsLabel, [("kind", self.kind), ("outcome", "verified"), ("reason", "none")])
        cacheHits = Telemetry.counter(Self.cacheHitsLabel, [("kind", self.kind)])
        signatureChecks = Telemetry.timer(Self.signatureChecksLabel, [("kind", self.kind)])
    }

    /// Counts a refusal (a cold path: the counter is made here).
    func refused(_ code: TokenVerificationError.Code) {
        Telemetry.counter(Self.verificationsLabel, [("kind", kind), ("outcome", "refused"), ("reason", code.description)]).increment()
    }

    /// `firebase_token_revocation_checks_total`, by `outcome` (`ok`, or the
    /// refusal's word) and `source` (`cache`: a state looked up earlier;
    /// `lookup`: this check asked the backend, or joined a lookup in flight).
    static func revocationCheck(outcome: String, looked source: String) {
        Telemetry.counter("firebase_token_revocation_checks_total", [("outcome", outcome), ("source", source)]).increment()
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
