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
    package static func decode<T: Decodable>(_ type: T.Type, from data: Data, reading: StrictJSONReading = .exactNames) throws -> T {
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
    package static func decode<T: Decodable>(_ type: T.Type, from root: JSONNode, reading: StrictJSONReading = .exactNames) throws -> T {
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

    /// Exact names, absent required members refused: `JSONDecoder`'s way.
    package static let exactNames = StrictJSONReading(snakeCaseWireNames: nil, fillsAbsentRequiredMembers: false)

    /// A request body as Google's servers read it: either spelling of a
    /// name (the wire name's own wins when both are sent), and an absent
    /// required member decoded empty so that the operation checks it in
    /// its own order and names it with its own error (a project's switches
    /// before `MISSING_ID_TOKEN`).
    package static func protoJSONRequest(snakeCaseWireNames: Set<String>) -> StrictJSONReading {
        StrictJSONReading(snakeCaseWireNames: snakeCaseWireNames, fillsAbsentRequiredMembers: true)
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
        return (parts.first.map(String.init) ?? "") + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
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

/// The `Decoder` over a parsed node. `isAbsent`: the node stands for an
/// absent required member being filled (``StrictJSONReading``): read as
/// `""`, `[]` or `{}`, whichever the type asks for.
struct NodeDecoder: Decoder {
    let node: JSONNode
    let codingPath: [any CodingKey]
    let reading: StrictJSONReading
    var isAbsent = false
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        if isAbsent { return KeyedDecodingContainer(KeyedNodeContainer<Key>(members: [], codingPath: codingPath, reading: reading)) }
        guard case .object(let members) = node else { throw mismatch([String: Any].self, node, codingPath) }
        return KeyedDecodingContainer(KeyedNodeContainer<Key>(members: members, codingPath: codingPath, reading: reading))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        if isAbsent { return UnkeyedNodeContainer(elements: [], codingPath: codingPath, reading: reading) }
        guard case .array(let elements) = node else { throw mismatch([Any].self, node, codingPath) }
        return UnkeyedNodeContainer(elements: elements, codingPath: codingPath, reading: reading)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleNodeContainer(node: isAbsent ? .string("") : node, codingPath: codingPath, reading: reading)
    }
}

func mismatch(_ type: Any.Type, _ node: JSONNode, _ path: [any CodingKey]) -> DecodingError {
    if case .null = node {
        return .valueNotFound(type, .init(codingPath: path, debugDescription: "expected \(type), found null"))
    }
    return .typeMismatch(type, .init(codingPath: path, debugDescription: "expected \(type), found \(node.kind)"))
}

/// The primitive conversions, shared by the three kinds of container.
enum NodeValue {
    static func bool(_ node: JSONNode, _ path: @autoclosure () -> [any CodingKey]) throws -> Bool {
        guard case .bool(let value) = node else { throw mismatch(Bool.self, node, path()) }
        return value
    }

    static func string(_ node: JSONNode, _ path: @autoclosure () -> [any CodingKey]) throws -> String {
        guard case .string(let value) = node else { throw mismatch(String.self, node, path()) }
        return value
    }

    static func integer<T: FixedWidthInteger>(_ type: T.Type, _ node: JSONNode, _ path: @autoclosure () -> [any CodingKey]) throws -> T {
        guard case .number(let text) = node else { throw mismatch(T.self, node, path()) }
        if let value = StrictJSONParser.integer(T.self, fromNumber: text) { return value }
        throw DecodingError.dataCorrupted(.init(codingPath: path(), debugDescription: "the number does not fit \(T.self)"))
    }

    static func floatingPoint<T: BinaryFloatingPoint & LosslessStringConvertible>(_ type: T.Type, _ node: JSONNode, _ path: @autoclosure () -> [any CodingKey]) throws -> T {
        guard case .number(let text) = node else { throw mismatch(T.self, node, path()) }
        guard let value = T(text), value.isFinite else {
            throw DecodingError.dataCorrupted(.init(codingPath: path(), debugDescription: "the number does not fit \(T.self)"))
        }
        return value
    }

    static func decodable<T: Decodable>(_ type: T.Type, _ node: JSONNode, _ path: @autoclosure () -> [any CodingKey], _ reading: StrictJSONReading) throws -> T {
        // The shapes a Firebase token's claims use (`firebase.identities`)
        // read directly: `Decodable`'s generic path for them cost more than
        // the rest of the claims together.
        if T.self == [String].self { return try strings(node, path()) as! T }
        if T.self == [String: [String]].self { return try stringLists(node, path()) as! T }
        return try T(from: NodeDecoder(node: node, codingPath: path(), reading: reading))
    }

    private static func strings(_ node: JSONNode, _ path: [any CodingKey]) throws -> [String] {
        guard case .array(let elements) = node else { throw mismatch([String].self, node, path) }
        var strings: [String] = []
        strings.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            strings.append(try string(element, path + [JSONCodingKey(index: index)]))
        }
        return strings
    }

    private static func stringLists(_ node: JSONNode, _ path: [any CodingKey]) throws -> [String: [String]] {
        guard case .object(let members) = node else { throw mismatch([String: [String]].self, node, path) }
        var lists: [String: [String]] = [:]
        lists.reserveCapacity(members.count)
        for member in members {
            lists[member.name] = try strings(member.value, path + [JSONCodingKey(name: member.name)])
        }
        return lists
    }
}

struct KeyedNodeContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [(name: String, value: JSONNode)]
    let codingPath: [any CodingKey]
    let reading: StrictJSONReading
    /// Wire name → index of the member sent under its other spelling
    /// (proto3 JSON reading only): resolved by name, never by copying.
    private let otherSpellings: [String: Int]

    init(members: [(name: String, value: JSONNode)], codingPath: [any CodingKey], reading: StrictJSONReading) {
        self.members = members
        self.codingPath = codingPath
        self.reading = reading
        var otherSpellings: [String: Int] = [:]
        if let snakeCaseWireNames = reading.snakeCaseWireNames {
            for (index, member) in members.enumerated() {
                let wireName = StrictJSONReading.wireName(of: member.name, snakeCaseWireNames: snakeCaseWireNames)
                guard wireName != member.name else { continue }
                // Two other spellings of one name: the first in name order, every time.
                if let earlier = otherSpellings[wireName], members[earlier].name < member.name { continue }
                otherSpellings[wireName] = index
            }
        }
        self.otherSpellings = otherSpellings
    }

    var allKeys: [Key] { members.compactMap { Key(stringValue: $0.name) } }

    /// The member sent for `key`: under its own name (which wins), else under the other spelling.
    private func member(_ key: Key) -> JSONNode? {
        let name = key.stringValue
        if let member = members.first(where: { $0.name == name }) { return member.value }
        // Most bodies send every name in its own spelling: no hashing then.
        guard !otherSpellings.isEmpty, let index = otherSpellings[name] else { return nil }
        return members[index].value
    }

    func contains(_ key: Key) -> Bool { member(key) != nil }

    private func notFound(_ key: Key) -> DecodingError {
        .keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no member \(key.stringValue)"))
    }

    private func value(_ key: Key) throws -> JSONNode {
        guard let value = member(key) else { throw notFound(key) }
        return value
    }

    private func path(_ key: Key) -> [any CodingKey] { codingPath + [key] }

    /// The decoder for `key`'s value; for an absent member when this reading fills them, one that reads it empty.
    private func decoder(_ key: Key) throws -> NodeDecoder {
        if let value = member(key) { return NodeDecoder(node: value, codingPath: path(key), reading: reading) }
        guard reading.fillsAbsentRequiredMembers else { throw notFound(key) }
        return NodeDecoder(node: .null, codingPath: path(key), reading: reading, isAbsent: true)
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .null = try value(key) { return true }
        return false
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try NodeValue.bool(value(key), path(key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        guard let value = member(key) else {
            if reading.fillsAbsentRequiredMembers { return "" }
            throw notFound(key)
        }
        return try NodeValue.string(value, path(key))
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try NodeValue.floatingPoint(type, value(key), path(key)) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try NodeValue.floatingPoint(type, value(key), path(key)) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try NodeValue.integer(type, value(key), path(key)) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try NodeValue.integer(type, value(key), path(key)) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try NodeValue.integer(type, value(key), path(key)) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try NodeValue.integer(type, value(key), path(key)) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try NodeValue.integer(type, value(key), path(key)) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try NodeValue.integer(type, value(key), path(key)) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try NodeValue.integer(type, value(key), path(key)) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try NodeValue.integer(type, value(key), path(key)) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try NodeValue.integer(type, value(key), path(key)) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try NodeValue.integer(type, value(key), path(key)) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        if let value = member(key) { return try NodeValue.decodable(type, value, path(key), reading) }
        guard reading.fillsAbsentRequiredMembers else { throw notFound(key) }
        do {
            return try T(from: NodeDecoder(node: .null, codingPath: path(key), reading: reading, isAbsent: true))
        } catch DecodingError.keyNotFound(let inner, let context) {
            // A member absent inside the filled value is reported where it is.
            throw DecodingError.keyNotFound(inner, context)
        } catch {
            // No empty value fits (a date, an enumeration): the member is reported missing.
            throw notFound(key)
        }
    }

    /// The member's value, nil when it is absent or null (as with `JSONDecoder`).
    private func presentValue(_ key: Key) -> JSONNode? {
        guard let value = member(key) else { return nil }
        if case .null = value { return nil }
        return value
    }

    // The optional members, read in one lookup (the protocol's defaults make three).
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try presentValue(key).map { try NodeValue.string($0, path(key)) }
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try presentValue(key).map { try NodeValue.bool($0, path(key)) }
    }

    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try presentValue(key).map { try NodeValue.integer(type, $0, path(key)) }
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try presentValue(key).map { try NodeValue.decodable(type, $0, path(key), reading) }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        NodeDecoder(node: members.first { $0.name == "super" }?.value ?? .null, codingPath: codingPath + [JSONCodingKey.super], reading: reading)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        NodeDecoder(node: member(key) ?? .null, codingPath: path(key), reading: reading)
    }
}

