import Yams

/// A YAML node with the file it came from, so every value read from it can
/// point back to its `file:line:column`.
struct YAMLValue {
    let node: Node
    let file: String

    var location: SourceLocation {
        let mark = node.mark
        return SourceLocation(file: file, line: mark?.line ?? 1, column: mark?.column ?? 1)
    }

    /// Parses a whole YAML file; a syntax error becomes a diagnostic at its mark.
    static func parse(_ text: String, file: String, diagnostics: DiagnosticCollector) -> YAMLValue? {
        do {
            guard let node = try Yams.compose(yaml: text) else {
                diagnostics.error("the file is empty", at: SourceLocation(file: file, line: 1, column: 1))
                return nil
            }
            return YAMLValue(node: node, file: file)
        } catch let error as YamlError {
            let (message, mark) = describe(error)
            diagnostics.error(
                "malformed YAML: \(message)",
                at: SourceLocation(file: file, line: mark?.line ?? 1, column: mark?.column ?? 1)
            )
            return nil
        } catch {
            diagnostics.error("malformed YAML: \(error)", at: SourceLocation(file: file, line: 1, column: 1))
            return nil
        }
    }

    private static func describe(_ error: YamlError) -> (String, Mark?) {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            let prefix = context.map { "\($0.text) (from line \($0.mark.line), column \($0.mark.column)) " } ?? ""
            return (prefix + problem, mark)
        case .duplicatedKeysInMapping(let duplicates, let context):
            return ("duplicate key '\(duplicates.sorted().joined(separator: "', '"))' \(context.text)", context.mark)
        case .reader(let problem, _, _, _):
            return (problem, nil)
        default:
            return ("\(error)", nil)
        }
    }

    var scalar: String? {
        if case .scalar(let scalar) = node { return scalar.string }
        return nil
    }

    var mappingEntries: [(key: String, keyLocation: SourceLocation, value: YAMLValue)]? {
        guard case .mapping(let mapping) = node else { return nil }
        return mapping.map { pair in
            let key = YAMLValue(node: pair.key, file: file)
            return (pair.key.string ?? "", key.location, YAMLValue(node: pair.value, file: file))
        }
    }

    var sequenceItems: [YAMLValue]? {
        guard case .sequence(let sequence) = node else { return nil }
        return sequence.map { YAMLValue(node: $0, file: file) }
    }

    var kindName: String {
        switch node {
        case .scalar: return "a scalar"
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .alias: return "an alias"
        }
    }
}

/// Reads one YAML mapping key by key, with typed accessors that report a
/// diagnostic for a missing or ill-typed value and, when asked, for keys that
/// nothing read (a typo in a hand-written facade or error entry).
final class MappingReader {
    let value: YAMLValue
    let context: String
    private let diagnostics: DiagnosticCollector
    private var entries: [String: (keyLocation: SourceLocation, value: YAMLValue)] = [:]
    private var order: [String] = []
    private var consumed: Set<String> = []

    init?(_ value: YAMLValue, context: String, diagnostics: DiagnosticCollector) {
        guard let list = value.mappingEntries else {
            diagnostics.error("expected \(context) to be a mapping, found \(value.kindName)", at: value.location)
            return nil
        }
        self.value = value
        self.context = context
        self.diagnostics = diagnostics
        for entry in list {
            entries[entry.key] = (entry.keyLocation, entry.value)
            order.append(entry.key)
        }
    }

    var location: SourceLocation { value.location }
    var keys: [String] { order }

    func has(_ key: String) -> Bool { entries[key] != nil }

    func raw(_ key: String) -> YAMLValue? {
        consumed.insert(key)
        return entries[key]?.value
    }

    func keyLocation(_ key: String) -> SourceLocation? { entries[key]?.keyLocation }

    func string(_ key: String, required: Bool = false) -> String? {
        guard let node = raw(key) else {
            if required { diagnostics.error("\(context) is missing '\(key)'", at: location) }
            return nil
        }
        guard let text = node.scalar else {
            diagnostics.error(
                "expected '\(key)' of \(context) to be a string, found \(node.kindName)", at: node.location)
            return nil
        }
        return text
    }

    func bool(_ key: String) -> Bool? {
        guard let node = raw(key) else { return nil }
        switch node.scalar {
        case "true": return true
        case "false": return false
        default:
            diagnostics.error("expected '\(key)' of \(context) to be true or false", at: node.location)
            return nil
        }
    }

    func int(_ key: String, required: Bool = false) -> Int? {
        guard let node = raw(key) else {
            if required { diagnostics.error("\(context) is missing '\(key)'", at: location) }
            return nil
        }
        guard let text = node.scalar, let number = Int(text) else {
            diagnostics.error("expected '\(key)' of \(context) to be an integer", at: node.location)
            return nil
        }
        return number
    }

    func mapping(_ key: String, required: Bool = false) -> MappingReader? {
        guard let node = raw(key) else {
            if required { diagnostics.error("\(context) is missing '\(key)'", at: location) }
            return nil
        }
        return MappingReader(node, context: "'\(key)' of \(context)", diagnostics: diagnostics)
    }

    func list(_ key: String, required: Bool = false) -> [YAMLValue]? {
        guard let node = raw(key) else {
            if required { diagnostics.error("\(context) is missing '\(key)'", at: location) }
            return nil
        }
        guard let items = node.sequenceItems else {
            diagnostics.error("expected '\(key)' of \(context) to be a list, found \(node.kindName)", at: node.location)
            return nil
        }
        return items
    }

    func stringList(_ key: String) -> [String]? {
        guard let items = list(key) else { return nil }
        return items.compactMap { item in
            guard let text = item.scalar else {
                diagnostics.error("expected the items of '\(key)' of \(context) to be strings", at: item.location)
                return nil
            }
            return text
        }
    }

    /// Reports every key that no accessor read, as an error naming the allowed ones.
    func rejectUnknownKeys() {
        for key in order where !consumed.contains(key) {
            diagnostics.error("unknown key '\(key)' in \(context)", at: entries[key]?.keyLocation ?? location)
        }
    }
}
