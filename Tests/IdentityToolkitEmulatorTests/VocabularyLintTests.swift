import Foundation
import Testing

/// The emulator's hand-written code speaks the spec's vocabulary: errors
/// are the cases generated from `Spec/errors.yaml`, never a short code in a
/// string; response kinds, provider ids and the signing algorithm come from
/// the spec's enums.
@Suite struct VocabularyLintTests {
    static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url
    }()

    static func emulatorSources() throws -> [(String, String)] {
        let folder = root.appendingPathComponent("Sources/IdentityToolkitEmulator")
        let files =
            FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        return try files.filter { $0.pathExtension == "swift" }.map {
            ($0.lastPathComponent, try String(contentsOf: $0, encoding: .utf8))
        }
    }

    @Test func noErrorIsSpelledByHand() throws {
        let sources = try Self.emulatorSources()
        #expect(sources.count > 20)
        for (name, text) in sources {
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                // An HTML input's `type="password"` is no provider id.
                let code = (line.split(separator: "//").first ?? "").replacingOccurrences(
                    of: "type=\"password\"", with: "")
                #expect(!code.contains("APIServerError("), "\(name):\(number + 1) builds an error by hand: \(line)")
                #expect(!code.contains("identitytoolkit#"), "\(name):\(number + 1) spells a response kind: \(line)")
                #expect(!code.contains("\"RS256\""), "\(name):\(number + 1) spells the algorithm: \(line)")
                for provider in ["\"password\"", "\"custom\"", "\"anonymous\"", "\"phone\""] {
                    #expect(!code.contains(provider), "\(name):\(number + 1) spells a provider id: \(line)")
                }
            }
        }
    }

    /// No emulator file does nine jobs again.
    @Test func everyFileIsSmall() throws {
        for (name, text) in try Self.emulatorSources() {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count
            #expect(lines <= 300, "\(name) has \(lines) lines")
        }
    }
}
