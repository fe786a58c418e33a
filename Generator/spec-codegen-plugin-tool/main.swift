// The build-tool plugin's generator: `generate --config FILE --output-directory DIR`
// and nothing else. Every app that links the SDK builds this tool, so it
// links only SpecCodegen (and Yams), not swift-argument-parser; the
// user-facing `spec-codegen` CLI keeps the full command line.
import Foundation
import SpecCodegen

let usage = "usage: spec-codegen-plugin-tool generate --config FILE --output-directory DIR"

func exit(printing message: String, code: Int32) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(code)
}

var arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.first == "generate" else { exit(printing: usage, code: 2) }
arguments.removeFirst()
var options: [String: String] = [:]
while !arguments.isEmpty {
    let name = arguments.removeFirst()
    guard ["--config", "--output-directory"].contains(name), options[name] == nil, !arguments.isEmpty else {
        exit(printing: "unexpected argument '\(name)'\n" + usage, code: 2)
    }
    options[name] = arguments.removeFirst()
}
guard let config = options["--config"], let outputDirectory = options["--output-directory"] else {
    exit(printing: usage, code: 2)
}
do {
    try SpecCodegen.write(try SpecCodegen.generate(configAt: config), to: outputDirectory)
} catch let failure as SpecCodegenFailure {
    exit(printing: failure.diagnostics.map(\.description).joined(separator: "\n"), code: 1)
} catch {
    exit(printing: "\(outputDirectory): error: cannot write the generated files: \(error)", code: 1)
}
