#if Emulator
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
    static func accountsFile(tenant: String?) -> String {
        tenant.map { "\(accountsMarker)-\($0).json" } ?? "\(accountsMarker).json"
    }

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
    static func files(of state: EmulatorState, project: String, _ context: RuleContext) throws -> [(
        path: String, contents: Data
    )] {
        let projectState = state.projects[project] ?? ProjectState()
        var extras = ExportExtras(mfa: projectState.mfa, tenants: [], passwordHashes: [], totpSecrets: [])
        var files: [(String, Data)] = [
            ("\(authFolder)/\(configFile)", try encoder.encode(projectConfig(state, project: project, context)))
        ]
        for tenant in [nil] + projectState.tenantOrder.map(Optional.some) {
            if let tenant, let config = projectState.tenants[tenant]?.config { extras.tenants?.append(config) }
            let users = state.accounts(in: Realm(project: project, tenant: tenant)).sortedByID
            for user in users {
                if case .imported(let hash) = user.password {
                    extras.passwordHashes?.append(PasswordRules.record(of: hash, uid: user.localId, tenant: tenant))
                }
                for factor in user.enrollments {
                    guard case .totp(let secret, _) = factor.kind else { continue }
                    extras.totpSecrets?.append(
                        ExportedTOTPSecret(
                            localId: user.localId, tenantId: tenant, mfaEnrollmentId: factor.id,
                            sharedSecretKey: Base32.encode(secret)))
                }
            }
            let body = DownloadAccountResponse(
                users: users.isEmpty ? nil : users.map { AccountViews.userInfo($0, detail: .download) },
                kind: ResponseKind.downloadAccount.rawValue)
            files.append(("\(authFolder)/\(accountsFile(tenant: tenant))", try encoder.encode(body)))
        }
        files.append(("\(authFolder)/\(extrasFile)", try encoder.encode(extras)))
        let metadata = ExportMetadata(
            version: formatVersion, auth: ExportAuthMetadata(version: formatVersion, path: authFolder))
        files.append((metadataFile, try encoder.encode(metadata)))
        return files
    }

    /// The project's settings as `GET /emulator/v1/projects/{p}/config` shows them.
    static func projectConfig(_ state: EmulatorState, project: String, _ context: RuleContext)
        -> EmulatorProjectConfig
    {
        EmulatorProjectConfig(
            signIn: SignInConfig(allowDuplicateEmails: state.projects[project]?.allowDuplicateEmails ?? false),
            emailPrivacyConfig: EmailPrivacyConfig(
                enableImprovedEmailPrivacy: state.improvedEmailPrivacy(of: project, context)))
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
                try manager.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700])
                guard
                    manager.createFile(
                        atPath: url.path, contents: file.contents, attributes: [.posixPermissions: 0o600])
                else {
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
}
#endif