struct UnkeyedNodeContainer: UnkeyedDecodingContainer {
    let elements: [JSONNode]
    let codingPath: [any CodingKey]
    let reading: StrictJSONReading
    var currentIndex = 0

    init(elements: [JSONNode], codingPath: [any CodingKey], reading: StrictJSONReading) {
        self.elements = elements
        self.codingPath = codingPath
        self.reading = reading
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private mutating func next(_ type: Any.Type) throws -> (JSONNode, [any CodingKey]) {
        let path = codingPath + [JSONCodingKey(index: currentIndex)]
        guard !isAtEnd else { throw DecodingError.valueNotFound(type, .init(codingPath: path, debugDescription: "the array has ended")) }
        defer { currentIndex += 1 }
        return (elements[currentIndex], path)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { throw DecodingError.valueNotFound(Any?.self, .init(codingPath: codingPath, debugDescription: "the array has ended")) }
        if case .null = elements[currentIndex] {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { let (node, path) = try next(type); return try NodeValue.bool(node, path) }
    mutating func decode(_ type: String.Type) throws -> String { let (node, path) = try next(type); return try NodeValue.string(node, path) }
    mutating func decode(_ type: Double.Type) throws -> Double { let (node, path) = try next(type); return try NodeValue.floatingPoint(type, node, path) }
    mutating func decode(_ type: Float.Type) throws -> Float { let (node, path) = try next(type); return try NodeValue.floatingPoint(type, node, path) }
    mutating func decode(_ type: Int.Type) throws -> Int { let (node, path) = try next(type); return try NodeValue.integer(type, node, path) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { let (node, path) = try next(type); return try NodeValue.integer(type, node, path) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { let (node, path) = try next(type); return try NodeValue.integer(type, node, path) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { let (node, path) = try next(type); return try NodeValue.integer(type, node, path) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { let (node, path) = try next(type); return try NodeValue.integer(type, node, path) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { let (node, path) = try next(type); return try NodeValue.integer(type, node, path) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { let (node, path) = try next(type); return try NodeValue.integer(type, node, path) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { let (node, path) = try next(type); return try NodeValue.integer(type, node, path) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { let (node, path) = try next(type); return try NodeValue.integer(type, node, path) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { let (node, path) = try next(type); return try NodeValue.integer(type, node, path) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { let (node, path) = try next(type); return try NodeValue.decodable(type, node, path, reading) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (node, path) = try next([String: Any].self)
        return try NodeDecoder(node: node, codingPath: path, reading: reading).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (node, path) = try next([Any].self)
        return try NodeDecoder(node: node, codingPath: path, reading: reading).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let (node, path) = try next(Any.self)
        return NodeDecoder(node: node, codingPath: path, reading: reading)
    }
}

struct SingleNodeContainer: SingleValueDecodingContainer {
    let node: JSONNode
    let codingPath: [any CodingKey]
    let reading: StrictJSONReading

    func decodeNil() -> Bool {
        if case .null = node { return true }
        return false
    }

    func decode(_ type: Bool.Type) throws -> Bool { try NodeValue.bool(node, codingPath) }
    func decode(_ type: String.Type) throws -> String { try NodeValue.string(node, codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try NodeValue.floatingPoint(type, node, codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try NodeValue.floatingPoint(type, node, codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try NodeValue.integer(type, node, codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try NodeValue.integer(type, node, codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try NodeValue.integer(type, node, codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try NodeValue.integer(type, node, codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try NodeValue.integer(type, node, codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try NodeValue.integer(type, node, codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try NodeValue.integer(type, node, codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try NodeValue.integer(type, node, codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try NodeValue.integer(type, node, codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try NodeValue.integer(type, node, codingPath) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try NodeValue.decodable(type, node, codingPath, reading) }
}
