import Foundation
import HTTPTypes
import IdentityOTP
import IdentityToolkit
import Testing

@testable import IdentityToolkitEmulator

/// Bulk import (`accounts:batchCreate`), batch delete and query, and the
/// emulator's data in firebase-tools' export format: written, read back,
/// refused when corrupt.
@Suite struct ImportExportTests {
    static let ownerJSON: HTTPFields = [.authorization: "Bearer owner", .contentType: "application/json"]

    static func temporaryFolder(_ name: String = "export") -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("mfa-\(name)-\(UUID().uuidString)")
    }

    // MARK: The import rule

    @Test func importRefusesUsersOneByOneWithProductionsMessages() throws {
        var state = EmulatorState()
        let realm = RuleTests.realm
        _ = try AdminAccountRules.create(
            &state, realm: realm, .init(localId: "taken", email: "taken@example.com"), RuleTests.context())
        let users = [
            UserInfo(
                localId: "ok", email: "New@Example.com", emailVerified: true, displayName: "New",
                rawPassword: "secret-pw"),
            UserInfo(localId: "bad-email", email: "not an address"),
            UserInfo(localId: "dup-email", email: "taken@example.com"),
            UserInfo(localId: "taken"),
            UserInfo(localId: "claims", customAttributes: #"{"sub":"x"}"#),
            UserInfo(localId: "phone", phoneNumber: "12345"),
            UserInfo(
                localId: "mfa-unverified", email: "m@example.com", mfaInfo: [MfaEnrollment(phoneInfo: "+15555550100")]),
            UserInfo(
                localId: "totp-no-secret", email: "t@example.com", emailVerified: true,
                mfaInfo: [MfaEnrollment(totpInfo: TotpInfo())]),
            UserInfo(localId: "other-tenant", tenantId: "elsewhere"),
        ]
        let refusals = try ImportRules.importUsers(&state, realm: realm, users: users, .init(), RuleTests.context())
        #expect(refusals.map(\.index) == Array(1...8))
        #expect(
            refusals.map(\.message) == [
                "email is invalid", "email exists in other account in database",
                "localId belongs to an existing account - can not overwrite.",
                "Custom claims provided include a reserved claim.", "phone number format is invalid",
                "Second factor account requires email to be verified.",
                "TOTP factors cannot be imported without their secret, which only an export of this emulator carries (auth_export/mfa-emulator.json)",
                "Tenant id in userInfo does not match the tenant id in request.",
            ])
        // The accepted user: address lowercased, password usable.
        let imported = try #require(state.user("ok", in: realm))
        #expect(imported.email == "new@example.com" && imported.emailVerified)
        #expect(
            try AccountRules.checkPassword(
                state, realm: realm, email: "new@example.com", password: "secret-pw", RuleTests.context()
            ).localId == "ok")
    }

    @Test func importRequestChecksFailTheWholeRequest() throws {
        var state = EmulatorState()
        let realm = RuleTests.realm
        RuleTests.expectError(.missingUserAccount) {
            _ = try ImportRules.importUsers(&state, realm: realm, users: [], .init(), RuleTests.context())
        }
        RuleTests.expectError(.duplicateLocalId) {
            _ = try ImportRules.importUsers(
                &state, realm: realm, users: [UserInfo(localId: "a"), UserInfo(localId: "a")], .init(),
                RuleTests.context())
        }
        var sanity = ImportRules.Options()
        sanity.sanityCheck = true
        RuleTests.expectError(.duplicateEmail) {
            _ = try ImportRules.importUsers(
                &state, realm: realm,
                users: [
                    UserInfo(localId: "a", email: "x@example.com"),
                    UserInfo(localId: "b", email: "X@example.com"),
                ], sanity, RuleTests.context())
        }
        // A real hash needs its algorithm.
        RuleTests.expectError(.missingHashAlgorithm) {
            _ = try ImportRules.importUsers(
                &state, realm: realm, users: [UserInfo(localId: "a", passwordHash: "c2VjcmV0", salt: "c2FsdA==")],
                .init(), RuleTests.context())
        }
        let tooMany = (0...IdentityPlatformLimits.maximumImportBatch).map { UserInfo(localId: "u\($0)") }
        RuleTests.expectError(.invalidArgument) {
            _ = try ImportRules.importUsers(&state, realm: realm, users: tooMany, .init(), RuleTests.context())
        }
        #expect(state.accounts(in: realm).count == 0)
    }

    // MARK: Over HTTP, as firebase-admin sends it

    @Test func batchCreateWithHashesFactorsAndOverwrite() async throws {
        try await withEmulator { harness in
            let admin = harness.admin
            let project = Harness.project
            try await harness.enableTOTP(phone: true)
            let result = try await admin.importAccounts(
                targetProjectId: project,
                body: UploadAccountRequest(
                    users: [
                        UserInfo(
                            localId: "hmac", email: "hmac@example.com", emailVerified: true,
                            passwordHash: "ZO4Yc03C4IOoQghiswqkORya2cHT1pALvr8XSkge-5A",
                            salt: Data("NaCl-salt".utf8).base64EncodedString(),
                            mfaInfo: [MfaEnrollment(displayName: "Work phone", phoneInfo: "+15555550100")]),
                        // Production's TotpInfo has no secret: a TOTP factor cannot come in over HTTP.
                        UserInfo(
                            localId: "totp", email: "totp@example.com", emailVerified: true,
                            mfaInfo: [
                                MfaEnrollment(mfaEnrollmentId: "totp-1", displayName: "Phone app", totpInfo: TotpInfo())
                            ]),
                    ],
                    hashAlgorithm: .hmacSHA256, signerKey: Data("signer-key-0123".utf8).base64EncodedString(),
                    passwordHashOrder: .saltAndPassword))
            #expect(result.error?.map(\.index) == [1])
            #expect(
                result.error?.first?.message?.hasPrefix("TOTP factors cannot be imported without their secret") == true)
            // The imported password and phone factor sign in.
            let session = Harness.Session(
                uid: "hmac", email: "hmac@example.com", password: "hunter22", idToken: "", refreshToken: "")
            let (_, hints) = try await harness.pendingCredential(session)
            #expect(hints.compactMap(\.displayName) == ["Work phone"])
            // The hash is redacted in lookups as production redacts it.
            let looked = try #require(
                try await admin.lookupAccounts(targetProjectId: project, body: GetAccountInfoRequest(localId: ["hmac"]))
                    .users?.first)
            #expect(looked.passwordHash == "UkVEQUNURUQ=" && looked.salt == nil)

            // Without allowOverwrite an existing uid is refused; with it, replaced.
            let again = try await admin.importAccounts(
                targetProjectId: project,
                body: UploadAccountRequest(users: [UserInfo(localId: "hmac", displayName: "New")]))
            #expect(again.error?.first?.message == "localId belongs to an existing account - can not overwrite.")
            let replaced = try await admin.importAccounts(
                targetProjectId: project,
                body: UploadAccountRequest(
                    users: [UserInfo(localId: "hmac", displayName: "New")],
                    allowOverwrite: true))
            #expect(replaced.error?.isEmpty == true)
            #expect(
                try await admin.lookupAccounts(targetProjectId: project, body: GetAccountInfoRequest(localId: ["hmac"]))
                    .users?.first?.displayName == "New")
        }
    }

    @Test func batchDeleteAndQuery() async throws {
        try await withEmulator { harness in
            let admin = harness.admin
            let project = Harness.project
            let users = (0..<5).map { UserInfo(localId: "u\($0)", disabled: $0 < 2) }
            _ = try await admin.importAccounts(targetProjectId: project, body: UploadAccountRequest(users: users))
            let count = try await admin.queryAccounts(
                targetProjectId: project, body: QueryUserInfoRequest(returnUserInfo: false))
            #expect(count.recordsCount == 5 && count.userInfo == nil)
            let page = try await admin.queryAccounts(
                targetProjectId: project, body: QueryUserInfoRequest(limit: 2, offset: 1))
            #expect(page.userInfo?.map(\.localId) == ["u1", "u2"] && page.recordsCount == 5)
            // Enabled accounts need force; unknown uids are skipped.
            let deleted = try await admin.batchDeleteAccounts(
                targetProjectId: project, body: BatchDeleteAccountsRequest(localIds: ["u0", "u1", "u2", "nobody"]))
            #expect(deleted.errors?.map(\.localId) == ["u2"])
            #expect(deleted.errors?.first?.message == "NOT_DISABLED : Disable the account before batch deletion.")
            _ = try await admin.batchDeleteAccounts(
                targetProjectId: project, body: BatchDeleteAccountsRequest(localIds: ["u2", "u3"], force: true))
            #expect(
                try await admin.queryAccounts(targetProjectId: project, body: QueryUserInfoRequest()).userInfo?.map(
                    \.localId) == ["u4"])
            await expectServerError("LOCAL_ID_LIST_EXCEEDS_LIMIT") {
                try await admin.batchDeleteAccounts(
                    targetProjectId: project, body: BatchDeleteAccountsRequest(localIds: []))
            }
        }
    }

    // MARK: Export and import

    /// Export → import into a new emulator → export: the same files, up to
    /// order; the TOTP factor, the imported hash, the tenant and the
    /// settings survive, and the TOTP factor still signs in.
    @Test func exportImportExportRoundTrip() async throws {
        let first = Self.temporaryFolder()
        let second = Self.temporaryFolder()
        defer {
            try? FileManager.default.removeItem(at: first)
            try? FileManager.default.removeItem(at: second)
        }
        let secret = try await withEmulator(configure: { $0.exportDirectory = first.path }) { harness in
            try await harness.enableTOTP()
            let session = try await harness.verifiedUser("ada@example.com", password: "correct horse")
            let secret = try await harness.enrollTOTP(session).secret
            let tenant = String(
                try await harness.admin.createTenant(
                    project: Harness.project, body: Tenant(displayName: "Shop", allowPasswordSignup: true)
                )
                .name?.split(separator: "/").last ?? "")
            _ = try await harness.admin.importTenantAccounts(
                targetProjectId: Harness.project, tenantId: tenant,
                body: UploadAccountRequest(
                    users: [
                        UserInfo(
                            localId: "sha", email: "sha@example.com",
                            passwordHash: "Z8pSqC9A2zKbUer2/LdJ7Lk1dDoY58y7bDOsVC3040U=",
                            salt: Data("NaCl-salt".utf8).base64EncodedString(),
                            providerUserInfo: [
                                ProviderUserInfo(providerId: "google.com", rawId: "g-123", email: "sha@example.com")
                            ])
                    ],
                    hashAlgorithm: .sha256, rounds: 3, passwordHashOrder: .saltAndPassword))
            _ = try await harness.raw(
                .patch, "/emulator/v1/projects/\(Harness.project)/config",
                body: Data(#"{"emailPrivacyConfig":{"enableImprovedEmailPrivacy":false}}"#.utf8),
                headers: Self.ownerJSON)
            let exported = try await harness.raw(
                .post, "/emulator/v1/export", body: Data(#"{"path":"\#(first.path)"}"#.utf8),
                headers: Self.ownerJSON)
            #expect(exported.status == 200, "\(String(decoding: exported.body, as: UTF8.self))")
            #expect((exported.json["files"] as? [String])?.contains("auth_export/accounts-\(tenant).json") == true)
            // The accounts file is production's shape (an empty totpInfo); the secret is in the extra file.
            let accounts = try String(
                contentsOf: first.appendingPathComponent("auth_export/accounts.json"), encoding: .utf8)
            #expect(
                accounts.contains(#""totpInfo" : {"#) && !accounts.contains(secret)
                    && !accounts.contains("sharedSecretKey"))
            let extras = try JSONDecoder().decode(
                ExportExtras.self, from: Data(contentsOf: first.appendingPathComponent("auth_export/mfa-emulator.json"))
            )
            #expect(extras.totpSecrets?.map(\.sharedSecretKey) == [secret])
            return secret
        }
        try await withEmulator(configure: { $0.importDirectory = first.path }) { harness in
            // The TOTP factor and the imported hash work after the restart.
            let (credential, hints) = try await harness.pendingCredential(
                Harness.Session(
                    uid: "", email: "ada@example.com", password: "correct horse", idToken: "", refreshToken: ""))
            let finished = try await harness.accounts.finalizeMfaSignIn(
                FinalizeMfaSignInRequest(
                    mfaPendingCredential: credential, mfaEnrollmentId: try #require(hints.first?.mfaEnrollmentId),
                    totpVerificationInfo: MfaTotpSignInRequestInfo(verificationCode: try harness.code(secret))))
            #expect(finished.idToken != nil)
            let tenants = try await harness.admin.listTenants(project: Harness.project).tenants ?? []
            let tenant = String(try #require(tenants.first?.name?.split(separator: "/").last))
            #expect(tenants.first?.displayName == "Shop")
            let shaSignIn = try await harness.accounts.signInWithPassword(
                SignInWithPasswordRequest(email: "sha@example.com", password: "hunter22", tenantId: tenant))
            #expect(shaSignIn.idToken != nil)
            // The settings came back: legacy errors.
            await expectServerError("EMAIL_NOT_FOUND") {
                try await harness.accounts.signInWithPassword(
                    SignInWithPasswordRequest(email: "nobody@example.com", password: "whatever1"))
            }
            _ = try await harness.emulator.export(to: second.path)
        }
        #expect(try Self.normalizedExport(first) == Self.normalizedExport(second))
    }

    /// An export of the first format (`swift-identity-mfa-1`) kept each TOTP
    /// secret inline, in `mfaInfo[].totpInfo.sharedSecretKey`: it still
    /// imports whole, and the factor signs in.
    @Test func aFirstFormatExportKeepsItsTOTPFactors() async throws {
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let secret = Base32.encode(try OTPSecret.generate())
        let auth = folder.appendingPathComponent("auth_export")
        try FileManager.default.createDirectory(at: auth, withIntermediateDirectories: true)
        try Data(
            #"{"version":"swift-identity-mfa-1","auth":{"version":"swift-identity-mfa-1","path":"auth_export"}}"#.utf8
        )
        .write(to: folder.appendingPathComponent("firebase-export-metadata.json"))
        try Data(
            #"{"mfa":{"state":"ENABLED","providerConfigs":[{"state":"ENABLED","totpProviderConfig":{"adjacentIntervals":5}}]},"tenants":[],"passwordHashes":[]}"#
                .utf8
        )
        .write(to: auth.appendingPathComponent("mfa-emulator.json"))
        let accounts =
            #"{"kind":"identitytoolkit#DownloadAccountResponse","users":[{"localId":"old-totp","email":"old@example.com","emailVerified":true,"#
            + #""passwordHash":"fakeHash:salt=s1:password=correct horse","salt":"s1","#
            + #""mfaInfo":[{"mfaEnrollmentId":"totp-old","displayName":"Old app","totpInfo":{"sharedSecretKey":"\#(secret)"}}]}]}"#
        try Data(accounts.utf8).write(to: auth.appendingPathComponent("accounts.json"))
        try await withEmulator(configure: { $0.importDirectory = folder.path }) { harness in
            let (credential, hints) = try await harness.pendingCredential(
                Harness.Session(
                    uid: "old-totp", email: "old@example.com", password: "correct horse",
                    idToken: "", refreshToken: ""))
            #expect(hints.map(\.mfaEnrollmentId) == ["totp-old"])
            let finished = try await harness.accounts.finalizeMfaSignIn(
                FinalizeMfaSignInRequest(
                    mfaPendingCredential: credential, mfaEnrollmentId: "totp-old",
                    totpVerificationInfo: MfaTotpSignInRequestInfo(verificationCode: try harness.code(secret))))
            #expect(finished.idToken != nil)
        }
    }

    /// Every file of an export as JSON, with the fields a sign-in changes
    /// (lastLoginAt, lastRefreshAt) left out.
    static func normalizedExport(_ folder: URL) throws -> [String: NSDictionary] {
        var files: [String: NSDictionary] = [:]
        for path in try FileManager.default.subpathsOfDirectory(atPath: folder.path) where path.hasSuffix(".json") {
            var object = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent(path)))
                    as? [String: Any])
            if var users = object["users"] as? [[String: Any]] {
                for index in users.indices {
                    users[index]["lastLoginAt"] = nil
                    users[index]["lastRefreshAt"] = nil
                }
                object["users"] = users.sorted { ($0["localId"] as? String ?? "") < ($1["localId"] as? String ?? "") }
            }
            files[path] = object as NSDictionary
        }
        return files
    }

    /// A folder as Google's emulator writes it (firebase-tools' hubExport
    /// and the Auth emulator's batchGet: fakeHash passwords, a phone factor
    /// with its unobfuscated number, a linked google.com account, a phone
    /// user, a tenant's file), loaded as `--import` loads it.
    static let firebaseToolsFixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/firebase-tools-export")

    @Test func firebaseToolsExportLoads() async throws {
        try await withEmulator(configure: { $0.importDirectory = Self.firebaseToolsFixture.path }) { harness in
            let admin = harness.admin
            let project = Harness.project
            let users = try await admin.batchGetAccounts(targetProjectId: project, maxResults: 100).users ?? []
            #expect(
                users.map(\.localId) == [
                    "Hb4mCWJOM9yBq1Xp7iRfbwI9tUn2", "googleUser0000000000000000001", "phoneUser00000000000000000001",
                ])
            let grace = try #require(users.first)
            #expect(
                grace.displayName == "Grace Hopper" && grace.customAttributes == #"{"admiral":true}"#
                    && grace.createdAt == 1_732_400_000_000)
            #expect(
                grace.mfaInfo?.first?.phoneInfo == "+15555550123"
                    && grace.mfaInfo?.first?.mfaEnrollmentId == "mfa-phone-1")
            #expect(users[1].providerUserInfo?.map(\.providerId) == ["google.com"])
            #expect(users[2].phoneNumber == "+15555550199" && users[2].disabled == true)
            // config.json said legacy errors; the fakeHash password signs in.
            await expectServerError("INVALID_PASSWORD") {
                try await harness.accounts.signInWithPassword(
                    SignInWithPasswordRequest(email: "grace@example.com", password: "wrong-one"))
            }
            let pending = try await harness.accounts.signInWithPassword(
                SignInWithPasswordRequest(email: "grace@example.com", password: "cobol-1959"))
            #expect(pending.mfaPendingCredential != nil)
            // The tenant named only by its file exists now, with its user.
            #expect(
                try await admin.getTenant(project: project, tenant: "tenant-a1b2c").name
                    == "projects/\(project)/tenants/tenant-a1b2c")
            let tenantSignIn = try await harness.accounts.signInWithPassword(
                SignInWithPasswordRequest(
                    email: "t@example.com", password: "tenant-pw-1",
                    tenantId: "tenant-a1b2c"))
            #expect(tenantSignIn.idToken != nil)
        }
    }

    /// A corrupt or foreign folder: nothing starts, and the error names the
    /// file and the field.
    @Test(arguments: [
        ("firebase-export-metadata.json", "{}", "firebase-export-metadata.json: auth is missing"),
        ("firebase-export-metadata.json", "not json", "firebase-export-metadata.json is not valid JSON"),
        (
            "firebase-export-metadata.json", #"{"auth":{"path":"../elsewhere"}}"#,
            "auth.path must be a folder inside the export"
        ),
        (
            "auth_export/accounts.json", #"{"users":[{"localId":"a"},{"localId":"b","createdAt":"yesterday"}]}"#,
            "auth_export/accounts.json: users[1].createdAt"
        ),
        (
            "auth_export/accounts.json", #"{"users":[{"email":"x@example.com"}]}"#,
            "auth_export/accounts.json: users[0].localId is missing"
        ),
        (
            "auth_export/accounts.json", #"{"users":[{"localId":"a","email":"not-an-address"}]}"#,
            "auth_export/accounts.json: users[0] email is invalid"
        ),
        (
            "auth_export/config.json", #"{"signIn":{"allowDuplicateEmails":"yes"}}"#,
            "auth_export/config.json: signIn.allowDuplicateEmails is not a Bool"
        ),
    ])
    func corruptImportIsRefusedNamingFileAndField(file: String, contents: String, message: String) throws {
        let folder = Self.temporaryFolder("corrupt")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("auth_export"), withIntermediateDirectories: true)
        try Data(#"{"version":"13.29.1","auth":{"version":"13.29.1","path":"auth_export"}}"#.utf8)
            .write(to: folder.appendingPathComponent("firebase-export-metadata.json"))
        try Data(contents.utf8).write(to: folder.appendingPathComponent(file))
        var configuration = EmulatorConfiguration(port: 0)
        configuration.importDirectory = folder.path
        do {
            _ = try IdentityToolkitEmulator(configuration: configuration)
            Issue.record("expected the import to be refused")
        } catch let error as EmulatorImportError {
            #expect(error.description.contains(message), "\(error)")
        }
    }

    @Test func missingImportFolderIsRefused() {
        var configuration = EmulatorConfiguration(port: 0)
        configuration.importDirectory = "/nonexistent/export"
        #expect(throws: EmulatorImportError.self) { _ = try IdentityToolkitEmulator(configuration: configuration) }
    }

    /// An export replaces a previous export whole and leaves nothing beside
    /// it; its files are the owner's only.
    @Test func exportReplacesAPreviousExportAndKeepsItPrivate() async throws {
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withEmulator { harness in
            _ = try await harness.verifiedUser()
            let files = try await harness.emulator.export(to: folder.path)
            #expect(
                Set(files) == [
                    "firebase-export-metadata.json", "auth_export/config.json", "auth_export/accounts.json",
                    "auth_export/mfa-emulator.json",
                ])
            _ = try await harness.verifiedUser("second@example.com")
            _ = try await harness.emulator.export(to: folder.path)
        }
        let accounts = try Data(contentsOf: folder.appendingPathComponent("auth_export/accounts.json"))
        #expect(
            String(decoding: accounts, as: UTF8.self).contains("second@example.com"),
            "the second export replaced the first")
        let siblings = try FileManager.default.contentsOfDirectory(atPath: folder.deletingLastPathComponent().path)
        #expect(!siblings.contains { $0.hasPrefix(".\(folder.lastPathComponent).") })
        let permissions =
            try FileManager.default.attributesOfItem(
                atPath: folder.appendingPathComponent("auth_export/accounts.json").path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
    }

    /// A folder with anything an export does not write (a home folder, a
    /// project, another emulator's export) is never replaced: `--export-on-exit ~`
    /// once deleted a home folder at exit.
    static func folderWithUserFiles() throws -> URL {
        let folder = temporaryFolder("home")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try Data("keep me".utf8).write(to: folder.appendingPathComponent("important.txt"))
        return folder
    }

    static func expectUntouched(_ folder: URL, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(
            (try? String(contentsOf: folder.appendingPathComponent("important.txt"), encoding: .utf8)) == "keep me",
            sourceLocation: sourceLocation)
        #expect(
            FileManager.default.fileExists(atPath: folder.appendingPathComponent("sub").path),
            sourceLocation: sourceLocation)
        #expect(
            !FileManager.default.fileExists(atPath: folder.appendingPathComponent(EmulatorExport.metadataFile).path),
            sourceLocation: sourceLocation)
    }

    @Test func anExportNeverReplacesAFolderItDidNotWrite() async throws {
        let folder = try Self.folderWithUserFiles()
        let tenantsExport = Self.temporaryFolder("other-emulator")
        defer {
            try? FileManager.default.removeItem(at: folder)
            try? FileManager.default.removeItem(at: tenantsExport)
        }
        // Another emulator's data beside an export is not ours to delete either.
        try FileManager.default.createDirectory(
            at: tenantsExport.appendingPathComponent("firestore_export"), withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: tenantsExport.appendingPathComponent(EmulatorExport.metadataFile))
        let file = folder.appendingPathComponent("important.txt")
        try await withEmulator { harness in
            for target in [folder, tenantsExport, file] {
                do {
                    _ = try await harness.emulator.export(to: target.path)
                    Issue.record("exported over \(target.path)")
                } catch let error as EmulatorExportError {
                    #expect(error.description.hasPrefix("cannot export to \(target.path): "), "\(error)")
                }
            }
        }
        Self.expectUntouched(folder)
        #expect(FileManager.default.fileExists(atPath: tenantsExport.appendingPathComponent("firestore_export").path))
        // The refusal names what it found.
        #expect(
            throws: EmulatorExportError(
                "cannot export to \(folder.path): it holds files an export does not write (important.txt, sub/); name a missing or empty folder, or a previous export"
            )
        ) {
            try ExportTarget.check(folder)
        }
    }

    /// `--export-on-exit` with such a folder stops the emulator before it starts.
    @Test func exportOnExitToAFolderOfUserFilesIsRefusedAtStart() throws {
        let folder = try Self.folderWithUserFiles()
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = EmulatorConfiguration(port: 0)
        configuration.exportOnExitDirectory = folder.path
        #expect(throws: EmulatorConfigurationError.self) {
            _ = try IdentityToolkitEmulator(configuration: configuration)
        }
        do {
            _ = try IdentityToolkitEmulator(configuration: configuration)
        } catch {
            #expect("\(error)".contains("cannot export to \(folder.path): it holds files an export does not write"))
        }
        Self.expectUntouched(folder)
        // An empty folder and a missing one are fine.
        let empty = Self.temporaryFolder("empty")
        defer { try? FileManager.default.removeItem(at: empty) }
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        for target in [empty, Self.temporaryFolder("missing")] {
            configuration.exportOnExitDirectory = target.path
            _ = try IdentityToolkitEmulator(configuration: configuration)
        }
    }

    /// The export route writes only into the folder given at start.
    @Test func theExportRouteWritesOnlyUnderTheFolderGivenAtStart() async throws {
        let root = Self.temporaryFolder("root")
        let outside = try Self.folderWithUserFiles()
        defer {
            try? FileManager.default.removeItem(at: root)
            try? FileManager.default.removeItem(at: outside)
        }
        @Sendable func export(_ harness: Harness, _ path: String) async throws -> (status: Int, message: String) {
            let response = try await harness.raw(
                .post, "/emulator/v1/export", body: try JSONEncoder().encode(["path": path]), headers: Self.ownerJSON)
            let message = (response.json["error"] as? [String: Any])?["message"] as? String ?? ""
            return (response.status, message)
        }
        try await withEmulator { harness in
            let refused = try await export(harness, root.path)
            #expect(
                refused.status == 400 && refused.message.hasPrefix("FAILED_PRECONDITION : no export folder"),
                "\(refused)")
        }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: root.appendingPathComponent("escape"), withDestinationURL: outside)
        try await withEmulator(configure: { $0.exportDirectory = root.path }) { harness in
            for path in [
                outside.path, "/", root.path + "/../" + outside.lastPathComponent,
                root.appendingPathComponent("escape").path, "escape/inner",
            ] {
                let refused = try await export(harness, path)
                #expect(
                    refused.status == 400 && refused.message.hasPrefix("INVALID_ARGUMENT : cannot export to \(path): "),
                    "\(path): \(refused)")
            }
            #expect(try await export(harness, "today").status == 200, "a path relative to the root")
            #expect(try await export(harness, root.appendingPathComponent("nested/deeper").path).status == 200)
            #expect(try await export(harness, "today").status == 200, "a previous export is replaced")
            // The root holds folders of exports now: it is no export itself, and is not replaced.
            let refused = try await export(harness, root.path)
            #expect(
                refused.status == 400
                    && refused.message.hasPrefix("FAILED_PRECONDITION : cannot export to \(root.path): it holds files"),
                "\(refused)")
        }
        Self.expectUntouched(outside)
        #expect(
            FileManager.default.fileExists(
                atPath: root.appendingPathComponent("today/\(EmulatorExport.metadataFile)").path))
    }
}
