#if Tools
import ArgumentParser
import Foundation
import IdentityAdmin
import IdentityToolkit
import IdentityToolkitAsyncHTTPClient

/// `mfa admin`: switch TOTP on or off for a project or tenant, and show the config.
struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: "Manage a project's or tenant's TOTP settings, verify ID tokens, end users' sessions.",
        subcommands: [EnableTOTP.self, DisableTOTP.self, ShowConfig.self, VerifyToken.self, Users.self]
    )
}

/// Where and as whom the admin calls go; checked before any request.
struct AdminTarget: ParsableArguments {
    @Option(help: "The project id.")
    var project: String

    @Option(help: "A tenant id; without it, the project itself.")
    var tenant: String?

    @Option(help: "An emulator at HOST:PORT (authorised as its owner).")
    var emulator: String?

    @Option(help: "A service account key file (default: GOOGLE_APPLICATION_CREDENTIALS).")
    var credentials: String?

    @Option(help: "The OAuth2 token endpoint for the service account (default: the key file's token_uri).")
    var tokenEndpoint: String?

    func validate() throws {
        try InputCheck.project(project)
        try InputCheck.identifier(tenant, "--tenant")
        try InputCheck.path(credentials, "--credentials")
        try InputCheck.identifier(tokenEndpoint, "--token-endpoint")
        if emulator != nil && credentials != nil {
            throw ValidationError("give either --emulator or --credentials, not both")
        }
        if let emulator {
            guard HostAndPort(emulator) != nil else {
                throw ValidationError("--emulator must be HOST:PORT, such as 127.0.0.1:9099, not '\(emulator)'")
            }
        }
        if emulator == nil {
            do {
                _ = try credential()
            } catch {
                throw ValidationError("--credentials: \(error)")
            }
        }
    }

    func credential() throws -> any AdminCredential {
        let transport = AsyncHTTPClientTransport.failingFast
        if let credentials {
            return try ServiceAccountCredential(
                keyFile: credentials, tokenEndpoint: tokenEndpoint, transport: transport)
        }
        if ToolConfiguration.applicationCredentialsFile != nil {
            return try ServiceAccountCredential.applicationDefault(
                tokenEndpoint: tokenEndpoint, transport: transport)
        }
        if ClientConfiguration.environmentEmulatorHost() != nil { return EmulatorOwnerCredential() }
        throw ValidationError(
            "\(ApplicationDefaultCredential.environmentVariable) is not set: give --credentials FILE, "
                + "or --emulator HOST:PORT (or FIREBASE_AUTH_EMULATOR_HOST) for the emulator")
    }

    func admin() throws -> IdentityAdmin {
        let transport = AsyncHTTPClientTransport.failingFast
        if let emulator {
            return IdentityAdmin.emulator(projectID: project, hostAndPort: emulator, transport: transport)
        }
        return IdentityAdmin(
            projectID: project, credential: try credential(),
            configuration: ClientConfiguration(transport: transport))
    }

    /// The user API of the target: the tenant's with `--tenant`, else the project's.
    func auth() throws -> BaseAuth {
        let admin = try admin()
        return tenant.map { admin.tenantManager().authForTenant($0) } ?? admin
    }

    /// Applies `config` and prints the resulting multi-factor config.
    func apply(_ config: MultiFactorConfig) async throws {
        let admin = try admin()
        let result: MultiFactorConfig?
        if let tenant {
            result = try await admin.tenantManager().updateTenant(tenant, TenantRequest(multiFactorConfig: config))
                .multiFactorConfig
        } else {
            result = try await admin.projectConfigManager().updateProjectConfig(
                UpdateProjectConfigRequest(multiFactorConfig: config)
            ).multiFactorConfig
        }
        print(AdminJSON.render(result))
    }
}

enum AdminJSON {
    /// The config as JSON, in firebase-admin-node's shape.
    static func render(_ config: MultiFactorConfig?) -> String {
        guard let config else { return "{}" }
        var object: [String: Any] = [:]
        if let state = config.state { object["state"] = state.rawValue }
        if let ids = config.factorIds { object["factorIds"] = ids }
        if let providers = config.providerConfigs {
            object["providerConfigs"] = providers.map { provider -> [String: Any] in
                var entry: [String: Any] = ["state": provider.state.rawValue]
                if let totp = provider.totpProviderConfig {
                    entry["totpProviderConfig"] =
                        totp.adjacentIntervals.map { ["adjacentIntervals": $0] } ?? [String: Any]()
                }
                return entry
            }
        }
        let data =
            (try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]))
            ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}

extension AdminCommand {
    struct EnableTOTP: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "enable-totp", abstract: "Turn TOTP on; prints the resulting config.")

        @OptionGroup var target: AdminTarget

        @Option(help: "Time steps accepted on either side of now, 0 to 10 (server default 5).")
        var adjacentIntervals: Int?

        func validate() throws {
            if let adjacentIntervals, !IdentityPlatformLimits.totpAdjacentIntervals.contains(adjacentIntervals) {
                throw ValidationError(
                    "--adjacent-intervals must be an integer from 0 to 10, not \(adjacentIntervals)")
            }
        }

        func run() async throws {
            try await target.apply(.totpEnabled(adjacentIntervals: adjacentIntervals))
        }
    }

    struct DisableTOTP: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "disable-totp", abstract: "Turn TOTP off; prints the resulting config.")

        @OptionGroup var target: AdminTarget

        func run() async throws {
            try await target.apply(.totpDisabled)
        }
    }

    struct ShowConfig: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show-config", abstract: "Print the multi-factor config as JSON.")

        @OptionGroup var target: AdminTarget

        func run() async throws {
            let admin = try target.admin()
            if let tenant = target.tenant {
                print(AdminJSON.render(try await admin.tenantManager().getTenant(tenant).multiFactorConfig))
            } else {
                print(AdminJSON.render(try await admin.projectConfigManager().getProjectConfig().multiFactorConfig))
            }
        }
    }
}
#endif
