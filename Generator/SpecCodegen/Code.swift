// Everything that turns spec text into Swift text lives here: the one
// function that validates a spec-derived name (`Naming.identifier`), the one
// that escapes a spec string (`Naming.literalContents`), and `Code`, the only
// kind of text the syntax model accepts. `Code` has no initializer from a
// runtime `String`, so a spec string can reach the output only through those
// two functions: the compiler, not review, keeps generated code well formed.

/// A Swift identifier that came from the spec and was checked once by
/// ``Naming/identifier(_:_:at:diagnostics:)``. Interpolated into ``Code`` it
/// renders with backticks when it is a keyword (`default` → `` `default` ``).
struct SwiftName: Hashable, Comparable, CustomStringConvertible {
    /// The identifier without backticks, as in diagnostics and argument labels.
    let bare: String

    fileprivate init(checked: String) { bare = checked }

    /// The identifier as a declaration or an expression spells it.
    var escaped: String { Naming.keywords.contains(bare) ? "`\(bare)`" : bare }

    /// The identifier after a `.`: there only `self`, `init`, `Type` and
    /// `Protocol` mean something else, so other keywords need no backticks.
    var afterDot: String { ["self", "init", "Type", "Protocol"].contains(bare) ? "`\(bare)`" : bare }

    var description: String { bare }

    static func < (lhs: Self, rhs: Self) -> Bool { lhs.bare < rhs.bare }

    /// The name with an ASCII-letter suffix the generator chose (`openActionLink` +
    /// `Path`): still an identifier, and never a keyword.
    func suffixed(_ suffix: StaticString) -> SwiftName { SwiftName(checked: bare + suffix.description) }
}

/// Generated Swift text. Built from literal generator text and typed
/// interpolations only: a spec name as a ``SwiftName``, a spec string as
/// `\(literal:)` (a quoted, escaped literal), other `Code` as itself.
struct Code: ExpressibleByStringInterpolation, Hashable, CustomStringConvertible {
    fileprivate(set) var text: String

    fileprivate init(verbatim text: String) { self.text = text }

    init(stringLiteral value: StaticString) { text = value.description }

    init(stringInterpolation: StringInterpolation) { text = stringInterpolation.text }

    var description: String { text }

    var isEmpty: Bool { text.isEmpty }

    struct StringInterpolation: StringInterpolationProtocol {
        fileprivate var text = ""

        init(literalCapacity: Int, interpolationCount: Int) { text.reserveCapacity(literalCapacity * 2) }

        mutating func appendLiteral(_ literal: StaticString) { text += literal.description }

        /// A validated spec name, backticked when it is a keyword.
        mutating func appendInterpolation(_ name: SwiftName) { text += name.escaped }

        /// A validated spec name written after a `.` (`.default`, `self.open`).
        mutating func appendInterpolation(member name: SwiftName) { text += name.afterDot }

        mutating func appendInterpolation(_ code: Code) { text += code.text }

        /// A spec string as a Swift string literal.
        mutating func appendInterpolation(literal: String) { text += Code.literal(literal).text }

        /// A number the generator computed or read as a number.
        mutating func appendInterpolation(_ number: Int) { text += String(number) }

        /// Items joined by a separator the generator chose.
        mutating func appendInterpolation(_ items: [Code], separator: StaticString) {
            text += items.map(\.text).joined(separator: separator.description)
        }
    }

    // MARK: The expression forms the translator builds

    /// `"…"`: a spec string as a literal, through the one escaping function.
    static func literal(_ text: String) -> Code {
        Code(verbatim: "\"" + Naming.literalContents(text) + "\"")
    }

    /// `base.member`.
    static func member(_ base: Code, _ member: SwiftName) -> Code {
        Code(verbatim: base.text + "." + member.afterDot)
    }

    /// `callee(label: value, …)`; a nil label is an unlabeled argument. A
    /// keyword needs no backticks as an argument label (the compiler warns
    /// about them), except `inout`, `var` and `let`.
    static func call(_ callee: Code, _ arguments: [(label: Code?, value: Code)]) -> Code {
        func label(_ code: Code) -> String {
            let bare =
                code.text.hasPrefix("`") && code.text.hasSuffix("`") && code.text.count > 2
                ? String(code.text.dropFirst().dropLast()) : code.text
            return ["inout", "var", "let"].contains(bare) ? code.text : bare
        }
        return Code(
            verbatim: callee.text + "("
                + arguments.map { ($0.label.map { label($0) + ": " } ?? "") + $0.value.text }.joined(separator: ", ")
                + ")")
    }

