#if Emulator
import Foundation
import IdentityToolkit
import IdentityOTPFormats

/// Reading an export folder back (`--import`): each file checked, then applied.
extension EmulatorExport {
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
            throw EmulatorImportError(
                file: metadataFile, field: "auth", reason: "is missing: the export holds no Auth emulator data")
        }
        guard !auth.path.isEmpty, !auth.path.hasPrefix("/"), !auth.path.split(separator: "/").contains("..") else {
            throw EmulatorImportError(
                file: metadataFile, field: "auth.path", reason: "must be a folder inside the export")
        }
        let authDirectory = directory.appendingPathComponent(auth.path)
        var contents = Contents()
        let configURL = authDirectory.appendingPathComponent(configFile)
        if manager.fileExists(atPath: configURL.path) {
            contents.config = try decode(configURL, named: "\(auth.path)/\(configFile)")
        }
        let extrasURL = authDirectory.appendingPathComponent(extrasFile)
        if manager.fileExists(atPath: extrasURL.path) {
            contents.extras = try decode(extrasURL, named: "\(auth.path)/\(extrasFile)")
        }
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
                    guard let id = factor.mfaEnrollmentId, let secret = factor.totpInfo?.sharedSecretKey else {
                        continue
                    }
                    contents.totpSecrets[tenant, default: [:]][uid, default: [:]][id] = secret
                }
            }
        }
        for record in contents.extras?.totpSecrets ?? [] {
            contents.totpSecrets[record.tenantId, default: [:]][record.localId, default: [:]][
                record.mfaEnrollmentId] = record.sharedSecretKey
        }
        return contents
    }

    /// Applies an export to a fresh state: the settings, the tenants (a
    /// tenant named only by its accounts file is created), then each
    /// accounts file through the import rule; a user it refuses fails the
    /// whole import, naming the file and the user.
    static func load(
        _ contents: Contents, into state: inout EmulatorState, project: String,
        _ context: RuleContext
    ) throws(EmulatorImportError) {
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
                    throw EmulatorImportError(
                        file: "\(authFolder)/\(extrasFile)", field: "tenants[\(index)].name",
                        reason: "does not name a tenant")
                }
                if projectState.tenants[id] == nil { projectState.tenantOrder.append(id) }
                projectState.tenants[id] = TenantState(config: tenant)
            }
            for (index, record) in (extras.passwordHashes ?? []).enumerated() {
                do {
                    guard let (algorithm, parameters) = try PasswordRules.parameters(of: record) else { continue }
                    hashing[record.tenantId, default: [:]][record.localId] = ImportedPasswordHash(
                        hash: Data(), salt: Data(), algorithm: algorithm,
                        parameters: parameters)
                } catch {
                    throw EmulatorImportError(
                        file: "\(authFolder)/\(extrasFile)", field: "passwordHashes[\(index)]", reason: "\(error)")
                }
            }
        }
        for file in contents.accounts {
            if let tenant = file.tenant, projectState.tenants[tenant] == nil {
                projectState.tenantOrder.append(tenant)
                // Named only by its file: Google's emulator's implicit tenant, everything enabled.
                projectState.tenants[tenant] = TenantState(
                    config: Tenant(
                        name: "projects/\(project)/tenants/\(tenant)", allowPasswordSignup: true,
                        enableEmailLinkSignin: true,
                        enableAnonymousUser: true, disableAuth: false,
                        mfaConfig: MultiFactorAuthConfig(state: .enabled, enabledProviders: [.phoneSms])))
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
                refusals = try ImportRules.importUsers(
                    &state, realm: Realm(project: project, tenant: file.tenant), users: file.users, options, context
                )
            } catch {
                throw EmulatorImportError(file: "\(authFolder)/\(file.file)", field: "users", reason: "\(error)")
            }
            if let first = refusals.first {
                throw EmulatorImportError(
                    file: "\(authFolder)/\(file.file)", field: "users[\(first.index)]", reason: first.message)
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
#endif
