#if AsyncHTTPClient
import Foundation

/// Code that a document (the README, a DocC article) shows and a test
/// compiles: a snippet file, its leading comment lines dropped, appears in the
/// document verbatim as a Swift code block.
public enum DocSnippet {
    /// The repository's root folder.
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Whether the document at `documentPath` (from the root) shows `snippetFile`.
    public static func shows(_ snippetFile: URL, in documentPath: String) throws -> Bool {
        try swiftBlocks(in: documentPath).contains(try code(of: snippetFile))
    }

    /// A snippet file's code: the file without its leading comment lines.
    public static func code(of snippetFile: URL) throws -> String {
        let snippet = try String(contentsOf: snippetFile, encoding: .utf8)
        return snippet.split(separator: "\n", omittingEmptySubsequences: false).drop { $0.hasPrefix("//") }
            .joined(separator: "\n").trimmingCharacters(in: .newlines)
    }

    /// The code of the document's Swift code blocks.
    public static func swiftBlocks(in documentPath: String) throws -> [String] {
        try swiftBlocksWithPrecedingLine(in: documentPath).map(\.code)
    }

    /// The document's Swift code blocks, each with the nearest non-empty line above its fence.
    public static func swiftBlocksWithPrecedingLine(in documentPath: String) throws -> [(
        preceding: String, code: String
    )] {
        let text = try String(contentsOf: root.appendingPathComponent(documentPath), encoding: .utf8)
        var blocks: [(String, String)] = []
        var current: [Substring]?
        var preceding = ""
        var lastNonEmpty = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if var lines = current {
                if line == "```" {
                    blocks.append((preceding, lines.joined(separator: "\n")))
                    current = nil
                } else {
                    lines.append(line)
                    current = lines
                }
            } else if line == "```swift" {
                preceding = lastNonEmpty
                current = []
            } else if !line.trimmingCharacters(in: .whitespaces).isEmpty {
                lastNonEmpty = String(line)
            }
        }
        return blocks
    }
}
#endif