    /// A path template as a literal that escapes each parameter:
    /// `/v1/{name}:get` → `"/v1/\(APIPath.escape(name)):get"`. `parameter`
    /// maps a template name to its Swift name (checked by the parser).
    static func interpolatedPath(_ template: String, parameter: (String) -> SwiftName?) -> Code {
        var text = "\""
        var remainder = Substring(template)
        while let open = remainder.firstIndex(of: "{"), let close = remainder[open...].firstIndex(of: "}") {
            text += Naming.literalContents(String(remainder[..<open]))
            let templateName = String(remainder[remainder.index(after: open)..<close])
            if let name = parameter(templateName) {
                text += "\\(APIPath.escape(\(name.escaped)))"
            } else {
                text += Naming.literalContents(String(remainder[open...close]))
            }
            remainder = remainder[remainder.index(after: close)...]
        }
        return Code(verbatim: text + Naming.literalContents(String(remainder)) + "\"")
    }
}

/// Swift spelling of names that come from the spec.
enum Naming {
    /// Words that need backticks as names (`default`) or cannot name a type (`Type`).
    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init",
        "inout", "internal", "let", "operator", "private", "precedencegroup", "protocol", "public",
        "rethrows", "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue",
        "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return",
        "throw", "switch", "where", "while", "Any", "as", "await", "false", "is", "nil", "self", "Self",
        "super", "throws", "true", "try", "Type", "Protocol",
    ]

    /// Names that cannot be the name of a type even with backticks, or that
    /// would shadow what generated code refers to.
    static let reservedTypeNames: Set<String> = [
        "Type", "Protocol", "Self", "Any", "String", "Int", "Int32", "Int64", "Double", "Bool", "Date", "Data",
        "Optional", "Array", "Dictionary", "Error", "Codable", "Sendable", "Hashable", "CodingKeys", "Result", "Task",
    ]

    /// What a spec-derived name will name; fields, parameters and types are stricter.
    enum Role {
        /// An enum constant, an error code, an operation, a label.
        case value
        /// A stored property or a method parameter: `self` would shadow
        /// `self`, and the rest would clash with what the generator adds.
        case member
        case type
    }

    /// Names a field or parameter cannot have (set `x-swift-name` instead).
    static let reservedMemberNames: Set<String> = [
        "self", "Self", "init", "deinit", "subscript", "Type", "Protocol", "body", "request", "completion",
        "configuration",
        "executor", "description", "debugDescription", "customMirror", "redactedFields", "FieldPath", "CodingKeys",
    ]

    /// The one validating function for spec-derived names: `candidate`
    /// becomes a ``SwiftName``, or an `error:` naming `what` at `location`.
    static func identifier(
        _ candidate: String, _ what: @autoclosure () -> String, role: Role = .value, at location: SourceLocation,
        diagnostics: DiagnosticCollector
    ) -> SwiftName? {
        guard isIdentifier(candidate) else {
            let hint = role == .member ? "; set 'x-swift-name'" : ""
            diagnostics.error(
                "\(what()) '\(candidate)' cannot become a Swift name (ASCII letters, digits and '_', not starting with a digit)\(hint)",
                at: location)
            return nil
        }
        if role == .type, keywords.contains(candidate) || reservedTypeNames.contains(candidate) {
            diagnostics.error(
                "\(what()) '\(candidate)' cannot name a generated type (it is a keyword or a type the generated code uses)",
                at: location)
            return nil
        }
        if role == .member, reservedMemberNames.contains(candidate) {
            diagnostics.error(
                "\(what()) '\(candidate)' would clash with a name the generated code uses; set 'x-swift-name'",
                at: location)
            return nil
        }
        return SwiftName(checked: candidate)
    }

    /// A dotted name such as `AuthCompletionDelivery.deliver`, each part checked.
    static func qualifiedName(
        _ candidate: String, _ what: @autoclosure () -> String, at location: SourceLocation,
        diagnostics: DiagnosticCollector
    ) -> Code? {
        let parts = candidate.split(separator: ".", omittingEmptySubsequences: false)
        guard !parts.isEmpty, parts.allSatisfy({ isIdentifier(String($0)) }) else {
            diagnostics.error("\(what()) '\(candidate)' must be a Swift name such as 'Type.member'", at: location)
            return nil
        }
        return Code(verbatim: parts.map { SwiftName(checked: String($0)).escaped }.joined(separator: "."))
    }

    /// A type as written in `facades.yaml` (`[MultiFactorInfo]?`,
    /// `@escaping @Sendable (String) -> Void`): identifiers joined by type
    /// punctuation only, so it can hold no literal, comment or statement.
    static func typeExpression(
        _ candidate: String, _ what: @autoclosure () -> String, at location: SourceLocation,
        diagnostics: DiagnosticCollector
    ) -> Code? {
        let allowedPunctuation = Set("[]()<>?!:,.@-> &")
        let wellFormed =
            !candidate.isEmpty
            && candidate.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII
                    && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_"
                        || allowedPunctuation.contains(Character(scalar)))
            } && balanced(candidate)
        guard wellFormed else {
            diagnostics.error(
                "\(what()) '\(candidate)' is not a Swift type (identifiers with [ ] ( ) < > ? ! : , . @ -> & only)",
                at: location)
            return nil
        }
        return Code(verbatim: candidate)
    }

    private static func balanced(_ text: String) -> Bool {
        var stack: [Character] = []
        let pairs: [Character: Character] = ["]": "[", ")": "(", ">": "<"]
        for character in text {
            if "[(<".contains(character) {
                stack.append(character)
            } else if let open = pairs[character] {
                // `->` is an arrow, not a closing angle bracket.
                if character == ">", stack.last != "<" { continue }
                guard stack.popLast() == open else { return false }
            }
        }
        return stack.isEmpty
    }

    /// The one escaping function: `text` as the inside of a Swift string
    /// literal. Quotes, backslashes (so `\(` cannot interpolate) and every
    /// control or line-breaking character are escaped.
    static func literalContents(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\t": escaped += "\\t"
            case "\r": escaped += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || scalar.properties.generalCategory == .lineSeparator
                    || scalar.properties.generalCategory == .paragraphSeparator
                {
                    escaped += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    escaped.unicodeScalars.append(scalar)
                }
            }
        }
        return escaped
    }

    /// Doc text from the spec as comment lines: every line break Swift
    /// knows (`\n`, `\r\n`, `\r`) starts a new `///` line, so a description
    /// can never end the comment and start code.
    static func docLines(_ text: String) -> [String] {
        var lines: [String] = []
        var current = ""
        var previousWasCarriageReturn = false
        for scalar in text.unicodeScalars {
            if scalar == "\n" && previousWasCarriageReturn {
                previousWasCarriageReturn = false
                continue
            }
            previousWasCarriageReturn = scalar == "\r"
            if scalar == "\n" || scalar == "\r" || scalar == "\u{2028}" || scalar == "\u{2029}" || scalar == "\u{0B}"
                || scalar == "\u{0C}"
            {
                lines.append(current)
                current = ""
            } else if scalar.value < 0x20 && scalar != "\t" {
                current += " "
            } else {
                current.unicodeScalars.append(scalar)
            }
        }
        lines.append(current)
        return lines
    }

    /// `access_token` → `accessToken`, `FOO_BAR` (enum value) → `fooBar`,
    /// `$.xgafv` → `xgafv`: words are split at every character that cannot
    /// be in an identifier; the result is checked by `identifier` after.
    static func camelCase(_ name: String) -> String {
        let parts = name.split(whereSeparator: {
            !($0.isASCII && ($0.isLetter || $0.isNumber)) && !(!$0.isASCII && $0.isLetter)
        })
        guard !parts.isEmpty else { return "" }
        let allUpper = name == name.uppercased()
        var result = ""
        for (index, part) in parts.enumerated() {
            let word = allUpper ? part.lowercased() : String(part)
            if index == 0 {
                result += word.prefix(1).lowercased() + word.dropFirst()
            } else {
                result += word.prefix(1).uppercased() + word.dropFirst()
            }
        }
        if let first = result.first, first.isNumber { result = "_" + result }
        return result
    }

    /// ASCII letters, digits and `_`, not starting with a digit, not `_` alone.
    static func isIdentifier(_ text: String) -> Bool {
        guard text != "_", let first = text.unicodeScalars.first,
            first == "_" || (first.properties.isAlphabetic && first.isASCII)
        else { return false }
        return text.unicodeScalars.allSatisfy {
            $0 == "_" || ($0.isASCII && $0.properties.isAlphabetic) || ("0"..."9").contains($0)
        }
    }
}

