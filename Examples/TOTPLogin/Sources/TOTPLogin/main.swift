import ArgumentParser
import Foundation
import Hummingbird
import IdentityToolkitEmulator
import Logging
import TOTPLoginApp

/// `swift run TOTPLogin`: the example app and, unless `--emulator` names a
/// running one, an Identity Platform emulator in the same process.
@main
struct TOTPLoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "TOTPLogin",
        abstract: "A web app that signs users in with a password and a TOTP authenticator app.",
        discussion: "Prints 'listening on http://HOST:PORT' when ready. Switches TOTP on for the project."
    )

    @Option(help: "The address to serve on.")
    var host = "127.0.0.1"

    @Option(help: "The port to serve on; 0 picks a free one.")
    var port = 8080

    @Option(help: ArgumentHelp("Use a running emulator at HOST:PORT instead of starting one.", valueName: "host:port"))
    var emulator: String?

    @Option(help: "The Identity Platform project.")
    var project = "demo-totp-login"

    @Flag(help: "Mark cookies Secure (when a proxy serves the app over HTTPS).")
    var secureCookies = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535, not \(port)") }
        if let emulator {
            guard Self.address(emulator) != nil else {
                throw ValidationError("--emulator must be HOST:PORT, such as 127.0.0.1:9099, not '\(emulator)'")
            }
        }
    }

    /// `HOST:PORT` split, or nil when it is not that.
    static func address(_ text: String) -> (host: String, port: Int)? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, !parts[0].isEmpty, let port = Int(parts[1]), (1...65535).contains(port) else { return nil }
        return (String(parts[0]), port)
    }

    func run() async throws {
        var logger = Logger(label: "TOTPLogin")
        logger.logLevel = .info
        var running: RunningEmulator?
        let emulatorAddress: (host: String, port: Int)
        if let emulator, let address = Self.address(emulator) {
            emulatorAddress = address
        } else {
            let started = try await IdentityToolkitEmulator(configuration: EmulatorConfiguration(port: 0, projectID: project)).start()
            running = started
            emulatorAddress = (started.host, started.port)
        }
        let emulatorURL = "http://\(emulatorAddress.host):\(emulatorAddress.port)"
        FileHandle.standardOutput.write(Data("emulator at \(emulatorURL) (project \(project))\n".utf8))
        let backend = try IdentityBackend(emulatorHost: emulatorAddress.host, emulatorPort: emulatorAddress.port, projectID: project)
        do {
            try await backend.enableTOTP()
        } catch {
            await running?.stop()
            throw StartupError(description: "cannot switch TOTP on at the emulator \(emulatorURL): \(error)")
        }
        let app = TOTPLoginApp(backend: backend, secureCookies: secureCookies, logger: logger)
        let host = self.host
        let application = Application(
            router: app.router(),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                // Whole lines, flushed: scripts wait for this one.
                FileHandle.standardOutput.write(Data("listening on http://\(host):\(port)\n".utf8))
            },
            logger: logger
        )
        do {
            try await application.runService()
        } catch {
            await running?.stop()
            throw error
        }
        await running?.stop()
    }
}

/// A failure before the app serves: printed as one line, without the usage.
struct StartupError: Error, CustomStringConvertible {
    var description: String
}
