package import Foundation

/// A `Decoder` over ``StrictJSONParser``'s tree, for the package's untrusted
/// JSON: a JWT's header and claims where no generated strict reader is
/// (custom-token and OAuth2 assertion claims, custom claims as
/// `JSONValue`; Foundation's `JSONDecoder` was 42 % of an uncached ID-token
/// verification, more than the RSA check), and the emulator's request
/// bodies, read the way proto3 JSON parsers read them
/// (``StrictJSONReading/protoJSONRequest(snakeCaseWireNames:)``), in one
/// pass.
///
/// It reads the generated `Codable` types as they are (the wire names stay
/// in the spec), as strict as the parser's grammar (no duplicate member
/// names, no invalid UTF-8, no nesting deeper than ``maximumDepth``,
/// nothing after the value). Errors are `DecodingError`s with the coding
/// path, as `JSONDecoder`'s, so callers can name the member that failed
/// (never its value).
package enum StrictJSONDecoder {
    /// The deepest nesting accepted.
    package static let maximumDepth = StrictJSONParser.maximumDepth

    /// `T` decoded from `data`.
    package static func decode<T: Decodable>(_ type: T.Type, from data: Data, reading: StrictJSONReading = .exactNames)
        throws -> T
    {
        try decode(T.self, from: try parse(data), reading: reading)
    }

    /// The tree of `data`, one JSON value with nothing after it.
    package static func parse(_ data: Data) throws -> JSONNode {
        try data.withUnsafeBytes { bytes in
            var parser = StrictJSONParser(bytes: bytes)
            return try parser.parseDocument()
        }
    }

    /// `T` decoded from a tree already parsed (or built, as a form's fields).
    package static func decode<T: Decodable>(
        _ type: T.Type, from root: JSONNode, reading: StrictJSONReading = .exactNames
    ) throws -> T {
        try T(from: NodeDecoder(node: root, codingPath: [], reading: reading))
    }
}

/// How member names and absent members are read.
package struct StrictJSONReading: Sendable {
    /// Proto3 JSON's other spelling of each name: nil reads a member by its
    /// exact name only; otherwise a member may also be sent under the other
    /// spelling of its wire name (`a_b` for `aB` and back), and these are
    /// the schema's snake_case wire names (every other one is lowerCamelCase).
    let snakeCaseWireNames: Set<String>?
    /// Whether an absent required member is read empty (`""`, `[]`, `{}`
    /// filled the same way) rather than refused; a number, a boolean or a
    /// value that no empty one fits is still `keyNotFound`.
    let fillsAbsentRequiredMembers: Bool
    /// Whether a member sent as `null` is refused (`valueNotFound`) rather
    /// than read as absent: how Google's Auth emulator's schema validator
    /// reads a body, where proto3 JSON reads a null as the field's default.
    var refusesNullMembers = false

    /// Exact names, absent required members refused: `JSONDecoder`'s way.
    package static let exactNames = StrictJSONReading(snakeCaseWireNames: nil, fillsAbsentRequiredMembers: false)

    /// A request body as Google's servers read it: either spelling of a
    /// name (the wire name's own wins when both are sent), and an absent
    /// required member decoded empty so that the operation checks it in
    /// its own order and names it with its own error (a project's switches
    /// before `MISSING_ID_TOKEN`).
    /// - Parameter refusesNullMembers: Refuse a member sent as `null`
    ///   (Google's Auth emulator's reading) instead of reading it as absent.
    package static func protoJSONRequest(snakeCaseWireNames: Set<String>, refusesNullMembers: Bool = false)
        -> StrictJSONReading
    {
        StrictJSONReading(
            snakeCaseWireNames: snakeCaseWireNames, fillsAbsentRequiredMembers: true,
            refusesNullMembers: refusesNullMembers)
    }

    /// The wire name a sent name stands for: itself when it is one of the
    /// snake_case names, its snake_case form when that is one, else its
    /// lowerCamelCase form.
    static func wireName(of name: String, snakeCaseWireNames: Set<String>) -> String {
        if snakeCaseWireNames.contains(name) { return name }
        if name.contains("_") { return camelCase(name) }
        guard !snakeCaseWireNames.isEmpty else { return name }
        let snake = snakeCase(name)
        return snakeCaseWireNames.contains(snake) ? snake : name
    }

    static func camelCase(_ name: String) -> String {
        let parts = name.split(separator: "_")
        return (parts.first.map(String.init) ?? "")
            + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    static func snakeCase(_ name: String) -> String {
        name.reduce(into: "") { result, character in
            if character.isUppercase {
                result += "_" + character.lowercased()
            } else {
                result.append(character)
            }
        }
    }
}
