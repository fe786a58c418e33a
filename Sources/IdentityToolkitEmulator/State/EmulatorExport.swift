import Foundation
import IdentityToolkit
import IdentityOTPFormats

/// The emulator's state in firebase-tools' export format (`firebase
/// emulators:export`, `--import`), so that data moves both ways between
/// this emulator and Google's:
///
/// ```
/// DIR/firebase-export-metadata.json     ExportMetadata: auth.path is "auth_export"
/// DIR/auth_export/config.json           GET /emulator/v1/projects/{p}/config
/// DIR/auth_export/accounts.json         accounts:batchGet?maxResults=-1 (the project's own users)
/// DIR/auth_export/accounts-TENANT.json  the same, per tenant
/// DIR/auth_export/mfa-emulator.json     ExportExtras, this emulator's own
/// ```
///
/// Emulator passwords are written as Google's emulator writes them
/// (`fakeHash:salt=…:password=…`, in clear: test data only); TOTP factors'
/// secrets go in the extra file (`ExportExtras.totpSecrets`), since
/// production's `TotpInfo` has no field for one (an export of the first
/// format kept them in `mfaInfo[].totpInfo.sharedSecretKey`, which is still
/// read: `LegacyExportedAccounts`). firebase-tools reads every file
/// whose name contains "accounts" as accounts, so the extra file's name
/// does not. Only the emulator's project is exported, as firebase-tools does.
enum EmulatorExport {
    static let metadataFile = "firebase-export-metadata.json"
    static let authFolder = "auth_export"
    static let configFile = "config.json"
    static let extrasFile = "mfa-emulator.json"
    /// What marks an accounts file, for firebase-tools and here.
    static let accountsMarker = "accounts"
    /// The version the metadata names (firebase-tools writes its own).
    /// 2: TOTP secrets in the extra file, not in the accounts files.
    static let formatVersion = "swift-identity-mfa-2"

    /// The accounts file of `tenant` (nil: the project's own).
    static func accountsFile(tenant: String?) -> String { tenant.map { "\(accountsMarker)-\($0).json" } ?? "\(accountsMarker).json" }

    /// The tenant an accounts file is for (nil: the project's own), or
    /// nil twice for a file that is not one.
    static func tenant(ofAccountsFile name: String) -> String?? {
        guard name.hasPrefix(accountsMarker), name.hasSuffix(".json") else { return .none }
        let middle = name.dropFirst(accountsMarker.count).dropLast(".json".count)
        if middle.isEmpty { return .some(nil) }
        guard middle.hasPrefix("-"), middle.count > 1 else { return .none }
        return .some(String(middle.dropFirst()))
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return encoder
    }()

    // MARK: Writing

    /// The files of `project`'s state, by path relative to the folder.
    static func files(of state: EmulatorState, project: String, _ context: RuleContext) throws -> [(path: String, contents: Data)] {
        let projectState = state.projects[project] ?? ProjectState()
        var extras = ExportExtras(mfa: projectState.mfa, tenants: [], passwordHashes: [], totpSecrets: [])
        var files: [(String, Data)] = [("\(authFolder)/\(configFile)", try encoder.encode(projectConfig(state, project: project, context)))]
        for tenant in [nil] + projectState.tenantOrder.map(Optional.some) {
            if let tenant, let config = projectState.tenants[tenant]?.config { extras.tenants?.append(config) }
            let users = state.accounts(in: Realm(project: project, tenant: tenant)).sortedByID
            for user in users {
                if case .imported(let hash) = user.password {
                    extras.passwordHashes?.append(PasswordRules.record(of: hash, uid: user.localId, tenant: tenant))
                }
                for factor in user.enrollments {
                    guard case .totp(let secret, _) = factor.kind else { continue }
                    extras.totpSecrets?.append(ExportedTOTPSecret(localId: user.localId, tenantId: tenant, mfaEnrollmentId: factor.id,
                                                                  sharedSecretKey: Base32.encode(secret)))
                }
            }
            let body = DownloadAccountResponse(users: users.isEmpty ? nil : users.map { AccountViews.userInfo($0, detail: .download) },
                                               kind: ResponseKind.downloadAccount.rawValue)
            files.append(("\(authFolder)/\(accountsFile(tenant: tenant))", try encoder.encode(body)))
        }
        files.append(("\(authFolder)/\(extrasFile)", try encoder.encode(extras)))
        let metadata = ExportMetadata(version: formatVersion, auth: ExportAuthMetadata(version: formatVersion, path: authFolder))
        files.append((metadataFile, try encoder.encode(metadata)))
        return files
    }

