import Foundation
import IdentityToolkit
import Testing

@testable import IdentityToolkitEmulator

/// Imported password hashes, checked against vectors computed outside this
/// package (Python's hashlib and hmac for the standard algorithms; the
/// example firebase/scrypt publishes for Firebase's modified scrypt), so a
/// wrong parameter order or round count here cannot agree with itself.
@Suite struct PasswordHashTests {
    static let password = "hunter22"
    static let salt = Data("NaCl-salt".utf8)
    static let key = Data("signer-key-0123".utf8)

    static func stored(
        _ hash: String, _ algorithm: PasswordHashAlgorithm, salt: Data = salt,
        _ edit: (inout PasswordHashParameters) -> Void = { _ in }
    ) throws -> StoredPassword {
        var parameters = PasswordHashParameters()
        edit(&parameters)
        return .imported(
            ImportedPasswordHash(
                hash: try #require(Data(base64Encoded: hash)), salt: salt, algorithm: algorithm, parameters: parameters)
        )
    }

    static let vectors: [(String, PasswordHashAlgorithm, String, @Sendable (inout PasswordHashParameters) -> Void)] = [
        (
            "HMAC-SHA256, salt first", .hmacSHA256, "ZO4Yc03C4IOoQghiswqkORya2cHT1pALvr8XSkge+5A=",
            {
                $0.signerKey = key
                $0.passwordFirst = false
            }
        ),
        (
            "HMAC-SHA512, password first", .hmacSHA512,
            "wG48jA/MrjxAn3CJHK8jnqw90ExuGN5TEYhhYASmXuBVgYcxsLrv8cDiTDMbgRza8ezkllfLabz9YwrOlvVIhw==",
            {
                $0.signerKey = key
                $0.passwordFirst = true
            }
        ),
        ("HMAC-MD5, order left open", .hmacMD5, "m4jNePBC4XtFIRIHM6gkcQ==", { $0.signerKey = key }),
        (
            "SHA256, 3 rounds", .sha256, "Z8pSqC9A2zKbUer2/LdJ7Lk1dDoY58y7bDOsVC3040U=",
            {
                $0.rounds = 3
                $0.passwordFirst = false
            }
        ),
        (
            "SHA512, 1 round, password first", .sha512,
            "vIiCCeQ9eHqBkWPH+Q8GiaBCJB567Xc3IF52xznICCgdAgsv9ZRvr5kKzYXalklHEtb2+s81KAXwDD7wQUsdbw==",
            {
                $0.rounds = 1
                $0.passwordFirst = true
            }
        ),
        ("SHA1, 2 rounds", .sha1, "yjXtbiSZcwBWvNyePHu6oQtLoDA=", { $0.rounds = 2 }),
        ("MD5, 0 rounds (one hash)", .md5, "G17ZCCtuJqSTEKDua862KQ==", { $0.rounds = 0 }),
        (
            "PBKDF2-SHA256, 1000 rounds", .pbkdf2SHA256, "N49pK4Z1HIYJXYzNgFxkUuiAwfLvHdHCqSk61VMe6l8=",
            { $0.rounds = 1000 }
        ),
        ("PBKDF-SHA1, 1000 rounds", .pbkdfSHA1, "mm06IwE6NMyUtCTxpASnhlEF7eQ=", { $0.rounds = 1000 }),
        (
            "standard scrypt N=1024 r=8 p=1", .standardScrypt,
            "5cUYhoGqu4Qfygj9Qo+hzQ9pf1p6stjxHhPcrJzy5g7d6eE4vOT1IxTiBfQbhOF66AY5IBl1jU96dot0lhgbQw==",
            {
                $0.cpuMemCost = 1024
                $0.blockSize = 8
                $0.parallelization = 1
                $0.derivedKeyLength = 64
            }
        ),
    ]

    @Test(arguments: vectors.indices)
    func importedHashesVerify(index: Int) throws {
        let (name, algorithm, hash, edit) = Self.vectors[index]
        let stored = try Self.stored(hash, algorithm, edit)
        #expect(PasswordRules.check(Self.password, against: stored) == .matches, "\(name)")
        #expect(PasswordRules.check(Self.password + "!", against: stored) == .doesNotMatch, "\(name)")
    }

    /// The example firebase/scrypt's README publishes: scrypt with the salt
    /// and separator, then AES-256-CTR over the project's signer key.
    @Test func firebaseModifiedScrypt() throws {
        let stored = try Self.stored(
            "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==", .scrypt,
            salt: try #require(Data(base64Encoded: "42xEC+ixf3L2lw=="))
        ) {
            $0.signerKey = Data(
                base64Encoded:
                    "jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==")
            $0.saltSeparator = Data(base64Encoded: "Bw==")
            $0.rounds = 8
            $0.memoryCost = 14
        }
        #expect(PasswordRules.check("user1password", against: stored) == .matches)
        #expect(PasswordRules.check("user1passwore", against: stored) == .doesNotMatch)
    }

    /// BCRYPT (no swift-crypto implementation) and a hash without its
    /// algorithm are kept, but a sign-in with them says why it cannot work.
    @Test func unverifiableHashesSayWhy() throws {
        let bcrypt = try Self.stored("JDJhJDEwJGFiY2RlZmdoaWprbG1ub3BxcnN0dXU=", .bcrypt)
        guard case .cannotVerify(let reason) = PasswordRules.check(Self.password, against: bcrypt) else {
            Issue.record("expected cannotVerify")
            return
        }
        #expect(reason.contains("BCRYPT") && !reason.contains(Self.password))
        let unknown = StoredPassword.imported(
            ImportedPasswordHash(hash: Data([1, 2, 3]), salt: Data(), algorithm: nil))
        guard case .cannotVerify(let why) = PasswordRules.check(Self.password, against: unknown) else {
            Issue.record("expected cannotVerify")
            return
        }
        #expect(why.contains("without its algorithm"))
    }

    /// Google's emulator's form reads back, a password with colons included.
    @Test func googleEmulatorForm() {
        let stored = StoredPassword.parseEmulatorForm("fakeHash:salt=fakeSaltXYZ:password=a:b:password=c")
        #expect(stored == .emulator(password: "a:b:password=c", salt: "fakeSaltXYZ"))
        #expect(stored?.exportedHash == "fakeHash:salt=fakeSaltXYZ:password=a:b:password=c")
        #expect(StoredPassword.parseEmulatorForm("c2VjcmV0") == nil)
        #expect(StoredPassword.parseEmulatorForm("fakeHash:salt=only") == nil)
        let fresh = StoredPassword.emulator("pw-123456")
        guard case .emulator(let password, let salt) = fresh else {
            Issue.record("expected the emulator form")
            return
        }
        #expect(password == "pw-123456" && salt.hasPrefix("fakeSalt"))
    }

    /// Request parameters as production checks them, before any user.
    @Test func importParametersAreChecked() throws {
        func expect(
            _ code: APIServerError, _ request: UploadAccountRequest, sourceLocation: SourceLocation = #_sourceLocation
        ) {
            RuleTests.expectError(code, sourceLocation: sourceLocation) {
                _ = try PasswordRules.parameters(of: request)
            }
        }
        let users = [UserInfo(localId: "u")]
        expect(.missingHashKey, UploadAccountRequest(users: users, hashAlgorithm: .hmacSHA256))
        expect(
            .invalidHashKey, UploadAccountRequest(users: users, hashAlgorithm: .hmacSHA256, signerKey: "not base64!"))
        expect(.invalidHashRounds, UploadAccountRequest(users: users, hashAlgorithm: .sha256, rounds: 0))
        expect(
            .invalidHashRounds,
            UploadAccountRequest(users: users, hashAlgorithm: .scrypt, signerKey: "a2V5", rounds: 9, memoryCost: 14))
        expect(
            .invalidHashMemoryCost,
            UploadAccountRequest(users: users, hashAlgorithm: .scrypt, signerKey: "a2V5", rounds: 8, memoryCost: 15))
        expect(
            .invalidHashBlockSize,
            UploadAccountRequest(
                users: users, hashAlgorithm: .standardScrypt, cpuMemCost: 1024, parallelization: 1, blockSize: 0,
                dkLen: 64))
        expect(
            .invalidHashAlgorithm,
            UploadAccountRequest(users: users, hashAlgorithm: PasswordHashAlgorithm(rawValue: "ARGON2")))
        // Parameters that would make one wrong-password sign-in take seconds and gigabytes.
        func scrypt(n: Int32, r: Int32, p: Int32) -> UploadAccountRequest {
            UploadAccountRequest(
                users: users, hashAlgorithm: .standardScrypt, cpuMemCost: n, parallelization: p, blockSize: r, dkLen: 64
            )
        }
        for (n, r, p) in [(1 << 20, 64, 16), (1 << 20, 1, 1), (1 << 17, 8, 1), (1 << 16, 16, 2), (1 << 14, 8, 16)]
            as [(Int32, Int32, Int32)]
        {
            do {
                _ = try PasswordRules.parameters(of: scrypt(n: n, r: r, p: p))
                Issue.record("N=\(n) r=\(r) p=\(p) was accepted")
            } catch let error as APIServerError {
                #expect(error.shortCode == "INVALID_ARGUMENT")
                #expect("\(error)".contains("cpuMemCost × blockSize"), "the message names the fields: \(error)")
            }
        }
        // Firebase's own hash (N=2^14, r=8, p=1) and up to eight times its work are taken.
        for (n, r, p) in [(1 << 14, 8, 1), (1 << 16, 8, 2), (1 << 19, 1, 2)] as [(Int32, Int32, Int32)] {
            #expect(try PasswordRules.parameters(of: scrypt(n: n, r: r, p: p)) != nil)
        }
        let sha = try #require(
            try PasswordRules.parameters(
                of: UploadAccountRequest(
                    users: users, hashAlgorithm: .sha512, rounds: 4,
                    passwordHashOrder: .passwordAndSalt)))
        #expect(sha.algorithm == .sha512 && sha.parameters.rounds == 4 && sha.parameters.passwordFirst == true)
        // Admin SDKs send web-safe base64.
        let hmac = try #require(
            try PasswordRules.parameters(
                of: UploadAccountRequest(users: users, hashAlgorithm: .hmacSHA256, signerKey: "-_8")))
        #expect(hmac.parameters.signerKey == Data([0xFB, 0xFF]))
    }
}
