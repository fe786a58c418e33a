#if AsyncHTTPClient
import Foundation

/// An executable of this package that `swift test` built beside the test
/// bundle (a test target depends on it), run as a user would run it.
public struct BuiltExecutable: Sendable {
    /// What a run printed and how it ended.
    public struct Result: Sendable {
        /// The exit status.
        public var status: Int32
        /// Standard output as text.
        public var stdout: String
        /// Standard error as text.
        public var stderr: String
        /// Standard output as bytes.
        public var stdoutData: Data
    }

    /// The executable's name.
    public let name: String

    public init(_ name: String) {
        self.name = name
    }

    /// Where the build put it, if it was built.
    public var url: URL? {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<5 {
            let candidate = folder.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder.deleteLastPathComponent()
        }
        return nil
    }

    /// This process's environment with `extra` added, and Swift's crash
    /// backtracer off (`SWIFT_BACKTRACE=enable=no`) unless `extra` names it:
    /// a crashed child then ends at once and fails its test, where the
    /// backtracer kept a `swift-backtrace` process spinning for minutes.
    public static func environment(adding extra: [String: String]) -> [String: String] {
        ProcessInfo.processInfo.environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 }.merging(extra) { $1 }
    }

    /// Runs it with `arguments`; `input` is written to its standard input,
    /// `environment` is added to this process's. The blocking reads and the
    /// wait happen off the cooperative pool (``offThePool(_:)``).
    public func run(_ arguments: [String], input: Data? = nil, environment: [String: String] = [:]) async throws
        -> Result
    {
        try await offThePool { try runBlocking(arguments, input: input, environment: environment) }
    }

    private func runBlocking(_ arguments: [String], input: Data?, environment: [String: String]) throws -> Result {
        struct NotBuilt: Error, CustomStringConvertible {
            var name: String
            var description: String { "\(name) was not built beside the tests" }
        }
        guard let url else { throw NotBuilt(name: name) }
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        process.environment = Self.environment(adding: environment)
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let stdin = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : stdin
        try process.run()
        if let input {
            stdin.fileHandleForWriting.write(input)
            try stdin.fileHandleForWriting.close()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self), stdoutData: outData)
    }
}
#endif
