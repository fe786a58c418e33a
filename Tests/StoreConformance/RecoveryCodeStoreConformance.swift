import Foundation
import IdentityOTP
import Testing

/// The cases every `RecoveryCodeStore` must pass: run by `swift test` on the
/// in-memory store and by `.ci/run` on PostgreSQL.
public enum RecoveryCodeStoreConformance {
    /// A code works once; a wrong one and another user's do not; a new set
    /// replaces the old one whole; the count of what remains is right.
    public static func eachCodeWorksOnce(_ store: any RecoveryCodeStore) async throws {
        let redeemer = RecoveryCodeRedeemer(
            store: store, attemptStore: ExpiringStateTOTPVerificationStore(),
            attemptLimit: try TOTPAttemptLimit(maximumFailures: 50))
        let (user, other) = (TOTPStoreConformance.freshKey("recovery"), TOTPStoreConformance.freshKey("recovery-other"))
        #expect(try await redeemer.redeem("AAAA-AAAA-AAAA", for: user) == .noCodes)
        let codes = try await redeemer.regenerate(for: user, count: 10)
        let theirs = try await redeemer.regenerate(for: other, count: 3)
        #expect(try await store.verifiers(for: user)?.digests.count == 10)
        #expect(try await store.verifiers(for: user)?.salt == codes.verifiers.salt)
        #expect(try await redeemer.redeem(theirs.codes[0], for: user) == .invalid, "another user's code")
        #expect(try await redeemer.redeem(codes.codes[3], for: user) == .redeemed(remaining: 9))
        #expect(try await redeemer.redeem(codes.codes[3], for: user) == .invalid, "used already")
        // Typed as people type: lower case, spaces, O for 0.
        let sloppy = codes.codes[4].lowercased().replacingOccurrences(of: "-", with: " ").replacingOccurrences(
            of: "0", with: "o")
        #expect(try await redeemer.redeem(sloppy, for: user) == .redeemed(remaining: 8))
        #expect(try await redeemer.redeem("not a code", for: user) == .invalid)
        let fresh = try await redeemer.regenerate(for: user, count: 10)
        #expect(try await redeemer.redeem(codes.codes[5], for: user) == .invalid, "the old set is gone")
        #expect(try await redeemer.redeem(fresh.codes[0], for: user) == .redeemed(remaining: 9))
        #expect(try await redeemer.redeem(theirs.codes[1], for: other) == .redeemed(remaining: 2))
        try await store.removeCodes(for: user)
        #expect(try await store.verifiers(for: user) == nil)
    }

    /// 100 concurrent redemptions of one code: exactly one succeeds.
    public static func oneCodeIsRedeemedOnceUnderConcurrency(_ store: any RecoveryCodeStore) async throws -> Int {
        let redeemer = RecoveryCodeRedeemer(
            store: store, attemptStore: ExpiringStateTOTPVerificationStore(),
            attemptLimit: try TOTPAttemptLimit(maximumFailures: 1_000))
        let user = TOTPStoreConformance.freshKey("recovery-race")
        let codes = try await redeemer.regenerate(for: user, count: 10)
        let code = codes.codes[0]
        let redeemed = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    if case .redeemed = try await redeemer.redeem(code, for: user) { return true }
                    return false
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(redeemed == 1)
        #expect(try await store.verifiers(for: user)?.digests.count == 9)
        return redeemed
    }
}
