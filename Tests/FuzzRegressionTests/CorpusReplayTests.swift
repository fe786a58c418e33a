import Foundation
import FuzzHarnesses
import Testing

/// Replays the committed fuzz corpus (`Fuzz/Corpus/<harness>/`), the seeds
/// and every input a fuzzer once crashed on, through the same harnesses
/// libFuzzer runs, so that each finding stays fixed without the fuzzer.
@Suite struct CorpusReplayTests {
    static let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
            "Fuzz/Corpus")

    @Test(arguments: FuzzHarness.all.keys.sorted())
    func corpusReplays(harness name: String) throws {
        let folder = Self.corpus.appendingPathComponent(name)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(!files.isEmpty, "Fuzz/Corpus/\(name) has no seed")
        let harness = try #require(FuzzHarness.all[name])
        for file in files {
            harness(Array(try Data(contentsOf: folder.appendingPathComponent(file))))
        }
    }
}
