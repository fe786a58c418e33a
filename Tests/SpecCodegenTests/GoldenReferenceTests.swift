import Foundation
import SpecCodegen
import Testing

/// The committed output in Tests/GeneratorGoldenReference/Generated must be
/// exactly what the generator makes of the golden fixtures. To accept a
/// deliberate change, regenerate it:
/// `swift run spec-codegen generate --config Tests/SpecCodegenTests/Fixtures/golden/spec-codegen-config.json --output-directory Tests/GeneratorGoldenReference/Generated`
@Suite struct GoldenReferenceTests {
    let config = Repository.path("Tests/SpecCodegenTests/Fixtures/golden/spec-codegen-config.json")

    @Test func outputMatchesTheCommittedReferenceByteForByte() throws {
        let outputs = try SpecCodegen.generate(configAt: config)
        #expect(Set(outputs.keys) == Set(OutputFile.allCases))
        for (file, text) in outputs {
            let committed = try String(
                contentsOfFile: Repository.path("Tests/GeneratorGoldenReference/Generated/\(file.rawValue)"),
                encoding: .utf8)
            #expect(committed == text, "\(file.rawValue) differs from the committed reference")
        }
    }

    @Test func generationIsDeterministicAndHasNoAbsolutePaths() throws {
        let first = try SpecCodegen.generate(configAt: config)
        let second = try SpecCodegen.generate(configAt: config)
        #expect(first == second)
        for text in first.values {
            #expect(!text.contains(Repository.root))
            #expect(!text.contains("/tmp/"))
        }
    }

    @Test func writeTouchesOnlyFilesWhoseBytesChanged() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "spec-codegen-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var outputs = try SpecCodegen.generate(configAt: config)
        #expect(try SpecCodegen.write(outputs, to: directory).count == OutputFile.allCases.count)
        #expect(try SpecCodegen.write(outputs, to: directory).isEmpty)
        outputs[.types, default: ""] += "// changed\n"
        #expect(try SpecCodegen.write(outputs, to: directory) == [.types])
    }

    /// The files the build-tool plugin produced for IdentityToolkit in the
    /// build that made this test binary: exactly the generator's fixed set
    /// (SwiftPM must know them before the generator runs, so the plugin
    /// declares them; a missing or extra one would fail or be ignored).
    @Test func thePluginProducedExactlyTheGeneratorsOutputFiles() throws {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0])
        while folder.path != "/",
            !FileManager.default.fileExists(atPath: folder.appendingPathComponent("plugins/outputs").path)
        {
            folder.deleteLastPathComponent()
        }
        let outputs = folder.appendingPathComponent("plugins/outputs")
        let packages = try FileManager.default.contentsOfDirectory(atPath: outputs.path)
        let generated = try #require(
            packages.lazy.map {
                outputs.appendingPathComponent("\($0)/IdentityToolkit/destination/SpecCodegenPlugin/GeneratedSources")
            }.first { FileManager.default.fileExists(atPath: $0.path) }, "no plugin output folder under \(outputs.path)"
        )
        let produced = try FileManager.default.contentsOfDirectory(atPath: generated.path).filter {
            $0.hasSuffix(".swift")
        }
        #expect(produced.sorted() == OutputFile.allCases.map(\.rawValue).sorted())
    }

    @Test func theRealSpecGeneratesEveryOperation() throws {
        let outputs = try SpecCodegen.generate(
            configAt: Repository.path("Sources/IdentityToolkit/spec-codegen-config.json"))
        let clients = try #require(outputs[.clients])
        for operation in [
            "signUp", "signInWithPassword", "lookup", "sendOobCode", "update", "startMfaEnrollment",
            "finalizeMfaEnrollment", "withdrawMfa", "startMfaSignIn", "finalizeMfaSignIn", "grantToken",
            "getProjectConfig", "updateProjectConfig", "createTenant", "getTenant", "updateTenant",
        ] {
            #expect(clients.contains("public func \(operation)("), "missing \(operation)")
        }
        #expect(
            SpecCodegen.validate(
                files: ["accounts", "securetoken", "admin"].map {
                    Repository.path("Spec/\($0 == "securetoken" ? "securetoken" : "identitytoolkit-\($0)").yaml")
                } + [Repository.path("Spec/errors.yaml"), Repository.path("Spec/facades.yaml")]
            ).isEmpty)
    }
}
