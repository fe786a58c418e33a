import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A program a test runs as a separate process, which can neither hang the
/// test nor outlive it.
///
/// Foundation's `Process` was the cause of a whole test run hanging until
/// CI's time limit: on Linux it closes a new child's inherited descriptors
/// from a list it makes before spawning, so a child spawned by one test
/// while another test was creating its pipes inherited them. A long-running
/// `mfa emulator` then held a short command's pipe and exit-watch socket
/// open; that command's reads and `waitUntilExit()` never returned, its test
/// never stopped the emulator, and blocked pool threads stalled the rest.
///
/// Here nothing is inherited: the child opens its own standard input,
/// output and error (files in a folder of its own, never pipes, so no read
/// waits for another process), and every other descriptor is closed in the
/// child as it starts (`closefrom` on Linux, `POSIX_SPAWN_CLOEXEC_DEFAULT`
/// on Apple's systems). Every wait has a deadline, after which the child is
/// killed and the test fails with what it printed; a child still running
/// when its handle goes away is killed and reaped.
public final class ChildProcess: @unchecked Sendable {
    /// Why a child could not be run or waited for.
    public enum Failure: Error, CustomStringConvertible {
        /// The program could not be started.
        case notStarted(program: String, reason: String)
        /// The deadline passed first; the child was killed.
        case deadlinePassed(program: String, waited: Duration, standardError: String)
        /// The child ended before it printed a whole line.
        case endedWithoutALine(program: String, status: Int32, standardOutput: String, standardError: String)

        public var description: String {
            switch self {
            case .notStarted(let program, let reason): "\(program) did not start: \(reason)"
            case .deadlinePassed(let program, let waited, let standardError):
                "\(program) was still running after \(waited) and was killed; its standard error ends: \(standardError)"
            case .endedWithoutALine(let program, let status, let standardOutput, let standardError):
                "\(program) ended (status \(status)) before printing a line: \(standardOutput)\(standardError)"
            }
        }
    }

    /// The program's file name, for messages.
    public let program: String
    /// The child's process ID.
    public let processIdentifier: pid_t
    private let folder: URL
    private let lock = NSLock()
    private var exitStatus: Int32?

    /// Starts `executable` with `arguments`, the whole `environment`, and
    /// `input` (if any) as its standard input (otherwise `/dev/null`).
    public init(
        _ executable: URL, arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
        input: Data? = nil
    ) throws {
        program = executable.lastPathComponent
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        var inputPath = "/dev/null"
        if let input {
            inputPath = folder.appendingPathComponent("stdin").path
            try input.write(to: URL(fileURLWithPath: inputPath))
        }
        do {
            processIdentifier = try Self.spawn(
                executable.path, arguments: [executable.path] + arguments,
                environment: environment,
                input: inputPath, output: folder.appendingPathComponent("stdout").path,
                error: folder.appendingPathComponent("stderr").path)
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw Failure.notStarted(program: program, reason: "\(error)")
        }
    }

    deinit {
        if exitStatus == nil {
            kill(processIdentifier, SIGKILL)
            var status: Int32 = 0
            while waitpid(processIdentifier, &status, 0) == -1 && errno == EINTR {}
        }
        try? FileManager.default.removeItem(at: folder)
    }

    /// What the child has written to its standard output so far.
    public var standardOutput: Data { (try? Data(contentsOf: folder.appendingPathComponent("stdout"))) ?? Data() }

    /// What the child has written to its standard error so far.
    public var standardError: Data { (try? Data(contentsOf: folder.appendingPathComponent("stderr"))) ?? Data() }

    /// Waits for the child to end, off the cooperative pool, and returns its
    /// exit status (128 + the signal's number if a signal ended it, as
    /// shells report). After `deadline` the child is killed and this throws.
    @discardableResult
    public func wait(within deadline: Duration = harnessRequestTimeout) async throws -> Int32 {
        try await offThePool { try self.waitBlocking(within: deadline) }
    }

    /// Asks the child to stop (`SIGTERM`) and waits as ``wait(within:)`` does.
    @discardableResult
    public func terminate(within deadline: Duration = harnessRequestTimeout) async throws -> Int32 {
        if lock.withLock({ exitStatus == nil }) { kill(processIdentifier, SIGTERM) }
        return try await wait(within: deadline)
    }

    /// Waits, off the cooperative pool, for the first line of the child's
    /// standard output and returns it without its line break.
    public func firstLine(within deadline: Duration = harnessRequestTimeout) async throws -> String {
        try await offThePool {
            try self.poll(within: deadline) {
                let output = self.standardOutput
                if let end = output.firstIndex(of: UInt8(ascii: "\n")) {
                    return String(decoding: output[..<end], as: UTF8.self)
                }
                if let status = try self.reap(blocking: false) {
                    throw Failure.endedWithoutALine(
                        program: self.program, status: status, standardOutput: String(decoding: output, as: UTF8.self),
                        standardError: String(decoding: self.standardError, as: UTF8.self))
                }
                return nil
            }
        }
    }

