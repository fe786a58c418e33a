import Foundation
import IdentityToolkitTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The test harness's way of running programs: nothing inherited, every wait
/// bounded, nothing left running (`ChildProcess`).
@Suite struct ChildProcessTests {
    static let shell = URL(fileURLWithPath: "/bin/sh")

    @Test func statusOutputErrorAndInput() async throws {
        let child = try ChildProcess(
            Self.shell, arguments: ["-c", "cat; echo to-error >&2; exit 3"], input: Data("from the test\n".utf8))
        #expect(try await child.wait() == 3)
        #expect(String(decoding: child.standardOutput, as: UTF8.self) == "from the test\n")
        #expect(String(decoding: child.standardError, as: UTF8.self) == "to-error\n")
    }

    /// A signal's end reads as a shell reports it: 128 + the signal.
    @Test func aTerminatedChildReportsTheSignal() async throws {
        let child = try ChildProcess(Self.shell, arguments: ["-c", "echo ready; exec sleep 60"])
        #expect(try await child.firstLine() == "ready")
        #expect(try await child.terminate() == 128 + SIGTERM)
    }

    /// A child past its deadline is killed and the wait throws, naming it.
    @Test func aWaitPastItsDeadlineKillsTheChild() async throws {
        let child = try ChildProcess(Self.shell, arguments: ["-c", "echo stuck >&2; exec sleep 60"])
        let started = ContinuousClock.now
        await #expect {
            try await child.wait(within: .milliseconds(300))
        } throws: { error in
            "\(error)".contains("sh was still running after") && "\(error)".contains("stuck")
        }
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(kill(child.processIdentifier, 0) == -1)
    }

    @Test func aChildThatEndsWithoutALineIsAnError() async throws {
        let child = try ChildProcess(Self.shell, arguments: ["-c", "printf partial; exit 4"])
        await #expect {
            try await child.firstLine()
        } throws: { error in
            "\(error)".contains("ended (status 4) before printing a line: partial")
        }
    }

    @Test func aMissingProgramIsAnError() async throws {
        #expect(throws: ChildProcess.Failure.self) {
            try ChildProcess(URL(fileURLWithPath: "/nonexistent/program"), arguments: [])
        }
    }

    /// The cause of a whole run's hang: a descriptor of the tests' process
    /// (here a pipe without close-on-exec, as Foundation's `Pipe` makes)
    /// must not reach a child, or the child holds it open while it runs.
    @Test func aChildInheritsNoDescriptor() async throws {
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        defer { ends.forEach { close($0) } }
        let child = try ChildProcess(Self.shell, arguments: ["-c", "echo ready; exec sleep 60"])
        #expect(try await child.firstLine() == "ready")
        #if os(Linux)
        let open = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(child.processIdentifier)/fd")
        #expect(open.sorted() == ["0", "1", "2"])
        #endif
        close(ends[1])
        ends[1] = -1
        var readEnd = pollfd(fd: ends[0], events: Int16(POLLIN), revents: 0)
        #expect(poll(&readEnd, 1, 10_000) == 1, "the read end saw no end of file: a child holds the write end")
        try await child.terminate()
    }

    /// A handle dropped while its child runs (a test that threw) kills and reaps it.
    @Test func aDroppedHandleLeavesNothingRunning() async throws {
        var child: ChildProcess? = try ChildProcess(Self.shell, arguments: ["-c", "echo ready; exec sleep 60"])
        let pid = try #require(child?.processIdentifier)
        #expect(try await child?.firstLine() == "ready")
        child = nil
        #expect(kill(pid, 0) == -1 && errno == ESRCH)
    }
}
