import ArgumentParser
import Foundation
import IdentityToolkitEmulator
import Logging

/// `mfa emulator`: the Identity Toolkit emulator with TOTP, until SIGINT/SIGTERM.
struct EmulatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "emulator",
        abstract: "Run a local Identity Toolkit emulator with TOTP multi-factor authentication.",
        discussion: """
            Prints 'listening on http://HOST:PORT' when ready. Point clients at it with \
            FIREBASE_AUTH_EMULATOR_HOST=HOST:PORT. Admin calls take 'Authorization: Bearer owner'. \
            Helpers: GET /emulator/v1/projects/ID/oobCodes, GET .../verificationCodes, DELETE .../accounts, \
            GET|POST /emulator/v1/clock ({"setMillis": N} | {"advanceSeconds": N} | {"release": true}); the signing keys at Google's routes (JWKS and x509), such as GET /www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com. CORS allows any origin.
            """
    )

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port; 0 picks a free one.")
    var port = 9099

    @Option(help: "The project that API-key calls act on.")
    var project = "demo-mfa"

    @Option(help: "Seconds a sign-in stays recent enough to enroll or withdraw a factor (CREDENTIAL_TOO_OLD_LOGIN_AGAIN after).")
    var recentSignIn = 300

    @Option(help: "Seconds a TOTP sign-in challenge stays open (TOTP_CHALLENGE_TIMEOUT after).")
    var challengeLifetime = 300

    @Option(help: "Wrong codes allowed per sign-in challenge or enrollment session (TOO_MANY_ATTEMPTS_TRY_LATER after).")
    var maxCodeAttempts = 5

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535, not \(port)") }
        guard (1...86_400).contains(recentSignIn) else { throw ValidationError("--recent-sign-in must be 1 to 86400 seconds, not \(recentSignIn)") }
        guard (1...86_400).contains(challengeLifetime) else {
            throw ValidationError("--challenge-lifetime must be 1 to 86400 seconds, not \(challengeLifetime)")
        }
        guard (1...1000).contains(maxCodeAttempts) else { throw ValidationError("--max-code-attempts must be 1 to 1000, not \(maxCodeAttempts)") }
        try InputCheck.project(project)
    }

    func run() async throws {
        var logger = Logger(label: "mfa.emulator")
        logger.logLevel = .warning
        var configuration = EmulatorConfiguration(host: host, port: port, projectID: project, logger: logger)
        configuration.secondFactorRules.recentSignIn = .seconds(recentSignIn)
        configuration.secondFactorRules.challengeLifetime = .seconds(challengeLifetime)
        configuration.secondFactorRules.maximumCodeAttempts = maxCodeAttempts
        let emulator = try IdentityToolkitEmulator(configuration: configuration)
        do {
            try await emulator.runUntilSignalled { host, port in
                // Unbuffered, so that a parent process sees the line at once.
                FileHandle.standardOutput.write(Data("listening on http://\(host):\(port)\n".utf8))
            }
        } catch {
            throw ValidationError("cannot listen on \(host):\(port): \(error)")
        }
    }
}
