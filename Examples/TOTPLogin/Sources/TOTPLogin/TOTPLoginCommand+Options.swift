import ArgumentParser
import Configuration
import Foundation
import IdentityStoresPostgres
import TOTPLoginApp

/// The command's options as configuration keys, their checks, and the
/// project it agrees on with the emulator.
extension TOTPLoginCommand {
    /// The project an embedded emulator serves.
    static let defaultProject = "demo-totp-login"
    /// The variable the environment provider reads `sealing.keys` from: derived
    /// from the settings' scope, so that a message never names another one.
    static let sealingKeysVariable = "\(TOTPLoginSettings.scope)_sealing_keys".uppercased()

    /// Why `--postgres` without sealing keys does not start.
    static let noSealingKeys = StartupError(
        description:
            "--postgres needs sealing keys, so that refresh tokens and TOTP keys are not stored in clear: set \(sealingKeysVariable)=\"k1:$(head -c 32 /dev/urandom | base64)\" (the same on every instance) or give --sealing-keys-file"
    )

    func validate() throws {
        if let postgres, PostgresConnectionSettings.urlContainsPassword(postgres) {
            // A password on the command line is visible to every process.
            throw ValidationError(
                "--postgres must not hold a password: give it in TOTPLOGIN_POSTGRES_PASSWORD or PGPASSWORD")
        }
    }

    /// The options given on the command line, as configuration keys.
    func optionValues() throws -> [AbsoluteConfigKey: ConfigValue] {
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        func set(_ key: String, _ content: ConfigContent?, secret: Bool = false) {
            if let content {
                values[AbsoluteConfigKey(stringLiteral: "\(TOTPLoginSettings.scope).\(key)")] = ConfigValue(
                    content, isSecret: secret)
            }
        }
        set("http.host", host.map { .string($0) })
        set("http.port", port.map { .int($0) })
        set("metrics.port", metricsPort.map { .int($0) })
        set("firebase.emulatorHost", emulator.map { .string($0) })
        set("firebase.projectId", project.map { .string($0) })
        set("postgres.url", postgres.map { .string($0) })
        set("publicURL", publicURL.map { .string($0) })
        set("mfa.enrollBy", enrollBy.map { .string($0) })
        set("firebase.tenant", tenant.map { .string($0) })
        set("blocking.requireTOTPAfter", requireTOTPAfter.map { .int($0) })
        set("blocking.roles", roles.map { .string($0) })
        if noBlockingFunction { set("blocking.enabled", .bool(false)) }
        if trustForwardedFor { set("trustForwardedFor", .bool(true)) }
        if let sealingKeysFile {
            let text: String
            do { text = try String(contentsOfFile: sealingKeysFile, encoding: .utf8) } catch {
                throw StartupError(description: "cannot read --sealing-keys-file: \(error.localizedDescription)")
            }
            set("sealing.keys", .string(text.trimmingCharacters(in: .whitespacesAndNewlines)), secret: true)
        }
        return values
    }

    /// The project of the running emulator, which every call with an API
    /// key acts on: --project must name it (users signed up in one project
    /// cannot be found from another).
    func agreedProject(emulatorHost: String, port: Int, requested project: String?) async throws -> String {
        let served: String?
        do { served = try await IdentityBackend.emulatorProject(host: emulatorHost, port: port) } catch {
            throw StartupError(description: "cannot reach the emulator at \(emulatorHost):\(port): \(error)")
        }
        do {
            return try IdentityBackend.agreedProject(requested: project, served: served, fallback: Self.defaultProject)
        } catch {
            throw StartupError(description: "\(error)")
        }
    }
}

/// A failure before the app serves: printed as one line, without the usage.
struct StartupError: Error, CustomStringConvertible {
    var description: String
}
