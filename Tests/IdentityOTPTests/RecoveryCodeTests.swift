import Foundation
import IdentityOTP
import StoreConformance
import Testing

@Suite struct RecoveryCodeTests {
    @Test func generatedCodesAreReadableUniqueAndRandom() throws {
        let set = try RecoveryCodes.generate(count: 10)
        #expect(set.codes.count == 10)
        #expect(Set(set.codes).count == 10)
        #expect(set.verifiers.digests.count == 10)
        #expect(set.verifiers.salt.count == 16)
        #expect(set.verifiers.rounds == RecoveryCodeVerifiers.defaultRounds)
        let alphabet = Set(RecoveryCodes.alphabet)
        for code in set.codes {
            #expect(code.wholeMatch(of: #/[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}/#) != nil, "\(code)")
            #expect(code.filter { $0 != "-" }.allSatisfy(alphabet.contains))
            #expect(!code.contains { "ILOU".contains($0) })
        }
        // 12 symbols of 32: 60 bits per code.
        #expect(Double(RecoveryCodes.characters) * log2(Double(RecoveryCodes.alphabet.count)) >= 50)
        // Every symbol turns up, about equally, over many codes (a biased
        // or truncated draw would not): 6,000 symbols, 187.5 expected each.
        var counts: [Character: Int] = [:]
        for _ in 0..<50 {
            for code in try RecoveryCodes.generate(count: 10, rounds: 1_000).codes {
                for symbol in code where symbol != "-" { counts[symbol, default: 0] += 1 }
            }
        }
        #expect(counts.count == 32)
        #expect(counts.values.allSatisfy { (110...270).contains($0) }, "\(counts)")
        // Two sets share nothing.
        let other = try RecoveryCodes.generate(count: 10, rounds: 1_000)
        #expect(Set(other.codes).isDisjoint(with: set.codes))
        #expect(other.verifiers.salt != set.verifiers.salt)
    }

    @Test func typingIsForgiving() {
        #expect(RecoveryCodes.normalized("7kqm-2xpd-9htw") == "7KQM2XPD9HTW")
        #expect(RecoveryCodes.normalized(" 7KQM 2XPD 9HTW ") == "7KQM2XPD9HTW")
        #expect(RecoveryCodes.normalized("IOL0-0000-0000") == "101000000000")
        #expect(RecoveryCodes.normalized("7KQM-2XPD-9HT") == nil, "too short")
        #expect(RecoveryCodes.normalized("7KQM-2XPD-9HTWX") == nil, "too long")
        #expect(RecoveryCodes.normalized("7KQM-2XPD-9HTU") == nil, "U is not in the alphabet")
        #expect(RecoveryCodes.normalized("") == nil)
    }

    @Test func onlyVerifiersAreKeptAndNothingRendersACode() throws {
        let set = try RecoveryCodes.generate(count: 3)
        let verifiers = set.verifiers
        let renderings =
            ["\(set)", String(reflecting: set), "\(verifiers)", String(reflecting: verifiers)]
            + [
                {
                    var text = ""
                    dump(set, to: &text)
                    return text
                }(),
                {
                    var text = ""
                    dump(verifiers, to: &text)
                    return text
                }(),
            ]
        for rendering in renderings {
            for code in set.codes {
                #expect(!rendering.contains(code))
                #expect(!rendering.contains(code.replacingOccurrences(of: "-", with: "")))
            }
            #expect(!rendering.contains(verifiers.digests[0].base64EncodedString()))
        }
        // The stored form holds digests, not codes.
        let stored = String(decoding: try JSONEncoder().encode(verifiers), as: UTF8.self)
        for code in set.codes { #expect(!stored.contains(code.replacingOccurrences(of: "-", with: ""))) }
        #expect(try verifiers.digest(of: set.codes[0]) == verifiers.digests[0])
        #expect(verifiers.indexOfDigest(try #require(try verifiers.digest(of: set.codes[2]))) == 2)
    }

    @Test func parametersOutOfRangeAreRefused() {
        #expect(
            #expect(throws: OTPError.self) { try RecoveryCodes.generate(count: 0) }?.code
                == .invalidRecoveryCodeParameters)
        #expect(
            #expect(throws: OTPError.self) { try RecoveryCodes.generate(count: 101) }?.code
                == .invalidRecoveryCodeParameters)
        #expect(
            #expect(throws: OTPError.self) { try RecoveryCodes.generate(count: 1, rounds: 999) }?.code
                == .invalidRecoveryCodeParameters)
        let damaged = RecoveryCodeVerifiers(salt: Data(count: 16), rounds: 1, digests: [], createdAt: Date())
        #expect(
            #expect(throws: OTPError.self) { try damaged.digest(of: "7KQM-2XPD-9HTW") }?.code
                == .invalidRecoveryCodeParameters)
    }

    @Test func theInMemoryStorePassesTheSharedCases() async throws {
        try await RecoveryCodeStoreConformance.eachCodeWorksOnce(ExpiringStateRecoveryCodeStore())
        #expect(
            try await RecoveryCodeStoreConformance.oneCodeIsRedeemedOnceUnderConcurrency(
                ExpiringStateRecoveryCodeStore()) == 1)
        // The same on the store built on the key-value primitive.
        let onThePrimitive = ExpiringStateRecoveryCodeStore(state: InMemoryExpiringStateStore(whenFull: .refuse))
        try await RecoveryCodeStoreConformance.eachCodeWorksOnce(onThePrimitive)
        #expect(try await RecoveryCodeStoreConformance.oneCodeIsRedeemedOnceUnderConcurrency(onThePrimitive) == 1)
    }

    /// Wrong codes count against the limit, before the check; then even a
    /// right code is refused until the lock-out ends.
    @Test func guessesStopAtTheLimit() async throws {
        let store = ExpiringStateRecoveryCodeStore()
        let redeemer = RecoveryCodeRedeemer(
            store: store, attemptStore: ExpiringStateTOTPVerificationStore(),
            attemptLimit: try TOTPAttemptLimit(maximumFailures: 3, lockout: .seconds(60)))
        let codes = try await redeemer.regenerate(for: "u1")
        let now = Date()
        for _ in 0..<3 { #expect(try await redeemer.redeem("0000-0000-0000", for: "u1", at: now) == .invalid) }
        #expect(
            await #expect(throws: OTPError.self) { try await redeemer.redeem(codes.codes[0], for: "u1", at: now) }?.code
                == .tooManyAttempts)
        #expect(
            try await redeemer.redeem(codes.codes[0], for: "u1", at: now.addingTimeInterval(61))
                == .redeemed(remaining: 9))
        // A success clears the count.
        #expect(try await redeemer.redeem("0000-0000-0000", for: "u1", at: now.addingTimeInterval(62)) == .invalid)
    }
}
