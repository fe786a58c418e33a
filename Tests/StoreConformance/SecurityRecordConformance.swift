import Foundation
import IdentityOTP
import Testing

/// The cases every ``SecurityEventLog`` and ``TOTPClockOffsetStore`` must
/// pass, and the verifier's reports and events on any stores: run by
/// `swift test` on the in-memory ones and by `.ci/run` on PostgreSQL.
public enum SecurityRecordConformance {
    static let key = Array("12345678901234567890".utf8)
    static let start: Int64 = 1_800_000_000

    /// A fresh user of a fresh tenant, so that cases can share a database.
    static func freshUser(_ label: String) -> UserKey {
        UserKey(uid: TOTPStoreConformance.freshKey(label), tenantID: TOTPStoreConformance.freshKey("tenant"))
    }

    /// Runs `body` with the task's events going to a fresh log, and returns
    /// the kinds recorded for `user`, oldest first.
    static func kinds(of user: UserKey, _ body: () async throws -> Void) async throws -> [SecurityEvent.Kind] {
        let log = AppendOnlySecurityEventLog()
        try await SecurityEventSystem.withSink(log) { try await body() }
        return try await log.recentEvents(for: user, limit: 100).reversed().map(\.kind)
    }

    /// A run of wrong codes reports each refusal, then the lock-out it
    /// begins (with its end and count); the first success after it reports
    /// the lock-out's end; a replay is reported as one. Every event names
    /// the user and never the code.
    public static func verifierReportsRefusalsAndLockouts(_ stores: TOTPStoreConformance.VerifierStores) async throws {
        let totp = try TOTP(key: key)
        let limit = try TOTPAttemptLimit(maximumFailures: 3, lockout: .seconds(900), maximumLockout: .seconds(3600))
        let verifier = try stores.verifier(totp, limit: limit)
        let user = freshUser("events")
        let now = Date(timeIntervalSince1970: TimeInterval(start))
        let wrong = try totp.code(at: start) == "000000" ? "111111" : "000000"
        let log = AppendOnlySecurityEventLog()
        try await SecurityEventSystem.withSink(log) {
            try await SecurityEventContext.withValue(
                SecurityEventContext(requestID: "req-1", clientAddress: "192.0.2.7", userAgent: "tests")
            ) {
                for attempt in 1...3 {
                    let report = try await verifier.verify(wrong, for: user, at: now)
                    #expect(report.result == .invalid)
                    #expect(report.stepOffset == nil)
                    #expect((report.lockoutBegan != nil) == (attempt == 3))
                }
            }
            await #expect(throws: OTPError.tooManyAttempts(limit: 3)) {
                _ = try await verifier.verify(wrong, for: user, at: now)
            }
            let later = now.addingTimeInterval(900)
            let code = try totp.code(at: later)
            let accepted = try await verifier.verify(code, for: user, at: later)
            #expect(accepted.result == .accepted(step: try totp.step(at: start + 900)))
            #expect(accepted.stepOffset == 0)
            #expect(accepted.lockoutEnded)
            #expect(
                try await verifier.verify(code, for: user, at: later).result
                    == .replayed(step: try totp.step(at: start + 900)))
        }
        let events = try await log.recentEvents(for: user, limit: 100).reversed()
        #expect(
            events.map(\.kind) == [
                .codeRefused, .codeRefused, .codeRefused, .lockoutBegan, .lockoutEnded, .replayRefused,
            ])
        let lockout = try #require(events.first { $0.kind == .lockoutBegan })
        #expect(lockout.lockedUntil == now.addingTimeInterval(900))
        #expect(lockout.consecutiveFailures == 3)
        #expect(
            lockout.context == SecurityEventContext(requestID: "req-1", clientAddress: "192.0.2.7", userAgent: "tests"))
        #expect(events.allSatisfy { $0.user == user && $0.factorKind == "totp" })
        #expect(!"\(Array(events))".contains(wrong))
    }

    /// Offsets are kept per key, newest `keep`, oldest first; a list past
    /// its retention starts again.
    public static func clockOffsetStoreKeepsTheNewest(_ store: any TOTPClockOffsetStore) async throws {
        let (a, b) = (TOTPStoreConformance.freshKey("offsets-a"), TOTPStoreConformance.freshKey("offsets-b"))
        let now = Date(timeIntervalSince1970: TimeInterval(start))
        let retain = now.addingTimeInterval(3600)
        #expect(try await store.recentOffsets(for: a, at: now) == [])
        for offset in 1...4 { _ = try await store.recordOffset(offset, for: a, keep: 3, at: now, retainUntil: retain) }
        #expect(try await store.recordOffset(-2, for: b, keep: 3, at: now, retainUntil: retain) == [-2])
        #expect(try await store.recordOffset(5, for: a, keep: 3, at: now, retainUntil: retain) == [3, 4, 5])
        #expect(try await store.recentOffsets(for: a, at: now) == [3, 4, 5])
        let lapsed = retain.addingTimeInterval(1)
        #expect(try await store.recentOffsets(for: a, at: lapsed) == [])
        #expect(
            try await store.recordOffset(0, for: a, keep: 3, at: lapsed, retainUntil: lapsed.addingTimeInterval(60))
                == [0])
    }

    /// Codes that keep matching three steps ahead are reported as a 90-second
    /// drift from the third on (not before), with one event each time; codes
    /// one step off are no drift. Re-centring, when asked for, moves a
    /// narrow window onto the drift, and no further than the widest window.
    public static func driftIsNoticedAndRecentringIsBounded(
        _ stores: TOTPStoreConformance.VerifierStores,
        offsets: any TOTPClockOffsetStore
    ) async throws {
        let totp = try TOTP(key: key)
        let detection = try TOTPClockDriftDetection(store: offsets)
        let verifier = try stores.verifier(totp, window: 5).detectingClockDrift(detection)
        let user = freshUser("drift")
        var drifts: [TOTPClockDrift?] = []
        let kinds = try await kinds(of: user) {
            for signIn in 0..<4 {
                let now = start + Int64(signIn) * 3600
                let report = try await verifier.verify(
                    try totp.code(at: now + 90), for: user, at: Date(timeIntervalSince1970: TimeInterval(now)))
                #expect(report.stepOffset == 3)
                drifts.append(report.clockDrift)
            }
        }
        #expect(drifts == [nil, nil, TOTPClockDrift(steps: 3, period: 30), TOTPClockDrift(steps: 3, period: 30)])
        #expect(drifts.last??.seconds == 90)
        #expect(kinds == [.clockDriftNoticed, .clockDriftNoticed])

        // One step off, however often, is no drift.
        let steady = freshUser("steady")
        for signIn in 0..<4 {
            let now = start + Int64(signIn) * 3600
            let report = try await verifier.verify(
                try totp.code(at: now + 30), for: steady, at: Date(timeIntervalSince1970: TimeInterval(now)))
            #expect(report.clockDrift == nil)
        }

        // Re-centring: a window of 1 around a recorded drift of +3.
        let narrow = try stores.verifier(totp, window: 1)
        let recentring = narrow.detectingClockDrift(try TOTPClockDriftDetection(store: offsets, recentresWindow: true))
        let drifted = freshUser("recentred")
        let now = Date(timeIntervalSince1970: TimeInterval(start + 86_400))
        for _ in 0..<3 {
            _ = try await offsets.recordOffset(
                3, for: drifted.storeKey, keep: 3, at: now, retainUntil: now.addingTimeInterval(3600))
        }
        let unixNow = start + 86_400
        #expect(try await narrow.verify(try totp.code(at: unixNow + 90), for: drifted, at: now).result == .invalid)
        #expect(try await recentring.verify(try totp.code(at: unixNow), for: drifted, at: now).result == .invalid)
        #expect(
            try await recentring.verify(try totp.code(at: unixNow + 90), for: drifted, at: now).result
                == .accepted(step: try totp.step(at: unixNow + 90)))

        // A huge recorded drift moves a window of 5 by at most 5, so it never
        // reaches past ten steps from now.
        let far = freshUser("far")
        for _ in 0..<3 {
            _ = try await offsets.recordOffset(
                9, for: far.storeKey, keep: 3, at: now, retainUntil: now.addingTimeInterval(3600))
        }
        let wide = try stores.verifier(totp, window: 5).detectingClockDrift(
            try TOTPClockDriftDetection(store: offsets, recentresWindow: true))
        #expect(try await wide.verify(try totp.code(at: unixNow + 330), for: far, at: now).result == .invalid)
        #expect(
            try await wide.verify(try totp.code(at: unixNow + 300), for: far, at: now).result
                == .accepted(step: try totp.step(at: unixNow + 300)))
    }

    /// The log returns a user's newest events first, up to a limit, keeps
    /// every field, keeps tenants apart, and the retention sweep removes
    /// only older events.
    public static func eventLogKeepsAndSweeps(_ log: any SecurityEventLog) async throws {
        let user = freshUser("log")
        let sameUIDOtherTenant = UserKey(uid: user.uid, tenantID: nil)
        let base = Date(timeIntervalSince1970: TimeInterval(start))
        var lockout = SecurityEvent(.lockoutBegan, user: user, date: base, factorKind: "totp")
        lockout.lockedUntil = base.addingTimeInterval(900)
        lockout.consecutiveFailures = 5
        lockout.context = SecurityEventContext(
            requestID: "r-1", clientAddress: "2001:db8::1", userAgent: "Mozilla/5.0 \"quoted\" ✓")
        var redeemed = SecurityEvent(
            .recoveryCodeRedeemed, user: user, date: base.addingTimeInterval(60), initiatedBy: .recovery,
            factorKind: "recovery_code")
        redeemed.remainingCodes = 9
        var drift = SecurityEvent(
            .clockDriftNoticed, user: user, date: base.addingTimeInterval(120), factorID: "enrollment-1",
            factorKind: "totp")
        drift.clockOffsetSeconds = -90
        for event in [lockout, redeemed, drift] { await log.record(event) }
        await log.record(SecurityEvent(.sessionsRevoked, user: sameUIDOtherTenant, date: base, initiatedBy: .admin))
        let events = try await log.recentEvents(for: user, limit: 10)
        #expect(events == [drift, redeemed, lockout])
        #expect(try await log.recentEvents(for: user, limit: 2) == [drift, redeemed])
        #expect(try await log.recentEvents(for: sameUIDOtherTenant, limit: 10).map(\.kind) == [.sessionsRevoked])
        #expect(try await log.removeEvents(before: base.addingTimeInterval(60)) >= 2)
        #expect(try await log.recentEvents(for: user, limit: 10) == [drift, redeemed])
        #expect(try await log.recentEvents(for: sameUIDOtherTenant, limit: 10) == [])
    }
}
