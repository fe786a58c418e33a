/// swift-crypto's HMAC, the reference for the precomputed-state fast paths.
import Crypto
import Foundation
import IdentityToolkitTestSupport
import SeededRandom
import Testing

@testable import IdentityOTP

@Suite struct HOTPTOTPTests {
    static let rfcSHA1 = Array("12345678901234567890".utf8)
    static let rfcSHA256 = Array("12345678901234567890123456789012".utf8)
    static let rfcSHA512 = Array((String(repeating: "1234567890", count: 6) + "1234").utf8)

    @Test func rfc4226AppendixD() throws {
        let hotp = try HOTP(key: Self.rfcSHA1)
        let expected = [
            "755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489",
            "403154",
        ]
        for (counter, code) in expected.enumerated() {
            #expect(hotp.code(counter: UInt64(counter)) == code)
        }
    }

    @Test(arguments: [
        (Int64(59), "94287082", "46119246", "90693936"),
        (1_111_111_109, "07081804", "68084774", "25091201"),
        (1_111_111_111, "14050471", "67062674", "99943326"),
        (1_234_567_890, "89005924", "91819424", "93441116"),
        (2_000_000_000, "69279037", "90698825", "38618901"),
        (20_000_000_000, "65353130", "77737706", "47863826"),
    ])
    func rfc6238AppendixB(time: Int64, sha1: String, sha256: String, sha512: String) throws {
        #expect(try TOTP(key: Self.rfcSHA1, algorithm: .sha1, digits: 8).code(at: time) == sha1)
        #expect(try TOTP(key: Self.rfcSHA256, algorithm: .sha256, digits: 8).code(at: time) == sha256)
        #expect(try TOTP(key: Self.rfcSHA512, algorithm: .sha512, digits: 8).code(at: time) == sha512)
    }

    @Test func pyotpInteropPoint() throws {
        // pyotp's 80-bit example secret: an import of an older entry.
        let key = try Base32.decode("wrn3pqx5uqxqvnqr")
        #expect(try TOTP(key: key, keyLengthPolicy: .legacyImport).code(at: 1_297_553_958) == "102705")
    }

    /// A key as an authenticator app shows it (grouped, lower case, padded)
    /// gives the RFC 6238 codes of the same key; a bad character is refused
    /// by position, without showing it.
    @Test func aBase32SecretAsAppsShowItGivesTheCodes() throws {
        let shown = Base32.encode(Self.rfcSHA1, padding: true).lowercased()
        let grouped = stride(from: 0, to: shown.count, by: 4).map { offset in
            String(shown.dropFirst(offset).prefix(4))
        }.joined(separator: " ")
        #expect(try TOTP(base32Secret: grouped, digits: 8).code(at: 59) == "94287082")
        #expect(try TOTP(base32Secret: shown, digits: 8).code(at: 1_111_111_109) == "07081804")
        do {
            _ = try TOTP(base32Secret: "GEZDGNBVGY3TQOJQ1EZDGNBVGY3TQOJQ")
            Issue.record("a '1' was accepted")
        } catch let error as Base32Error {
            #expect(error.description.contains("17") && !error.description.contains("\"1\""), "\(error)")
        }
        #expect(throws: OTPError.self) { try TOTP(base32Secret: "GEZDGNBV") } // 5 bytes: too short
    }

