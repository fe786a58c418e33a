import Foundation
import Testing

/// Every field of `Spec/` whose name says it carries a secret is marked
/// `x-sensitive: true`, so that the generated model redacts it in
/// `description`, `debugDescription` and `dump` (`iosReceipt` once was not).
@Suite struct SensitiveFieldLintTests {
    static let specFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
            "Spec")

    /// Names that carry secrets; `kind`-like names that merely mention one are not.
    static let secretName = try! NSRegularExpression(
        pattern:
            "(?i)(token|password|secret|receipt|credential|sessioninfo|oobcode|verificationcode|^code$|assertion|privatekey)"
    )

    @Test func secretLookingFieldsAreSensitive() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.specFolder.path).filter {
            $0.hasSuffix(".yaml")
        }
        #expect(!files.isEmpty)
        let field = try NSRegularExpression(pattern: #"^\s+([A-Za-z_][A-Za-z0-9_]*): \{(.*)\}\s*$"#)
        var checked = 0
        for file in files {
            let text = try String(contentsOf: Self.specFolder.appendingPathComponent(file), encoding: .utf8)
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = String(line)
                let range = NSRange(line.startIndex..., in: line)
                guard let match = field.firstMatch(in: line, range: range),
                    let nameRange = Range(match.range(at: 1), in: line),
                    let bodyRange = Range(match.range(at: 2), in: line)
                else { continue }
                let name = String(line[nameRange])
                let body = String(line[bodyRange])
                // `*_type` and `*_uri` fields name a kind or an address, and a
                // page token a position in a list: not secrets.
                guard body.contains("type: string"), !name.lowercased().hasSuffix("type"),
                    !name.lowercased().hasSuffix("uri"), !name.hasPrefix("return"),
                    !name.lowercased().hasSuffix("pagetoken"),
                    Self.secretName.firstMatch(in: name, range: NSRange(name.startIndex..., in: name)) != nil
                else { continue }
                checked += 1
                #expect(
                    body.contains("x-sensitive: true"),
                    "Spec/\(file):\(index + 1): '\(name)' looks secret but is not x-sensitive")
            }
        }
        #expect(checked > 20)
    }
}
