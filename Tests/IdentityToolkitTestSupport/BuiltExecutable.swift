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

    /// Runs it with `arguments`; `input` is given as its standard input,
    /// `environment` is added to this process's. It runs as a
    /// ``ChildProcess``: it inherits nothing of the tests' process, and after
    /// `deadline` it is killed and this throws.
    public func run(
        _ arguments: [String], input: Data? = nil, environment: [String: String] = [:],
        deadline: Duration = harnessRequestTimeout
    ) async throws -> Result {
        let child = try start(arguments, input: input, environment: environment)
        let status = try await child.wait(within: deadline)
        let output = child.standardOutput
        return Result(
            status: status, stdout: String(decoding: output, as: UTF8.self),
            stderr: String(decoding: child.standardError, as: UTF8.self), stdoutData: output)
    }

    /// Starts it with `arguments` and returns at once: for a server the test
    /// talks to and then stops (``ChildProcess/terminate(within:)``).
    public func start(_ arguments: [String], input: Data? = nil, environment: [String: String] = [:]) throws
        -> ChildProcess
    {
        struct NotBuilt: Error, CustomStringConvertible {
            var name: String
            var description: String { "\(name) was not built beside the tests" }
        }
        guard let url else { throw NotBuilt(name: name) }
        return try ChildProcess(
            url, arguments: arguments, environment: Self.environment(adding: environment), input: input)
    }
}