    private func waitBlocking(within deadline: Duration) throws -> Int32 {
        try poll(within: deadline) { try reap(blocking: false) }
    }

    /// Calls `check` every 1 to 20 ms until it returns a value; past
    /// `deadline` the child is killed and this throws.
    private func poll<Value>(within deadline: Duration, _ check: () throws -> Value?) throws -> Value {
        let start = ContinuousClock.now
        var pause = Duration.milliseconds(1)
        while true {
            if let value = try check() { return value }
            if ContinuousClock.now - start > deadline { try killAfter(deadline) }
            Thread.sleep(forTimeInterval: Double(pause.components.attoseconds) / 1e18)
            pause = min(pause * 2, .milliseconds(20))
        }
    }

    /// Kills the child, reaps it and throws ``Failure/deadlinePassed(program:waited:standardError:)``.
    private func killAfter(_ deadline: Duration) throws -> Never {
        kill(processIdentifier, SIGKILL)
        _ = try? reap(blocking: true)
        let errors = String(decoding: standardError.suffix(2_000), as: UTF8.self)
        throw Failure.deadlinePassed(program: program, waited: deadline, standardError: errors)
    }

    /// The exit status if the child has ended (reaping it once), else nil.
    private func reap(blocking: Bool) throws -> Int32? {
        try lock.withLock {
            if let exitStatus { return exitStatus }
            var status: Int32 = 0
            var result: pid_t
            repeat {
                result = waitpid(processIdentifier, &status, blocking ? 0 : WNOHANG)
            } while result == -1 && errno == EINTR
            if result == 0 { return nil }
            guard result == processIdentifier else {
                throw Failure.notStarted(program: program, reason: "waitpid failed with errno \(errno)")
            }
            // The wait status's layout, which Swift does not import as macros:
            // the low seven bits are the ending signal, or 0 for an exit whose
            // code is the next byte.
            let signal = status & 0x7f
            let code = signal == 0 ? (status >> 8) & 0xff : 128 + signal
            exitStatus = code
            return code
        }
    }

    /// `posix_spawn` with the child's three standard descriptors opened in
    /// the child and every other descriptor closed there.
    private static func spawn(
        _ path: String, arguments: [String], environment: [String: String], input: String, output: String,
        error: String
    ) throws -> pid_t {
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t? = nil
        var attributes: posix_spawnattr_t? = nil
        #else
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        #endif
        try check(posix_spawn_file_actions_init(&actions), "posix_spawn_file_actions_init")
        defer { posix_spawn_file_actions_destroy(&actions) }
        try check(posix_spawnattr_init(&attributes), "posix_spawnattr_init")
        defer { posix_spawnattr_destroy(&attributes) }
        try check(posix_spawn_file_actions_addopen(&actions, 0, input, O_RDONLY, 0), "open stdin")
        try check(
            posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600), "open stdout")
        try check(
            posix_spawn_file_actions_addopen(&actions, 2, error, O_WRONLY | O_CREAT | O_TRUNC, 0o600), "open stderr")
        // Signals start as a new program expects: none blocked, none ignored.
        // The tests' process ignores SIGTERM (swift-service-lifecycle does,
        // to watch it through Dispatch), and an ignored signal is inherited.
        var all = sigset_t()
        var none = sigset_t()
        sigfillset(&all)
        sigemptyset(&none)
        try check(posix_spawnattr_setsigdefault(&attributes, &all), "setsigdefault")
        try check(posix_spawnattr_setsigmask(&attributes, &none), "setsigmask")
        var flags = Int32(POSIX_SPAWN_SETSIGDEF) | Int32(POSIX_SPAWN_SETSIGMASK)
        #if canImport(Darwin)
        flags |= Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)
        #endif
        try check(posix_spawnattr_setflags(&attributes, Int16(flags)), "setflags")
        #if !canImport(Darwin)
        // glibc 2.34 and later; Swift's Glibc module does not declare it.
        typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        else { throw SpawnError(step: "posix_spawn_file_actions_addclosefrom_np is missing (glibc < 2.34)", code: 0) }
        try check(unsafeBitCast(symbol, to: AddCloseFrom.self)(&actions, 3), "closefrom")
        #endif
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        try check(posix_spawn(&pid, path, &actions, &attributes, argv, envp), "posix_spawn")
        return pid
    }

    private struct SpawnError: Error, CustomStringConvertible {
        var step: String
        var code: Int32
        var description: String { code == 0 ? step : "\(step): \(String(cString: strerror(code)))" }
    }

    private static func check(_ result: Int32, _ step: String) throws {
        if result != 0 { throw SpawnError(step: step, code: result) }
    }
}
