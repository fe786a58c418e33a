import AdminTestSupport
import Foundation
import IdentityToolkit
import IdentityToolkitEmulator
import Testing

@testable import IdentityAdmin

/// `importUsers(_:options:)`: firebase-admin's checks before sending, the
/// request as Identity Platform takes it, and the result merged from
/// local and server refusals, against the emulator (which verifies the
/// imported hashes, as production does at sign-in).
@Suite struct UserImportTests {
    static let project = "demo-import"

    /// scrypt as firebase/scrypt publishes its example: the hash of
    /// "user1password" under the example project's parameters.
    static let firebaseScrypt = UserImportHash.scrypt(
        key: Data(
            base64Encoded: "jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==")!,
        saltSeparator: Data(base64Encoded: "Bw==")!, rounds: 8, memoryCost: 14)

    @Test func importedUsersSignInWithTheirOldPasswords() async throws {
        try await EmulatorSetup.with(project: Self.project) { setup in
            let records = [
                UserImportRecord(
                    uid: "scrypt-user", email: "Grace@Example.com", emailVerified: true, displayName: "Grace",
                    metadata: UserMetadata(creationTime: Date(timeIntervalSince1970: 1_600_000_000)),
                    providerData: [UserProviderInfo(providerID: "google.com", uid: "g-42", email: "grace@example.com")],
                    customClaims: ["role": .string("admin")],
                    passwordHash: Data(
                        base64Encoded:
                            "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ=="),
                    passwordSalt: Data(base64Encoded: "42xEC+ixf3L2lw=="),
                    phoneFactors: [PhoneFactorImport(phoneNumber: "+15555550100", displayName: "Work phone")]),
                UserImportRecord(uid: "", email: "empty-uid@example.com"),
                UserImportRecord(uid: "bad-phone", phoneNumber: "555"),
                UserImportRecord(uid: "bad-email", email: "a@b"),
            ]
            let result = try await setup.admin.importUsers(
                records, options: UserImportOptions(hash: Self.firebaseScrypt))
            #expect(result.successCount == 1 && result.failureCount == 3)
            // Local refusals and the server's, by the caller's indexes, in order.
            #expect(result.errors.map(\.index) == [1, 2, 3])
            #expect(result.errors[2].message == "email is invalid")

            let user = try await setup.admin.getUser(uid: "scrypt-user")
            #expect(user.email == "grace@example.com" && user.customClaims?["role"] == .string("admin"))
            #expect(user.metadata.creationTime == Date(timeIntervalSince1970: 1_600_000_000))
            #expect(user.multiFactor.enrolledFactors.map(\.factorID) == ["phone"])
            let signedIn = try await setup.accounts.signInWithPassword(
                SignInWithPasswordRequest(email: "grace@example.com", password: "user1password"))
            #expect(signedIn.mfaPendingCredential != nil)
        }
    }

    @Test func checksBeforeSending() async throws {
        let admin = IdentityAdmin.emulator(projectID: Self.project, hostAndPort: "127.0.0.1:9")
        let hashed = [UserImportRecord(uid: "u", passwordHash: Data([1, 2, 3]))]
        await #expect(throws: AdminValidationError.self) { _ = try await admin.importUsers(hashed) }
        await #expect(throws: AdminValidationError.self) {
            _ = try await admin.importUsers(hashed, options: UserImportOptions(hash: .sha256(rounds: 0)))
        }
        await #expect(throws: AdminValidationError.self) {
            _ = try await admin.importUsers(hashed, options: UserImportOptions(hash: .hmacSHA256(key: Data())))
        }
        await #expect(throws: AdminValidationError.self) {
            _ = try await admin.importUsers(
                hashed, options: UserImportOptions(hash: .scrypt(key: Data([1]), rounds: 8, memoryCost: 15)))
        }
        let tooMany = (0...BaseAuth.maximumImportBatch).map { UserImportRecord(uid: "u\($0)") }
        await #expect(throws: AdminValidationError.self) { _ = try await admin.importUsers(tooMany) }
        // Every record refused locally: nothing to send, no request made (the port is closed).
        let result = try await admin.importUsers([UserImportRecord(uid: String(repeating: "x", count: 129))])
        #expect(result.failureCount == 1 && result.successCount == 0)
    }

    /// The request firebase-admin would send: web-safe base64, the
    /// algorithm's parameters.
    @Test func theRequestsHashFields() throws {
        var request = UploadAccountRequest(users: [])
        try UserImportHash.standardScrypt(memoryCost: 1024, parallelization: 2, blockSize: 8, derivedKeyLength: 64)
            .apply(to: &request)
        #expect(
            request.hashAlgorithm == .standardScrypt && request.cpuMemCost == 1024 && request.parallelization == 2
                && request.blockSize == 8 && request.dkLen == 64)
        try Self.firebaseScrypt.apply(to: &request)
        #expect(
            request.hashAlgorithm == .scrypt && request.saltSeparator == "Bw" && request.rounds == 8
                && request.memoryCost == 14)
        let wire = try UserImportRecord(uid: "u", passwordHash: Data([0xFB, 0xFF]), passwordSalt: Data([0xFF])).wire(
            tenantID: "t")
        #expect(wire.passwordHash == "-_8" && wire.salt == "_w" && wire.tenantId == "t")
    }

    @Test func recordsNeverShowHashes() {
        let record = UserImportRecord(uid: "u", passwordHash: Data("hash-bytes".utf8), passwordSalt: Data("salt".utf8))
        var dumped = ""
        dump(record, to: &dumped)
        for text in [
            record.description, String(reflecting: record), dumped,
            UserImportHash.hmacSHA256(key: Data("k3y".utf8)).description,
        ] {
            #expect(!text.contains("hash-bytes") && !text.contains("aGFzaC1ieXRlcw") && !text.contains("k3y"))
        }
    }
}
