import FuzzHarnesses
import Foundation

/// libFuzzer's entry point: the harness named by `FUZZ_TARGET` gets each input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzRunner.harness(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

enum FuzzRunner {
    static let harness: @Sendable ([UInt8]) -> Void = {
        let name = ProcessInfo.processInfo.environment["FUZZ_TARGET"] ?? ""
        guard let harness = FuzzHarness.all[name] else {
            FileHandle.standardError.write(Data("fuzz-runner: set FUZZ_TARGET to one of \(FuzzHarness.all.keys.sorted().joined(separator: ", "))\n".utf8))
            exit(2)
        }
        return harness
    }()
}

#if !FUZZING
/// Without libFuzzer (a normal build): replays the files given as arguments.
@main
enum ReplayMain {
    static func main() throws {
        for path in CommandLine.arguments.dropFirst() {
            FuzzRunner.harness(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        }
    }
}
#endif
