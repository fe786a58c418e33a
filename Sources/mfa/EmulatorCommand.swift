#if Tools
import ArgumentParser
import Foundation
import IdentityToolkit
import IdentityToolkitEmulator
import ServiceLifecycle
import Logging

/// `mfa emulator`: the Identity Toolkit emulator with TOTP, until SIGINT/SIGTERM.
/// Every default and range comes from `EmulatorConfiguration` and
/// `SecondFactorRules`, the one home of the emulator's rules.
struct EmulatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "emulator",
        abstract: "Run a local Identity Toolkit emulator with TOTP multi-factor authentication.",
        discussion: """
            Prints 'listening on http://HOST:PORT' when ready. Point clients at it with \
            FIREBASE_AUTH_EMULATOR_HOST=HOST:PORT. Admin calls and the helpers that change state take \
            'Authorization: Bearer owner'. Helpers: GET /emulator/v1/projects/ID/oobCodes, GET .../verificationCodes, \
            DELETE .../accounts, GET|POST /emulator/v1/clock ({"setMillis": N} | {"advanceSeconds": N} | {"release": true}); \
            the signing keys at Google's routes (JWKS and x509), such as \
            GET /www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com. \
            Only loopback browser origins get CORS (--allow-origin adds one), and only requests naming a loopback \
            host are answered (--allow-host adds one). The page for people is at /emulator/ui. \
            --import and --export-on-exit read and write firebase-tools' export format (firebase emulators:export), \
            TOTP factors included; POST /emulator/v1/export {"path": DIR} exports on demand into the --export-dir folder.
            """
    )

    static let defaultRules = SecondFactorRules()

    @Option(help: "The address to listen on; a non-loopback one needs --allow-remote.")
    var host = EmulatorConfiguration.defaultHost

    @Option(help: "The port; 0 picks a free one.")
    var port = EmulatorConfiguration.defaultPort

    @Option(help: "The project that API-key calls act on.")
    var project = EmulatorConfiguration.defaultProjectID

    @Option(
        help:
            "Seconds a sign-in stays recent enough to enroll or withdraw a factor (CREDENTIAL_TOO_OLD_LOGIN_AGAIN after)."
    )
    var recentSignIn = Int(defaultRules.recentSignIn.components.seconds)

    @Option(help: "Seconds a TOTP sign-in challenge stays open (TOTP_CHALLENGE_TIMEOUT after).")
    var challengeLifetime = Int(defaultRules.challengeLifetime.components.seconds)

    @Option(
        help: "Wrong codes allowed per sign-in challenge or enrollment session (TOO_MANY_ATTEMPTS_TRY_LATER after)."
    )
    var maxCodeAttempts = defaultRules.maximumCodeAttempts

    @Flag(
        help:
            "Serve on a non-loopback --host. The emulator has no authentication: anyone who reaches it can sign in as anyone."
    )
    var allowRemote = false

    @Option(
        help:
            "A browser origin allowed to call the emulator besides the loopback ones, such as https://app.test:5000 (repeatable; * for any)."
    )
    var allowOrigin: [String] = []

    @Option(
        help: "A host name requests may name besides the loopback ones, such as host.docker.internal (repeatable).")
    var allowHost: [String] = []

    @Flag(
        help:
            "Let blocking functions' triggers point at link-local addresses and cloud metadata services (refused by default: the emulator calls them from this machine)."
    )
    var allowLinkLocalTriggers = false

    @Flag(
        help:
            "Behave as Google's Auth emulator where this one differs by choice (unsigned ID tokens, readable refresh tokens, unknown update-mask paths ignored, tenants made on first read, password hashes in lookups, empty and null values read as Google's, email privacy off unless --enable-improved-email-privacy), so that tests written against Google's pass unchanged. Host and Origin checks stay on."
    )
    var googleCompatible = false

    @Flag(
        help:
            "Refuse (400) a request whose path names a project other than --project, as firebase-tools' singleProjectMode ERROR does."
    )
    var singleProjectMode = false

    @Option(
        help: ArgumentHelp(
            "Inject a fault into an operation from the start, as PUT /emulator/v1/faults does (repeatable): OPERATION=KIND[:MILLIS], such as lookupAccounts=unavailable, *=latency:250 or getIDTokenSigningKeys=hang:30000. Kinds: latency, quotaExceeded, unavailable, dropConnection, hang, malformedCacheControl.",
            valueName: "operation=kind[:millis]"))
    var fault: [String] = []

    /// `--fault OPERATION=KIND[:MILLIS]`, read; nil when it is not of that form
    /// (the emulator checks the operation, the kind's delay and the ranges).
    static func parseFault(_ text: String) -> EmulatorFault? {
        let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty else { return nil }
        let kindAndDelay = parts[1].split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(
            String.init)
        let kind = EmulatorFaultKind(rawValue: kindAndDelay[0])
        guard EmulatorFaultKind.allKnownValues.contains(kind) else { return nil }
        guard kindAndDelay.count == 2 else { return EmulatorFault(operation: parts[0], kind: kind) }
        guard let delay = Int32(kindAndDelay[1]) else { return nil }
        return EmulatorFault(operation: parts[0], kind: kind, delayMillis: delay)
    }

    @Option(
        name: .customLong("import"),
        help:
            "A folder in firebase-tools' export format to load at start (a corrupt one stops the emulator, naming the file and field)."
    )
    var importDirectory: String?

    @Option(
        help:
            "A folder to write the data to, in the same format, when the emulator stops (SIGINT, SIGTERM): missing, empty, or a previous export, which is replaced whole; any other folder is refused at start."
    )
    var exportOnExit: String?

    @Option(
        help:
            "The folder POST /emulator/v1/export may write into (itself or a folder inside it); without it, only the --export-on-exit folder."
    )
    var exportDir: String?

    @Flag(
        inversion: .prefixedEnableDisable,
        help:
            "Answer a wrong password and an unknown address alike (INVALID_LOGIN_CREDENTIALS), as production does by default; --disable- gives EMAIL_NOT_FOUND and INVALID_PASSWORD, as Google's emulator does."
    )
    var improvedEmailPrivacy: Bool?

    func validate() throws {
        for text in fault where Self.parseFault(text) == nil {
            throw ValidationError(
                "--fault must be OPERATION=KIND[:MILLIS] with a known kind, not '\(text.prefix(80))'")
        }
        let durations = SecondFactorRules.durationRange
        let seconds = Int(durations.lowerBound.components.seconds)...Int(durations.upperBound.components.seconds)
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535, not \(port)") }
        guard seconds.contains(recentSignIn) else {
            throw ValidationError(
                "--recent-sign-in must be \(seconds.lowerBound) to \(seconds.upperBound) seconds, not \(recentSignIn)"
            )
        }
        guard seconds.contains(challengeLifetime) else {
            throw ValidationError(
                "--challenge-lifetime must be \(seconds.lowerBound) to \(seconds.upperBound) seconds, not \(challengeLifetime)"
            )
        }
        let attempts = SecondFactorRules.codeAttemptsRange
        guard attempts.contains(maxCodeAttempts) else {
            throw ValidationError(
                "--max-code-attempts must be \(attempts.lowerBound) to \(attempts.upperBound), not \(maxCodeAttempts)"
            )
        }
        try InputCheck.project(project)
        try InputCheck.identifier(host, "--host")
        for origin in allowOrigin { try InputCheck.identifier(origin, "--allow-origin") }
        for name in allowHost { try InputCheck.identifier(name, "--allow-host") }
        if let importDirectory { try InputCheck.path(importDirectory, "--import") }
        if let exportOnExit { try InputCheck.path(exportOnExit, "--export-on-exit") }
        if let exportDir { try InputCheck.path(exportDir, "--export-dir") }
        do {
            var settings = configuration(logger: Logger(label: "mfa.emulator"))
            settings.importDirectory = nil // read once, by run()
            _ = try IdentityToolkitEmulator(configuration: settings)
        } catch let error as EmulatorConfigurationError {
            if error.description.hasPrefix("cannot export to") {
                throw ValidationError("--export-on-exit \(error.description)")
            }
            throw ValidationError(
                error.description.replacingOccurrences(of: "set allowRemote", with: "give --allow-remote"))
        }
    }

    func configuration(logger: Logger) -> EmulatorConfiguration {
        var configuration = EmulatorConfiguration(host: host, port: port, projectID: project, logger: logger)
        configuration.secondFactorRules.recentSignIn = .seconds(recentSignIn)
        configuration.secondFactorRules.challengeLifetime = .seconds(challengeLifetime)
        configuration.secondFactorRules.maximumCodeAttempts = maxCodeAttempts
        configuration.allowRemote = allowRemote
        configuration.allowedOrigins = allowOrigin
        configuration.allowedHosts = allowHost
        configuration.allowLinkLocalTriggers = allowLinkLocalTriggers
        configuration.googleCompatible = googleCompatible
        configuration.singleProjectMode = singleProjectMode
        configuration.faults = fault.compactMap(Self.parseFault)
        // Google's emulator starts with email privacy off; production with it on.
        configuration.improvedEmailPrivacy = improvedEmailPrivacy ?? !googleCompatible
        configuration.importDirectory = importDirectory.map(Self.absolutePath)
        configuration.exportOnExitDirectory = exportOnExit.map(Self.absolutePath)
        configuration.exportDirectory = exportDir.map(Self.absolutePath)
        return configuration
    }

    /// `path` made absolute against the working directory.
    static func absolutePath(_ path: String) -> String {
        URL(
            fileURLWithPath: path,
            relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        ).standardizedFileURL.path
    }

    func run() async throws {
        var logger = Logger(label: "mfa.emulator")
        // Notices: the export on exit says where it wrote.
        logger.logLevel = .notice
        let emulator: IdentityToolkitEmulator
        do {
            emulator = try IdentityToolkitEmulator(configuration: configuration(logger: logger))
        } catch let error as EmulatorImportError {
            throw ValidationError(error.description)
        }
        if let importDirectory {
            FileHandle.standardError.write(Data("mfa: imported \(importDirectory)\n".utf8))
        }
        if allowRemote {
            FileHandle.standardError.write(
                Data(
                    "mfa: warning: serving on \(host) for other machines; the emulator has no authentication, so anyone who reaches it can sign in as anyone and read every code\n"
                        .utf8))
        }
        do {
            // The tool owns the group (signals, the shutdown's time limits); the emulator is its service.
            let service = emulator.service { host, port in
                // Unbuffered, so that a parent process sees the line at once.
                FileHandle.standardOutput.write(Data("listening on http://\(host):\(port)\n".utf8))
            }
            var group = ServiceGroupConfiguration(
                services: [service], gracefulShutdownSignals: [.sigterm, .sigint], logger: emulator.configuration.logger
            )
            group.maximumGracefulShutdownDuration = emulator.configuration.shutdownGracePeriod
            group.maximumCancellationDuration = emulator.configuration.shutdownGracePeriod
            try await ServiceGroup(configuration: group).run()
        } catch {
            throw ValidationError("cannot listen on \(host):\(port): \(error)")
        }
    }
}
#endif
