import Foundation
import PackagePlugin

/// Runs the generator (`spec-codegen-plugin-tool generate`) for every target that carries a
/// `spec-codegen-config.json`, writing a fixed set of Swift files into the
/// plugin's work directory.
///
/// The inputs are the config, every file it names and the generator binary,
/// so SwiftPM reruns the command only when one of them changed.
@main
struct SpecCodegenPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let config = target.directoryURL.appending(path: GeneratorConfigFile.name)
        guard FileManager.default.fileExists(atPath: config.path) else {
            throw SpecCodegenPluginError.missingConfig(target: target.name, path: config.path)
        }
        let inputs = try GeneratorConfigFile.inputFiles(of: config)
        let tool = try context.tool(named: "spec-codegen-plugin-tool")
        let outputDirectory = context.pluginWorkDirectoryURL.appending(path: "GeneratedSources")
        return [
            .buildCommand(
                displayName: "Generating Swift for \(target.name) from its spec",
                executable: tool.url,
                arguments: ["generate", "--config", config.path, "--output-directory", outputDirectory.path],
                inputFiles: [config, tool.url] + inputs,
                outputFiles: GeneratorConfigFile.outputFileNames.map { outputDirectory.appending(path: $0) }
            )
        ]
    }
}

/// What the plugin must know of the config without linking the generator.
enum GeneratorConfigFile {
    static let name = "spec-codegen-config.json"

    /// The fixed output set; it must match `OutputFile.allCases` in SpecCodegen
    /// (a test in SpecCodegenTests reads this file to check that it does).
    static let outputFileNames = [
        "GeneratedTypes.swift",
        "GeneratedClients.swift",
        "GeneratedClientCompletions.swift",
        "GeneratedErrorCodes.swift",
        "GeneratedFacades.swift",
        "GeneratedServer.swift",
        "GeneratedServerErrors.swift",
    ]

    private struct Paths: Decodable {
        var specs: [String]
        var errors: String?
        var facades: String?
    }

    /// The files the config names, resolved against the config's folder.
    static func inputFiles(of config: URL) throws -> [URL] {
        let paths: Paths
        do {
            paths = try JSONDecoder().decode(Paths.self, from: Data(contentsOf: config))
        } catch {
            throw SpecCodegenPluginError.unreadableConfig(path: config.path, reason: "\(error)")
        }
        let folder = config.deletingLastPathComponent()
        return (paths.specs + [paths.errors, paths.facades].compactMap { $0 }).map {
            folder.appending(path: $0).standardizedFileURL
        }
    }
}

enum SpecCodegenPluginError: Error, CustomStringConvertible {
    case missingConfig(target: String, path: String)
    case unreadableConfig(path: String, reason: String)

    var description: String {
        switch self {
        case .missingConfig(let target, let path):
            return "target '\(target)' applies SpecCodegenPlugin but has no config at \(path)"
        case .unreadableConfig(let path, let reason):
            return "\(path): error: cannot read the generator config: \(reason)"
        }
    }
}
