import Foundation
import FuzzHarnesses

#if FUZZING
import FuzzDriver
#endif

/// `fuzz-runner`: built by `.ci/fuzz` with coverage instrumentation,
/// AddressSanitizer and `-DFUZZING`, it hands its arguments to libFuzzer's
/// driver with the harness `FUZZ_TARGET` names; in a normal build it replays
/// the files given as arguments through that harness.
@main
enum FuzzRunner {
    static let harness: @Sendable ([UInt8]) -> Void = {
        let name = ProcessInfo.processInfo.environment["FUZZ_TARGET"] ?? ""
        guard let harness = FuzzHarness.all[name] else {
            FileHandle.standardError.write(
                Data(
                    "fuzz-runner: set FUZZ_TARGET to one of \(FuzzHarness.all.keys.sorted().joined(separator: ", "))\n"
                        .utf8))
            exit(2)
        }
        return harness
    }()

    static func main() throws {
        _ = harness
        #if FUZZING
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(
            LLVMFuzzerRunDriver(&argc, &argv) { data, size in
                FuzzRunner.harness(Array(UnsafeBufferPointer(start: data, count: size)))
                return 0
            })
        #else
        for path in CommandLine.arguments.dropFirst() {
            harness(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        }
        #endif
    }
}