    /// The project's settings as `GET /emulator/v1/projects/{p}/config` shows them.
    static func projectConfig(_ state: EmulatorState, project: String, _ context: RuleContext) -> EmulatorProjectConfig {
        EmulatorProjectConfig(
            signIn: SignInConfig(allowDuplicateEmails: state.projects[project]?.allowDuplicateEmails ?? false),
            emailPrivacyConfig: EmailPrivacyConfig(enableImprovedEmailPrivacy: state.improvedEmailPrivacy(of: project, context)))
    }

    /// Writes `files` to `directory`, replacing it whole: into a new folder
    /// beside it first, then renamed into place, so that a reader never
    /// sees half an export and a failed export leaves the old one. The
    /// files are the owner's only: they hold passwords and TOTP secrets.
    /// Only a missing or empty folder, or a previous export, is replaced
    /// (``ExportTarget/check(_:)``, asked again just before the rename).
    static func write(_ files: [(path: String, contents: Data)], to directory: URL) throws {
        try ExportTarget.check(directory)
        let manager = FileManager.default
        let parent = directory.deletingLastPathComponent()
        try manager.createDirectory(at: parent, withIntermediateDirectories: true)
        let staging = parent.appendingPathComponent(".\(directory.lastPathComponent).export-\(UUID().uuidString)")
        do {
            for file in files {
                let url = staging.appendingPathComponent(file.path)
                try manager.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                                            attributes: [.posixPermissions: 0o700])
                guard manager.createFile(atPath: url.path, contents: file.contents, attributes: [.posixPermissions: 0o600]) else {
                    throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
                }
            }
            try ExportTarget.check(directory)
            if manager.fileExists(atPath: directory.path) {
                let old = parent.appendingPathComponent(".\(directory.lastPathComponent).old-\(UUID().uuidString)")
                try manager.moveItem(at: directory, to: old)
                try manager.moveItem(at: staging, to: directory)
                try? manager.removeItem(at: old)
            } else {
                try manager.moveItem(at: staging, to: directory)
            }
        } catch {
            try? manager.removeItem(at: staging)
            throw error
        }
    }

    // MARK: Reading

    /// An export read from its folder, before it is applied.
    struct Contents: Sendable {
        var config: EmulatorProjectConfig?
        var extras: ExportExtras?
        /// Accounts files: (file name, tenant or nil, users).
        var accounts: [(file: String, tenant: String?, users: [UserInfo])] = []
        /// TOTP secrets (base32) by tenant (nil: the project's own), uid
        /// and enrolment id: from the extra file, or inline in a
        /// first-format accounts file.
        var totpSecrets: [String?: [String: [String: String]]] = [:]
    }

    /// Reads an export folder, refusing anything that does not parse with
    /// the file and field it is in.
    static func read(from directory: URL) throws(EmulatorImportError) -> Contents {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw EmulatorImportError(file: directory.path, field: nil, reason: "is not a folder")
        }
        let metadata: ExportMetadata = try decode(directory.appendingPathComponent(metadataFile))
        guard let auth = metadata.auth else {
            throw EmulatorImportError(file: metadataFile, field: "auth", reason: "is missing: the export holds no Auth emulator data")
        }
        guard !auth.path.isEmpty, !auth.path.hasPrefix("/"), !auth.path.split(separator: "/").contains("..") else {
            throw EmulatorImportError(file: metadataFile, field: "auth.path", reason: "must be a folder inside the export")
        }
        let authDirectory = directory.appendingPathComponent(auth.path)
        var contents = Contents()
        let configURL = authDirectory.appendingPathComponent(configFile)
        if manager.fileExists(atPath: configURL.path) { contents.config = try decode(configURL, named: "\(auth.path)/\(configFile)") }
        let extrasURL = authDirectory.appendingPathComponent(extrasFile)
        if manager.fileExists(atPath: extrasURL.path) { contents.extras = try decode(extrasURL, named: "\(auth.path)/\(extrasFile)") }
        let names: [String]
        do {
            names = try manager.contentsOfDirectory(atPath: authDirectory.path).sorted()
        } catch {
            throw EmulatorImportError(file: auth.path, field: nil, reason: "cannot be listed")
        }
        for name in names {
            guard case .some(let tenant) = tenant(ofAccountsFile: name) else { continue }
            // Read once, decoded twice: production's shape, and the secrets a first-format export kept inline.
            let data = try read(authDirectory.appendingPathComponent(name), named: "\(auth.path)/\(name)")
            let body: DownloadAccountResponse = try decode(data, named: "\(auth.path)/\(name)")
            contents.accounts.append((name, tenant, body.users ?? []))
            let inline: LegacyExportedAccounts = try decode(data, named: "\(auth.path)/\(name)")
            for user in inline.users ?? [] {
                guard let uid = user.localId else { continue }
                for factor in user.mfaInfo ?? [] {
                    guard let id = factor.mfaEnrollmentId, let secret = factor.totpInfo?.sharedSecretKey else { continue }
                    contents.totpSecrets[tenant, default: [:]][uid, default: [:]][id] = secret
                }
            }
        }
        for record in contents.extras?.totpSecrets ?? [] {
            contents.totpSecrets[record.tenantId, default: [:]][record.localId, default: [:]][record.mfaEnrollmentId] = record.sharedSecretKey
        }
        return contents
    }

    /// Applies an export to a fresh state: the settings, the tenants (a
    /// tenant named only by its accounts file is created), then each
    /// accounts file through the import rule; a user it refuses fails the
    /// whole import, naming the file and the user.
    static func load(_ contents: Contents, into state: inout EmulatorState, project: String,
                     _ context: RuleContext) throws(EmulatorImportError) {
        var projectState = state.projects[project] ?? ProjectState()
        if let config = contents.config {
            projectState.allowDuplicateEmails = config.signIn?.allowDuplicateEmails ?? false
            projectState.improvedEmailPrivacy = config.emailPrivacyConfig?.enableImprovedEmailPrivacy
        }
        var hashing: [String?: [String: ImportedPasswordHash]] = [:]
        if let extras = contents.extras {
            projectState.mfa = extras.mfa
            for (index, tenant) in (extras.tenants ?? []).enumerated() {
                guard let id = tenant.name?.split(separator: "/").last.map(String.init), !id.isEmpty else {
                    throw EmulatorImportError(file: "\(authFolder)/\(extrasFile)", field: "tenants[\(index)].name", reason: "does not name a tenant")
                }
                if projectState.tenants[id] == nil { projectState.tenantOrder.append(id) }
                projectState.tenants[id] = TenantState(config: tenant)
            }
            for (index, record) in (extras.passwordHashes ?? []).enumerated() {
                do {
                    guard let (algorithm, parameters) = try PasswordRules.parameters(of: record) else { continue }
                    hashing[record.tenantId, default: [:]][record.localId] = ImportedPasswordHash(hash: Data(), salt: Data(), algorithm: algorithm,
                                                                                                  parameters: parameters)
                } catch {
                    throw EmulatorImportError(file: "\(authFolder)/\(extrasFile)", field: "passwordHashes[\(index)]", reason: "\(error)")
                }
            }
        }
        for file in contents.accounts {
            if let tenant = file.tenant, projectState.tenants[tenant] == nil {
                projectState.tenantOrder.append(tenant)
                // Named only by its file: Google's emulator's implicit tenant, everything enabled.
                projectState.tenants[tenant] = TenantState(config: Tenant(
                    name: "projects/\(project)/tenants/\(tenant)", allowPasswordSignup: true, enableEmailLinkSignin: true,
                    enableAnonymousUser: true, disableAuth: false, mfaConfig: MultiFactorAuthConfig(state: .enabled, enabledProviders: [.phoneSms])))
            }
        }
        state.projects[project] = projectState
        for file in contents.accounts where !file.users.isEmpty {
            var options = ImportRules.Options()
            options.fromExport = true
            options.exportedHashing = hashing[file.tenant] ?? [:]
            options.exportedTOTPSecrets = contents.totpSecrets[file.tenant] ?? [:]
            let refusals: [ImportRules.Refusal]
            do {
                refusals = try ImportRules.importUsers(&state, realm: Realm(project: project, tenant: file.tenant), users: file.users, options, context)
            } catch {
                throw EmulatorImportError(file: "\(authFolder)/\(file.file)", field: "users", reason: "\(error)")
            }
            if let first = refusals.first {
                throw EmulatorImportError(file: "\(authFolder)/\(file.file)", field: "users[\(first.index)]", reason: first.message)
            }
        }
    }

    /// A JSON file decoded as `T`; errors name the file and the field.
    private static func decode<T: Decodable>(_ url: URL, named name: String? = nil) throws(EmulatorImportError) -> T {
        let name = name ?? url.lastPathComponent
        return try decode(try read(url, named: name), named: name)
    }

    /// A file's bytes; an error names the file.
    private static func read(_ url: URL, named name: String) throws(EmulatorImportError) -> Data {
        do {
            return try Data(contentsOf: url)
        } catch {
            throw EmulatorImportError(file: name, field: nil, reason: "cannot be read")
        }
    }

    /// JSON bytes decoded as `T`; errors name the file and the field.
    private static func decode<T: Decodable>(_ data: Data, named name: String) throws(EmulatorImportError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch let error as DecodingError {
            throw EmulatorImportError(decoding: error, file: name)
        } catch {
            throw EmulatorImportError(file: name, field: nil, reason: "is not JSON of the expected shape")
        }
    }
}
