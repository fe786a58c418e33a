/// A small model of the Swift the generator emits. The translator builds it,
/// the renderer turns it into text; neither knows about the other's concerns.
struct SwiftFile {
    var header: String
    var imports: [String]
    var declarations: [Declaration]
}

indirect enum Declaration {
    case type(TypeDeclaration)
    case `extension`(ExtensionDeclaration)
    case function(FunctionDeclaration)
    case variable(VariableDeclaration)
    case enumCase(EnumCaseDeclaration)
    case typeAlias(doc: String?, access: AccessModifier?, name: String, type: String)
    case mark(String)
}

enum AccessModifier: String {
    case `public`, `internal`, `fileprivate`, `private`, package
}

struct TypeDeclaration {
    enum Kind: String { case `struct`, `enum`, `final class` = "final class", `actor`, `protocol` }

    var doc: String?
    var attributes: [String] = []
    var access: AccessModifier?
    var kind: Kind
    var name: String
    var conformances: [String] = []
    var members: [Declaration]
}

struct ExtensionDeclaration {
    var access: AccessModifier?
    var extendedType: String
    var conformances: [String] = []
    var members: [Declaration]
}

struct FunctionDeclaration {
    enum Kind { case function(String), initializer(failable: Bool) }

    struct Parameter {
        var label: String?
        var name: String
        var type: String
        var defaultValue: String?
    }

    var doc: String?
    var attributes: [String] = []
    var access: AccessModifier?
    var isStatic = false
    var kind: Kind
    var parameters: [Parameter]
    var isAsync = false
    var isThrowing = false
    var returnType: String?
    /// nil for a protocol requirement.
    var body: [Statement]?
}

struct VariableDeclaration {
    var doc: String?
    var attributes: [String] = []
    var access: AccessModifier?
    var isStatic = false
    var isLet: Bool
    var name: String
    var type: String?
    var initialValue: String?
    /// A computed property's getter; `{ get }` when empty in a protocol.
    var getter: [Statement]?
}

struct EnumCaseDeclaration {
    var doc: String?
    var name: String
    var rawValue: String?
}

indirect enum Statement {
    /// One line of code.
    case line(String)
    /// `header {` body `}`, e.g. an `if`, a `switch`, a closure.
    case block(String, [Statement], closer: String = "}")
    /// `case …:` followed by an indented body, inside a `switch` block.
    case switchCase(String, [Statement])
    /// An opening line, an indented body and a closing line, verbatim:
    /// array literals, trailing closures (`Route(…) { request in` … `},`).
    case bracketed(open: String, [Statement], close: String)
}