    @Test func pyotpFixtures() throws {
        let cases = try Fixture.load("pyotp-codes.json", as: [Fixture.Code].self)
        #expect(cases.count >= 500)
        #expect(cases.contains { $0.time > Int64(UInt32.max) })
        for item in cases {
            let algorithm = try #require(HashAlgorithm(name: item.algorithm))
            let totp = try TOTP(
                key: try Base32.decode(item.secret), algorithm: algorithm, digits: item.digits, period: item.period)
            #expect(
                try totp.code(at: item.time) == item.code,
                "\(item.algorithm) \(item.digits) digits, period \(item.period), t=\(item.time)")
        }
    }

    @Test func timesPast2038And2106AndCustomT0() throws {
        let totp = try TOTP(key: Self.rfcSHA1, digits: 8)
        #expect(try totp.step(at: 4_294_967_296) == 143_165_576)
        #expect(try totp.step(at: Int64.max) == UInt64(Int64.max) / 30)
        let shifted = try TOTP(key: Self.rfcSHA1, digits: 8, t0: 1_000)
        #expect(try shifted.code(at: 1_059) == "94287082")
        #expect(throws: OTPError.timeBeforeEpoch) { try shifted.code(at: 999) }
        let negative = try TOTP(key: Self.rfcSHA1, digits: 8, t0: -1_000_000)
        #expect(try negative.step(at: Int64.max) == (UInt64(Int64.max) + 1_000_000) / 30)
    }

    @Test func invalidParametersAreRefused() {
        #expect(throws: OTPError.invalidDigits(5)) { try HOTP(key: Self.rfcSHA1, digits: 5) }
        #expect(throws: OTPError.invalidDigits(9)) { try HOTP(key: Self.rfcSHA1, digits: 9) }
        #expect(throws: OTPError.invalidPeriod(0)) { try TOTP(key: Self.rfcSHA1, period: 0) }
        // RFC 4226 §4 (R6): 128 bits at least, unless the caller opts out for an import.
        #expect(throws: OTPError.secretTooShort(byteCount: 0, minimum: 16)) { try HOTP(key: [UInt8]()) }
        #expect(throws: OTPError.secretTooShort(byteCount: 1, minimum: 16)) { try HOTP(key: [0x42]) }
        #expect(throws: OTPError.secretTooShort(byteCount: 15, minimum: 16)) {
            try TOTP(key: [UInt8](repeating: 1, count: 15))
        }
        #expect(throws: OTPError.secretTooShort(byteCount: 0, minimum: 1)) {
            try HOTP(key: [UInt8](), keyLengthPolicy: .legacyImport)
        }
        #expect((try? HOTP(key: [0x42], keyLengthPolicy: .legacyImport)) != nil)
        #expect((try? HOTP(key: [UInt8](repeating: 1, count: 16))) != nil)
    }

    @Test func sevenDigitsAndKeysOfEveryLength() throws {
        // RFC 4226 Appendix D truncated values 1284755224, 1094287082, 137359152 modulo 10^7.
        let seven = try HOTP(key: Self.rfcSHA1, digits: 7)
        #expect((0..<3).map { seven.code(counter: UInt64($0)) } == ["4755224", "4287082", "7359152"])
        // Keys shorter than, equal to and longer than the block are all valid HMAC keys.
        for length in [1, 19, 20, 63, 64, 65, 128, 129, 300] {
            let key = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            for algorithm in HashAlgorithm.allCases {
                let mac = PrecomputedHMAC(key: key, algorithm: algorithm).mac(counter: 42)
                #expect(
                    mac == ReferenceHMAC.mac(key: key, counter: 42, algorithm: algorithm),
                    "\(algorithm) key of \(length) bytes")
            }
        }
    }

    @Test(arguments: 0...10)
    func windowAcceptsExactlyItsSteps(window: Int) throws {
        let totp = try TOTP(key: Self.rfcSHA1)
        let now: Int64 = 1_700_000_000
        let step = try totp.step(at: now)
        for offset in -(window + 1)...(window + 1) {
            let code = totp.code(step: UInt64(Int64(step) + Int64(offset)))
            let matched = try totp.matchingStep(for: code, at: now, window: window)
            if abs(offset) <= window {
                #expect(matched == UInt64(Int64(step) + Int64(offset)), "offset \(offset) should be accepted")
            } else {
                // Another step in the window could share the code only by a 1e-6 chance; this key has no such collision.
                #expect(matched == nil, "offset \(offset) should be refused")
            }
        }
    }

    @Test func malformedCodesNeverMatch() throws {
        let totp = try TOTP(key: Self.rfcSHA1)
        let code = try totp.code(at: 59)
        for bad in ["", "12345", "1234567", "12a456", " " + code, code + " ", "１２３４５６"] {
            #expect(try totp.matchingStep(for: bad, at: 59, window: 1) == nil)
        }
        #expect(throws: OTPError.invalidWindow(11)) { try totp.matchingStep(for: code, at: 59, window: 11) }
        #expect(throws: OTPError.invalidWindow(-1)) { try totp.matchingStep(for: code, at: 59, window: -1) }
        // Near step 0 the window does not reach below zero.
        #expect(try totp.matchingStep(for: code, at: 59, window: 10) == 1)
    }

    @Test func secretsComeFromTheCSPRNG() throws {
        #expect(try OTPSecret.generate().count == 20)
        #expect(try OTPSecret.generate(byteCount: 16).count == 16)
        #expect(try OTPSecret.generate(byteCount: 64).count == 64)
        #expect(throws: OTPError.secretTooShort(byteCount: 15, minimum: 16)) { try OTPSecret.generate(byteCount: 15) }
        let secrets = try Set((0..<100).map { _ in try OTPSecret.generate() })
        #expect(secrets.count == 100)
    }

    @Test func codeFormatting() {
        #expect(OTPCode.format(0, digits: 6) == "000000")
        #expect(OTPCode.format(42, digits: 8) == "00000042")
        #expect(OTPCode.parse("000042", digits: 6) == 42)
        #expect(OTPCode.parse("00042", digits: 6) == nil)
    }
}

