#if Tools
import ArgumentParser
import Foundation
import SpecCodegen

@main
struct SpecCodegenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "spec-codegen",
        abstract: "Generates typed Swift clients from the project's YAML spec.",
        subcommands: [Generate.self, Validate.self, Diff.self, APIDiffCommand.self]
    )
}

/// Prints diagnostics in `file:line:column: error: message` form and exits 1.
func fail(_ diagnostics: [Diagnostic]) -> ExitCode {
    for diagnostic in diagnostics {
        FileHandle.standardError.write(Data((diagnostic.description + "\n").utf8))
    }
    return ExitCode(1)
}

struct Generate: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Generate the fixed set of Swift files for a config.")

    @Option(help: "The spec-codegen-config.json to generate for.")
    var config: String

    @Option(help: "Where to write the files; only files whose bytes change are rewritten.")
    var outputDirectory: String

    func run() throws {
        do {
            let outputs = try SpecCodegen.generate(configAt: config)
            try SpecCodegen.write(outputs, to: outputDirectory)
        } catch let failure as SpecCodegenFailure {
            throw fail(failure.diagnostics)
        }
    }
}

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check spec files (OpenAPI, errors, facades); exit 1 on any error.")

    @Argument(help: "The YAML files to check.")
    var files: [String]

    func run() throws {
        let diagnostics = SpecCodegen.validate(files: files)
        if diagnostics.contains(where: { $0.severity == .error }) { throw fail(diagnostics) }
        for diagnostic in diagnostics { print(diagnostic) }
        print("\(files.count) file(s) valid")
    }
}

struct Diff: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compare what a config generates with the files in a folder; exit 1 when they differ.",
        discussion: "Use it to check committed generated code, or to see what a spec change does to the Swift API."
    )

    @Option(help: "The spec-codegen-config.json to generate for.")
    var config: String

    @Option(help: "The folder holding the files to compare with.")
    var against: String

    func run() throws {
        let outputs: [OutputFile: String]
        do {
            outputs = try SpecCodegen.generate(configAt: config)
        } catch let failure as SpecCodegenFailure {
            throw fail(failure.diagnostics)
        }
        var differing: [String] = []
        for (file, text) in outputs.sorted(by: { $0.key < $1.key }) {
            let path = against + "/" + file.rawValue
            let existing = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            if existing != text {
                differing.append(file.rawValue)
                print("--- \(path)\n+++ generated")
                printLineDiff(old: existing, new: text)
            }
        }
        if differing.isEmpty {
            print("no differences")
        } else {
            throw ExitCode(1)
        }
    }

    /// A compact diff: lines only in the old file with `-`, only in the new with `+`.
    private func printLineDiff(old: String, new: String) {
        let oldLines = old.split(separator: "\n", omittingEmptySubsequences: false)
        let newLines = new.split(separator: "\n", omittingEmptySubsequences: false)
        let difference = newLines.difference(from: oldLines)
        for change in difference {
            switch change {
            case .remove(let offset, let line, _): print("-\(offset + 1): \(line)")
            case .insert(let offset, let line, _): print("+\(offset + 1): \(line)")
            }
        }
    }
}

struct APIDiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "api-diff",
        abstract: "Report what a spec change does to the generated Swift API; exit 1 when something breaks.",
        discussion: """
            OLD and NEW are two versions of one spec file (an OpenAPI document, errors.yaml or facades.yaml) \
            or two Spec/ folders (files matched by name). One line per change on stdout: \
            `breaking: …` (code written against OLD may not compile), `additive: …` or `cosmetic: …` \
            (no public declaration changes). Exit 0 when nothing is breaking, 1 when something is, \
            2 for an unreadable or invalid spec (diagnostics on stderr).
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json }

    @Argument(help: "The old version: a spec file or a Spec/ folder.")
    var old: String

    @Argument(help: "The new version: a spec file or a Spec/ folder.")
    var new: String

    @Option(help: "text (one line per change) or json.")
    var format: Format = .text

    @Option(
        help:
            "The package whose Sources/*/spec-codegen-config.json name the modules (default: the one holding NEW).")
    var package: String?

    func run() throws {
        let changes: [APIChange]
        do {
            changes = try APIDiff.compare(old: old, new: new, package: package)
        } catch let failure as SpecCodegenFailure {
            for diagnostic in failure.diagnostics {
                FileHandle.standardError.write(Data((diagnostic.description + "\n").utf8))
            }
            throw ExitCode(2)
        }
        let breaking = changes.contains { $0.kind == .breaking }
        switch format {
        case .text:
            for change in changes { print(change) }
        case .json:
            struct Report: Encodable {
                var verdict: String
                var changes: [APIChange]
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let data = try encoder.encode(Report(verdict: breaking ? "breaking" : "compatible", changes: changes))
            print(String(decoding: data, as: UTF8.self))
        }
        if breaking { throw ExitCode(1) }
    }
}
#endif
