/// The declarations a generated file adds to its module's API, read from the
/// same syntax model the renderer prints: what `api-diff` compares, so that
/// its verdict is about the Swift this generator emits, not about HTTP.
struct APIDeclaration: Hashable {
    enum Kind: String {
        case type
        case typeAlias = "typealias"
        case property
        case staticProperty = "static property"
        case method
        case staticMethod = "static method"
        case initializer
        case enumCase = "enum case"
        case requirement = "protocol requirement"
    }

    var module: String
    var file: OutputFile
    /// The enclosing types and the member's name: `["SignUpRequest", "email"]`.
    var path: [String]
    var kind: Kind
    /// What tells overloads apart: a function's labels (`signUp(_:completion:)`).
    var key: String
    /// Everything a caller depends on: types, labels, defaults, effects.
    var signature: String
    /// Part of the module's public API (server routes never are).
    var isPublic: Bool

    /// The identity compared across versions: module, place and overload.
    var identity: String {
        "\(module)|\(path.dropLast().joined(separator: "."))|\(kind == .staticMethod || kind == .staticProperty ? "static " : "")\(key)"
    }

    /// `property IdentityToolkit.SignUpRequest.email`.
    var described: String {
        let qualified = ([module] + path.dropLast() + [key]).filter { !$0.isEmpty }.joined(separator: ".")
        let word: String
        switch kind {
        case .type: word = signature.split(separator: " ").first.map(String.init) ?? "type"
        default: word = kind.rawValue
        }
        return "\(word) \(qualified)"
    }
}

enum APISurface {
    /// The declarations of `file`, public or not (server routes are `package`
    /// or `internal`: their changes are reported, but break no caller).
    static func declarations(of file: SwiftFile, output: OutputFile, module: String) -> [APIDeclaration] {
        var found: [APIDeclaration] = []
        func visit(_ declaration: Declaration, parent: [String], parentIsPublic: Bool, inProtocol: Bool) {
            func isPublic(_ access: AccessModifier?) -> Bool {
                if inProtocol { return parentIsPublic }
                return access == .public && (parent.isEmpty || parentIsPublic)
            }
            switch declaration {
            case .type(let type):
                let name = type.name.description
                // An SPI type (`@_spi(Generated)`) is plumbing, not API.
                let exposed = isPublic(type.access) && !type.attributes.contains { $0.text.hasPrefix("@_spi(") }
                found.append(
                    APIDeclaration(
                        module: module, file: output, path: parent + [name], kind: .type, key: name,
                        signature: "\(type.kind.rawValue) \(name)", isPublic: exposed))
                for member in type.members {
                    visit(member, parent: parent + [name], parentIsPublic: exposed, inProtocol: type.kind == .protocol)
                }
            case .extension(let ext):
                // An extension's members are as public as they say, on a type
                // that is public elsewhere (hand-written or generated).
                let path = ext.extendedType.description.split(separator: ".").map(String.init)
                for member in ext.members { visit(member, parent: path, parentIsPublic: true, inProtocol: false) }
            case .function(let function):
                let labels = function.parameters.map { "\($0.label.map { $0.description } ?? "_"):" }.joined()
                let parameters = function.parameters.map { parameter in
                    "\(parameter.label.map { $0.description } ?? "_"): \(parameter.type)\(parameter.defaultValue.map { " = \($0)" } ?? "")"
                }.joined(separator: ", ")
                let effects = (function.isAsync ? " async" : "") + (function.isThrowing ? " throws" : "")
                let name: String
                let kind: APIDeclaration.Kind
                let signature: String
                switch function.kind {
                case .initializer(let failable):
                    name = "init"
                    kind = inProtocol ? .requirement : .initializer
                    signature = "init\(failable ? "?" : "")(\(parameters))\(effects)"
                case .function(let base):
                    name = base.description
                    kind = inProtocol ? .requirement : (function.isStatic ? .staticMethod : .method)
                    signature =
                        "\(function.isStatic ? "static " : "")func \(name)(\(parameters))\(effects)\(function.returnType.map { " -> \($0)" } ?? "")"
                }
                found.append(
                    APIDeclaration(
                        module: module, file: output, path: parent + [name], kind: kind, key: "\(name)(\(labels))",
                        signature: signature, isPublic: isPublic(function.access)))
            case .variable(let variable):
                let name = variable.name.description
                // An initial value is not API (a constant's wire value may change); its type is.
                let type = variable.type?.description ?? "(inferred)"
                let kind: APIDeclaration.Kind =
                    inProtocol ? .requirement : (variable.isStatic ? .staticProperty : .property)
                // A `let` and a settable `var` differ for callers; a computed `var` is read-only.
                let mutability = variable.isLet || variable.getter != nil ? "get" : "get set"
                found.append(
                    APIDeclaration(
                        module: module, file: output, path: parent + [name], kind: kind, key: name,
                        signature: "\(variable.isStatic ? "static " : "")var \(name): \(type) { \(mutability) }",
                        isPublic: isPublic(variable.access)))
            case .enumCase(let enumCase):
                let name = enumCase.name.description
                found.append(
                    APIDeclaration(
                        module: module, file: output, path: parent + [name], kind: .enumCase, key: name,
                        signature: "case \(name)", isPublic: parentIsPublic))
            case .typeAlias(let alias):
                let name = alias.name.description
                found.append(
                    APIDeclaration(
                        module: module, file: output, path: parent + [name], kind: .typeAlias, key: name,
                        signature: "typealias \(name) = \(alias.type)", isPublic: isPublic(alias.access)))
            }
        }
        for declaration in file.declarations { visit(declaration, parent: [], parentIsPublic: true, inProtocol: false) }
        return found
    }
}
