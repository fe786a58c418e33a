// The "Security events" snippet of IdentityOTP's article, verbatim
// (SecurityEventsArticleTests compares them), compiled and run there.
import Foundation
import IdentityOTP

/// At start-up: events go to the log and to an audit log the account page reads.
func startSecurityEvents(auditLog: any SecurityEventLog) {
    SecurityEventSystem.bootstrap(MultiplexSecurityEventSink([LoggingSecurityEventSink(), auditLog]))
}

/// The second step of a sign-in, on a server that checks TOTP codes itself.
func checkCode(
    _ code: String, of user: UserKey, totp: TOTP, store: any TOTPVerificationStore,
    offsets: any TOTPClockOffsetStore, at now: Date = Date()
) async throws -> String {
    let verifier = try TOTPVerifier(totp: totp, store: store)
        .detectingClockDrift(try TOTPClockDriftDetection(store: offsets))
    // Records a refusal, a replay, a lock-out begun or ended, a drifting clock.
    let report = try await verifier.verify(code, for: user, at: now)
    guard case .accepted = report.result else { return "wrong code" }
    if let drift = report.clockDrift {
        return
            "signed in; your phone's clock is about \(abs(drift.seconds)) seconds \(drift.seconds > 0 ? "fast" : "slow")"
    }
    return "signed in"
}
