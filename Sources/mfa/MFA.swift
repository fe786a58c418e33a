#if Tools
import ArgumentParser
import Foundation

/// `mfa`: TOTP tools now; the emulator, demo and admin commands join it.
@main
struct MFA: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mfa",
        abstract: "Multi-factor authentication with TOTP for Identity Platform / Firebase Authentication.",
        subcommands: [DemoCommand.self, TOTPCommand.self, EmulatorCommand.self, AdminCommand.self]
    )

    /// Bad input gives one line on stderr naming the problem, exit code 2 and
    /// nothing on stdout; help and version go to stdout with exit 0.
    ///
    /// A failure while running (a server's refusal, an unreachable server)
    /// gives one line on stderr and exit code 1: 2 is only for bad input.
    static func main() async {
        do {
            var command = try parseAsRoot()
            do {
                if var asyncCommand = command as? any AsyncParsableCommand {
                    try await asyncCommand.run()
                } else {
                    try command.run()
                }
            } catch
                where !(error is ExitCode || error is ValidationError || error is CleanExit)
                && exitCode(for: error) != .success
            {
                // (`--help` arrives here as a command that throws its help
                // request: it goes to the outer handler, which prints it.)
                let message = "\(error)".split(separator: "\n").first.map(String.init) ?? "failed"
                FileHandle.standardError.write(Data("mfa: \(message)\n".utf8))
                Foundation.exit(1)
            }
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                exit(withError: error)
            }
            if let exitCode = error as? ExitCode {
                Foundation.exit(exitCode.rawValue)
            }
            let message = fullMessage(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
            FileHandle.standardError.write(
                Data("mfa: \(message.replacingOccurrences(of: "Error: ", with: ""))\n".utf8))
            Foundation.exit(2)
        }
    }
}
#endif