extension SwiftName {
    /// Stands in for a name whose error was already reported: generation
    /// stops after the stage that found errors, so it never reaches output.
    static let placeholder = SwiftName(checked: "_invalid")
}

/// A Swift function name such as `enroll(with:displayName:)`; a nil label
/// is `_`, an unlabeled argument.
struct FunctionName: Equatable, CustomStringConvertible {
    var base: SwiftName
    var labels: [SwiftName?]

    /// Parses and checks every part; nil when any part is not an identifier.
    init?(_ text: String) {
        guard let open = text.firstIndex(of: "("), text.hasSuffix(")") else { return nil }
        let base = String(text[..<open])
        let inside = text[text.index(after: open)..<text.index(before: text.endIndex)]
        guard Naming.isIdentifier(base) else { return nil }
        var labels: [SwiftName?] = []
        if !inside.isEmpty {
            guard inside.hasSuffix(":") else { return nil }
            for label in inside.dropLast().split(separator: ":", omittingEmptySubsequences: false) {
                if label == "_" {
                    labels.append(nil)
                } else {
                    guard Naming.isIdentifier(String(label)) else { return nil }
                    labels.append(SwiftName(checked: String(label)))
                }
            }
        }
        self.base = SwiftName(checked: base)
        self.labels = labels
    }

    var description: String { "\(base)(\(labels.map { "\($0?.bare ?? "_"):" }.joined()))" }
}

extension SwiftName {
    /// The server protocol of a client: `AccountsClient` → `AccountsService`
    /// (identifier characters added to an identifier stay one).
    var serviceName: SwiftName {
        SwiftName(checked: (bare.hasSuffix("Client") ? String(bare.dropLast("Client".count)) : bare) + "Service")
    }
}
