/// A small model of the Swift the generator emits. The translator builds it,
/// the renderer turns it into text; neither knows about the other's concerns.
/// Every name, type and expression is ``Code``, so nothing from the spec gets
/// in without passing `Naming`'s one validating and one escaping function;
/// doc text is the only plain `String`, and the renderer makes it comment lines.
struct SwiftFile {
    var header: String
    var imports: [Code]
    var declarations: [Declaration]
}

indirect enum Declaration {
    case type(TypeDeclaration)
    case `extension`(ExtensionDeclaration)
    case function(FunctionDeclaration)
    case variable(VariableDeclaration)
    case enumCase(EnumCaseDeclaration)
    case typeAlias(TypeAliasDeclaration)
}

/// `typealias Name = Type`.
struct TypeAliasDeclaration {
    var doc: String?
    var access: AccessModifier?
    var name: Code
    var type: Code
}

enum AccessModifier: String {
    case `public`, `internal`, `private`, package
}

struct TypeDeclaration {
    enum Kind: String { case `struct`, `enum`, `protocol` }

    var doc: String?
    /// Such as `@_spi(Generated)`, each on a line of its own.
    var attributes: [Code] = []
    var access: AccessModifier?
    var kind: Kind
    var name: Code
    var conformances: [Code] = []
    var members: [Declaration]
}

struct ExtensionDeclaration {
    var extendedType: Code
    var conformances: [Code] = []
    var members: [Declaration]
}

struct FunctionDeclaration {
    enum Kind {
        case function(Code)
        case initializer(failable: Bool)
    }

    struct Parameter {
        /// nil for an unlabeled parameter (`_ name`).
        var label: Code?
        var name: Code
        var type: Code
        var defaultValue: Code?
    }

    var doc: String?
    var attributes: [Code] = []
    var access: AccessModifier?
    var isStatic = false
    var kind: Kind
    var parameters: [Parameter]
    var isAsync = false
    var isThrowing = false
    var returnType: Code?
    /// nil for a protocol requirement.
    var body: [Statement]?
}

struct VariableDeclaration {
    var doc: String?
    var access: AccessModifier?
    var isStatic = false
    var isLet: Bool
    var name: Code
    var type: Code?
    var initialValue: Code?
    /// A computed property's getter; `{ get }` when empty in a protocol.
    var getter: [Statement]?
}

struct EnumCaseDeclaration {
    var doc: String?
    var name: Code
    var rawValue: Code?
}

indirect enum Statement {
    /// One line of code.
    case line(Code)
    /// `header {` body `}`, e.g. an `if`, a `switch`, a closure.
    case block(Code, [Statement])
    /// `case …:` followed by an indented body, inside a `switch` block.
    case switchCase(Code, [Statement])
    /// An opening line, an indented body and a closing line, verbatim:
    /// array literals, trailing closures (`Route(…) { request in` … `},`).
    case bracketed(open: Code, [Statement], close: Code)
}
