/// Turns the syntax model into text: four-space indentation, one blank line
/// between declarations at type level, `///` doc comments, no trailing spaces.
struct Renderer {
    private var lines: [String] = []
    private var depth = 0

    static func render(_ file: SwiftFile) -> String {
        var renderer = Renderer()
        renderer.emitFile(file)
        return renderer.lines.joined(separator: "\n") + "\n"
    }

    private mutating func emit(_ text: String) {
        lines.append(text.isEmpty ? "" : String(repeating: "    ", count: depth) + text)
    }

    private mutating func emitFile(_ file: SwiftFile) {
        for line in file.header.split(separator: "\n", omittingEmptySubsequences: false) {
            emit(line.isEmpty ? "//" : "// \(line)")
        }
        if !file.imports.isEmpty {
            emit("")
            for module in file.imports { emit(module.text.contains(" import ") ? module.text : "import \(module)") }
        }
        for declaration in file.declarations {
            emit("")
            emitDeclaration(declaration)
        }
    }

    private mutating func emitDoc(_ doc: String?) {
        guard let doc, !doc.isEmpty else { return }
        for line in Naming.docLines(doc) {
            emit(line.isEmpty ? "///" : "/// \(line)")
        }
    }

    private mutating func emitMembers(_ members: [Declaration]) {
        depth += 1
        var previousWasCase = false
        for (index, member) in members.enumerated() {
            var isCase = false
            if case .enumCase(let decl) = member, decl.doc == nil { isCase = true }
            // Undocumented enum cases sit together; everything else is spaced.
            if index > 0 && !(isCase && previousWasCase) { emit("") }
            emitDeclaration(member)
            previousWasCase = isCase
        }
        depth -= 1
    }

    private static func prefix(_ access: AccessModifier?, isStatic: Bool = false) -> String {
        (access.map { "\($0.rawValue) " } ?? "") + (isStatic ? "static " : "")
    }

    private mutating func emitDeclaration(_ declaration: Declaration) {
        switch declaration {
        case .typeAlias(let decl):
            emitDoc(decl.doc)
            emit("\(Self.prefix(decl.access))typealias \(decl.name) = \(decl.type)")
        case .enumCase(let decl):
            emitDoc(decl.doc)
            emit("case \(decl.name)" + (decl.rawValue.map { " = \($0)" } ?? ""))
        case .type(let decl):
            emitDoc(decl.doc)
            for attribute in decl.attributes { emit(attribute.text) }
            let conformances =
                decl.conformances.isEmpty ? "" : ": " + decl.conformances.map(\.text).joined(separator: ", ")
            if decl.members.isEmpty {
                emit("\(Self.prefix(decl.access))\(decl.kind.rawValue) \(decl.name)\(conformances) {}")
            } else {
                emit("\(Self.prefix(decl.access))\(decl.kind.rawValue) \(decl.name)\(conformances) {")
                emitMembers(decl.members)
                emit("}")
            }
        case .extension(let decl):
            let conformances =
                decl.conformances.isEmpty ? "" : ": " + decl.conformances.map(\.text).joined(separator: ", ")
            emit("extension \(decl.extendedType)\(conformances) {")
            emitMembers(decl.members)
            emit("}")
        case .variable(let decl):
            emitDoc(decl.doc)
            var text = "\(Self.prefix(decl.access, isStatic: decl.isStatic))\(decl.isLet ? "let" : "var") \(decl.name)"
            if let type = decl.type { text += ": \(type)" }
            if let value = decl.initialValue { text += " = \(value)" }
            if let getter = decl.getter {
                if getter.isEmpty {
                    emit(text + " { get }")
                } else {
                    emit(text + " {")
                    emitStatements(getter)
                    emit("}")
                }
            } else {
                emit(text)
            }
        case .function(let decl):
            emitDoc(decl.doc)
            for attribute in decl.attributes { emit(attribute.text) }
            let name: String
            switch decl.kind {
            case .function(let base): name = "func \(base)"
            case .initializer(let failable): name = failable ? "init?" : "init"
            }
            let parameters = decl.parameters.map { parameter -> String in
                var text =
                    parameter.label.map { $0 == parameter.name ? parameter.name.text : "\($0) \(parameter.name)" }
                    ?? "_ \(parameter.name)"
                text += ": \(parameter.type)"
                if let value = parameter.defaultValue { text += " = \(value)" }
                return text
            }
            var effects = ""
            if decl.isAsync { effects += " async" }
            if decl.isThrowing { effects += " throws" }
            let returns = decl.returnType.map { " -> \($0)" } ?? ""
            let head = "\(Self.prefix(decl.access, isStatic: decl.isStatic))\(name)"
            let oneLine = "\(head)(\(parameters.joined(separator: ", ")))\(effects)\(returns)"
            let opener = decl.body == nil ? "" : " {"
            if oneLine.count + depth * 4 <= 110 || parameters.count < 2 {
                emit(oneLine + opener)
            } else {
                emit("\(head)(")
                depth += 1
                for (index, parameter) in parameters.enumerated() {
                    emit(parameter + (index == parameters.count - 1 ? "" : ","))
                }
                depth -= 1
                emit(")\(effects)\(returns)\(opener)")
            }
            if let body = decl.body {
                emitStatements(body)
                emit("}")
            }
        }
    }

    private mutating func emitStatements(_ statements: [Statement]) {
        depth += 1
        for statement in statements { emitStatement(statement) }
        depth -= 1
    }

    private mutating func emitStatement(_ statement: Statement) {
        switch statement {
        case .line(let code):
            emit(code.text)
        case .block(let header, let body):
            emit("\(header) {")
            for statement in body {
                if case .switchCase(let label, let caseBody) = statement {
                    // `case` labels align with their `switch`.
                    emit(label.text)
                    emitStatements(caseBody)
                } else {
                    depth += 1
                    emitStatement(statement)
                    depth -= 1
                }
            }
            emit("}")
        case .switchCase(let label, let body):
            emit(label.text)
            emitStatements(body)
        case .bracketed(let open, let body, let close):
            emit(open.text)
            emitStatements(body)
            emit(close.text)
        }
    }
}
