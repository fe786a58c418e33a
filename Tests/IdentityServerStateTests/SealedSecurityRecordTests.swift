import Foundation
import IdentityOTP
import IdentityServerState
import Testing

/// Security records in a sealed store, across a key rotation: a record
/// whose key left the ring read as absent, so a verification store built
/// on it forgot its lock-outs and replay marks. Now the read fails closed
/// (`.fail`, the default); `.readAsAbsent` is for state whose loss only
/// asks for a new sign-in, and shows here why it is not for these.
@Suite struct SealedSecurityRecordTests {
    static let limit = try! TOTPAttemptLimit(maximumFailures: 3, lockout: .seconds(900))

    @Test func aLockOutSealedWithARetiredKeyFailsClosed() async throws {
        let base = InMemoryExpiringStateStore()
        let before = SealedStateCodec(keyRing: try SealingKeyRing([try SealingKey.random(id: "old")]), purpose: "totp")
        let now = Date()
        let store = ExpiringStateTOTPVerificationStore(state: SealingStateStore(base: base, codec: before))
        for _ in 0..<3 { _ = try await store.recordAttempt(for: "key", limit: Self.limit, at: now) }
        #expect(
            try await store.recordAttempt(for: "key", limit: Self.limit, at: now)
                == .lockedUntil(now.addingTimeInterval(900)))

        // The old key leaves the ring.
        let after = SealedStateCodec(keyRing: try SealingKeyRing([try SealingKey.random(id: "new")]), purpose: "totp")
        let rotated = ExpiringStateTOTPVerificationStore(state: SealingStateStore(base: base, codec: after))
        do {
            _ = try await rotated.recordAttempt(for: "key", limit: Self.limit, at: now)
            Issue.record("a lock-out sealed with a retired key was counted from zero")
        } catch let error as SealedStateError {
            #expect(error.code == .unknownKey)
        }
        // Read as absent, the lock-out would be gone: why security records never take that.
        let forgetful = ExpiringStateTOTPVerificationStore(
            state: SealingStateStore(base: base, codec: after, unopenable: .readAsAbsent))
        #expect(try await forgetful.recordAttempt(for: "key", limit: Self.limit, at: now) == .counted(failures: 0))
    }
}