enum ReferenceHMAC {
    static func mac(key: [UInt8], counter: UInt64, algorithm: HashAlgorithm) -> [UInt8] {
        let message = withUnsafeBytes(of: counter.bigEndian) { Array($0) }
        let symmetric = SymmetricKey(data: key)
        switch algorithm {
        case .sha1: return Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: symmetric))
        case .sha256: return Array(HMAC<SHA256>.authenticationCode(for: message, using: symmetric))
        case .sha512: return Array(HMAC<SHA512>.authenticationCode(for: message, using: symmetric))
        }
    }
}

/// The precomputed-state HMAC against swift-crypto's `HMAC` on random keys
/// and counters from a fixed seed; a mismatch names the input. Seconds of
/// hashing in a debug build, so off the cooperative pool.
@Suite struct HashCrossCheckTests {
    @Test(arguments: [HashAlgorithm.sha1, .sha256, .sha512])
    func precomputedStatesMatchSwiftCryptoHMAC(algorithm: HashAlgorithm) async throws {
        let mismatch: String? = try await offThePool {
            var generator = SeededGenerator(seed: 2026)
            let lengths = [1, 10, 20, 32, 63, 64, 65, 100, 127, 128, 129, 200]
            for index in 0..<20_000 {
                let key = (0..<lengths[index % lengths.count]).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let counter = UInt64.random(in: 0...UInt64.max, using: &generator)
                let fast = PrecomputedHMAC(key: key, algorithm: algorithm)
                let expected = ReferenceHMAC.mac(key: key, counter: counter, algorithm: algorithm)
                let truncated = expected.withUnsafeBytes { PrecomputedHMAC.truncate($0) }
                guard fast.mac(counter: counter) == expected, fast.truncated(counter: counter) == truncated else {
                    return
                        "\(algorithm) mismatch for key \(key.map { String(format: "%02x", $0) }.joined()) counter \(counter)"
                }
            }
            return nil
        }
        #expect(mismatch == nil, "\(mismatch ?? "")")
    }
}

@Suite struct EqualityMaskTests {
    @Test func maskIsAllOnesExactlyForEqualValues() {
        let values: [UInt32] = [0, 1, 2, 999_999, 1 << 31, UInt32.max, UInt32.max - 1, 123_456]
        for a in values {
            for b in values {
                #expect(OTPCode.equalityMask(a, b) == (a == b ? UInt64.max : 0), "\(a) vs \(b)")
                #expect(OTPCode.constantTimeEquals(a, b) == (a == b))
            }
        }
    }
}
