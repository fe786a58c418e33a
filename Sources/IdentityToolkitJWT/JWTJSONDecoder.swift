package import Foundation
import IdentityToolkit

/// A `Decoder` for the small JSON objects of a JWT (a JOSE header, a set of
/// claims) that have no generated strict reader (custom-token and OAuth2
/// assertion claims, custom claims as `JSONValue`): Foundation's
/// `JSONDecoder` was 42 % of an uncached ID-token verification, more than
/// the RSA check.
///
/// It reads the generated `Codable` types as they are (the wire names stay
/// in the spec), over ``StrictJSONParser``'s tree: as strict as that
/// grammar (no duplicate member names, no invalid UTF-8, no nesting deeper
/// than ``maximumDepth``, nothing after the value). Errors are
/// `DecodingError`s with the coding path, as `JSONDecoder`'s, so callers
/// can name the claim that failed.
package enum JWTJSONDecoder {
    /// The deepest nesting accepted; a JWT's claims nest two or three levels.
    package static let maximumDepth = StrictJSONParser.maximumDepth

    /// `T` decoded from `data`.
    package static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        let root = try data.withUnsafeBytes { bytes in
            var parser = StrictJSONParser(bytes: bytes)
            return try parser.parseDocument()
        }
        return try T(from: NodeDecoder(node: root, codingPath: []))
    }
}

/// The `Decoder` over a parsed node.
struct NodeDecoder: Decoder {
    let node: JSONNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = node else { throw mismatch([String: Any].self, node, codingPath) }
        return KeyedDecodingContainer(KeyedNodeContainer<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = node else { throw mismatch([Any].self, node, codingPath) }
        return UnkeyedNodeContainer(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleNodeContainer(node: node, codingPath: codingPath)
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

    static func decodable<T: Decodable>(_ type: T.Type, _ node: JSONNode, _ path: @autoclosure () -> [any CodingKey]) throws -> T {
        // The shapes a Firebase token's claims use (`firebase.identities`)
        // read directly: `Decodable`'s generic path for them cost more than
        // the rest of the claims together.
        if T.self == [String].self { return try strings(node, path()) as! T }
        if T.self == [String: [String]].self { return try stringLists(node, path()) as! T }
        return try T(from: NodeDecoder(node: node, codingPath: path()))
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

    var allKeys: [Key] { members.compactMap { Key(stringValue: $0.name) } }

    func contains(_ key: Key) -> Bool { members.contains { $0.name == key.stringValue } }

    private func value(_ key: Key) throws -> JSONNode {
        let name = key.stringValue
        guard let member = members.first(where: { $0.name == name }) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no member \(name)"))
        }
        return member.value
    }

    private func path(_ key: Key) -> [any CodingKey] { codingPath + [key] }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .null = try value(key) { return true }
        return false
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try NodeValue.bool(value(key), path(key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try NodeValue.string(value(key), path(key)) }
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
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try NodeValue.decodable(type, value(key), path(key)) }

    /// The member's value, nil when it is absent or null (as with `JSONDecoder`).
    private func presentValue(_ key: Key) -> JSONNode? {
        let name = key.stringValue
        guard let member = members.first(where: { $0.name == name }) else { return nil }
        if case .null = member.value { return nil }
        return member.value
    }

    // The optional claims, read in one lookup (the protocol's defaults make three).
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
        try presentValue(key).map { try NodeValue.decodable(type, $0, path(key)) }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try NodeDecoder(node: value(key), codingPath: path(key)).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try NodeDecoder(node: value(key), codingPath: path(key)).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        NodeDecoder(node: members.first { $0.name == "super" }?.value ?? .null, codingPath: codingPath + [JSONCodingKey.super])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        NodeDecoder(node: members.first { $0.name == key.stringValue }?.value ?? .null, codingPath: path(key))
    }
}

struct UnkeyedNodeContainer: UnkeyedDecodingContainer {
    let elements: [JSONNode]
    let codingPath: [any CodingKey]
    var currentIndex = 0

    init(elements: [JSONNode], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
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
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { let (node, path) = try next(type); return try NodeValue.decodable(type, node, path) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (node, path) = try next([String: Any].self)
        return try NodeDecoder(node: node, codingPath: path).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (node, path) = try next([Any].self)
        return try NodeDecoder(node: node, codingPath: path).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let (node, path) = try next(Any.self)
        return NodeDecoder(node: node, codingPath: path)
    }
}

struct SingleNodeContainer: SingleValueDecodingContainer {
    let node: JSONNode
    let codingPath: [any CodingKey]

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
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try NodeValue.decodable(type, node, codingPath) }
}
