import Foundation
import IdentityToolkitTestSupport
import Testing

/// The plugins' generator binary (`spec-codegen-plugin-tool`), run as the
/// build-tool plugin runs it: its one command, its exit codes, its output.
@Suite struct PluginToolTests {
    static let binary = BuiltExecutable("spec-codegen-plugin-tool")

    func run(_ arguments: [String]) async throws -> (status: Int32, stderr: String) {
        let result = try await Self.binary.run(arguments)
        return (result.status, result.stderr)
    }

    @Test func generatesTheGoldenReference() async throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("plugin-tool-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        let result = try await run([
            "generate", "--config", Repository.path("Tests/SpecCodegenTests/Fixtures/golden/spec-codegen-config.json"),
            "--output-directory", output.path,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        for name in try FileManager.default.contentsOfDirectory(
            atPath: Repository.path("Tests/GeneratorGoldenReference/Generated"))
        {
            let expected = try String(
                contentsOfFile: Repository.path("Tests/GeneratorGoldenReference/Generated/\(name)"), encoding: .utf8)
            #expect(try String(contentsOf: output.appendingPathComponent(name), encoding: .utf8) == expected, "\(name)")
        }
    }

    @Test func badArgumentsExit2AndBadSpecsExit1WithDiagnostics() async throws {
        for arguments in [
            [], ["validate"], ["generate", "--config"], ["generate", "--config", "a", "--verbose", "b"],
            ["generate", "--config", "a"],
        ] {
            let result = try await run(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(
                result.stderr.contains("usage: spec-codegen-plugin-tool generate --config FILE --output-directory DIR"))
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("plugin-tool-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(#"{"specs": ["api.yaml"], "generate": ["types"]}"#.utf8).write(
            to: folder.appendingPathComponent("config.json"))
        try Data("openapi: 3.1.0\ninfo: [title\n".utf8).write(to: folder.appendingPathComponent("api.yaml"))
        let result = try await run([
            "generate", "--config", folder.appendingPathComponent("config.json").path, "--output-directory",
            folder.path + "/out",
        ])
        #expect(result.status == 1)
        #expect(result.stderr.contains("api.yaml:3:1: error: malformed YAML"), "\(result.stderr)")
    }
}
