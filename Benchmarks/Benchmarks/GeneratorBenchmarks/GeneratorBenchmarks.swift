import Benchmark
import Foundation
import SpecCodegen

/// `generate` on the real Spec/ (all three OpenAPI documents, types and
/// clients), from YAML text to rendered Swift. Target: under 50 ms.
let benchmarks: @Sendable () -> Void = {
    let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let config = root.appendingPathComponent("Sources/IdentityToolkit/spec-codegen-config.json").path
    // Read the files once: the benchmark measures the generator, not the disk.
    var cache: [String: String] = [:]
    let reader: SpecCodegen.FileReader = { path in
        if let text = cache[path] { return text }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        cache[path] = text
        return text
    }
    _ = try? SpecCodegen.generate(configAt: config, readFile: reader)
    let frozen = cache
    let cachedReader: SpecCodegen.FileReader = { path in
        guard let text = frozen[path] else { throw CocoaError(.fileNoSuchFile) }
        return text
    }

    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .peakMemoryResident], maxDuration: .seconds(5))

    Benchmark("generate real Spec (types + clients)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try SpecCodegen.generate(configAt: config, readFile: cachedReader))
        }
    }
}
