import Foundation
import PackagePlugin

/// `swift package generate-code-from-spec [--target NAME] [--output-directory DIR]`
///
/// Writes the same files the build-tool plugin generates into a folder of the
/// package (default `generated-review/<target>`), for reading and API diffs.
@main
struct GenerateCodeFromSpec: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        let targetNames = Set(extractor.extractOption(named: "target"))
        let outputRoot =
            extractor.extractOption(named: "output-directory").last
            .map { URL(fileURLWithPath: $0, relativeTo: context.package.directoryURL).standardizedFileURL }
            ?? context.package.directoryURL.appending(path: "generated-review")
        if let unknown = extractor.remainingArguments.first {
            throw CommandError("unknown argument '\(unknown)'; use --target NAME and --output-directory DIR")
        }
        let tool = try context.tool(named: "spec-codegen-plugin-tool")
        var generated = 0
        for target in context.package.targets {
            guard let target = target as? SourceModuleTarget else { continue }
            if !targetNames.isEmpty && !targetNames.contains(target.name) { continue }
            let config = target.directoryURL.appending(path: "spec-codegen-config.json")
            guard FileManager.default.fileExists(atPath: config.path) else { continue }
            let output = outputRoot.appending(path: target.name)
            let process = Process()
            process.executableURL = tool.url
            process.arguments = ["generate", "--config", config.path, "--output-directory", output.path]
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw CommandError("spec-codegen failed for target \(target.name) (exit \(process.terminationStatus))")
            }
            print("generated \(target.name) into \(output.path)")
            generated += 1
        }
        if generated == 0 {
            throw CommandError("no target with a spec-codegen-config.json matched")
        }
    }
}

struct CommandError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
