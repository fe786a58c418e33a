import Foundation

// The decoder StrictJSONDecoder runs over a parsed tree: its three kinds
// of container and the primitive conversions they share.

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
        if isAbsent {
            return KeyedDecodingContainer(
                KeyedNodeContainer<Key>(members: [], codingPath: codingPath, reading: reading))
        }
        guard case .object(let members) = node else { throw mismatch([String: Any].self, node, codingPath) }
        return KeyedDecodingContainer(
            KeyedNodeContainer<Key>(members: members, codingPath: codingPath, reading: reading))
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

    static func integer<T: FixedWidthInteger>(
        _ type: T.Type, _ node: JSONNode, _ path: @autoclosure () -> [any CodingKey]
    ) throws -> T {
        guard case .number(let text) = node else { throw mismatch(T.self, node, path()) }
        if let value = StrictJSONParser.integer(T.self, fromNumber: text) { return value }
        throw DecodingError.dataCorrupted(
            .init(codingPath: path(), debugDescription: "the number does not fit \(T.self)"))
    }

    static func floatingPoint<T: BinaryFloatingPoint & LosslessStringConvertible>(
        _ type: T.Type, _ node: JSONNode, _ path: @autoclosure () -> [any CodingKey]
    ) throws -> T {
        guard case .number(let text) = node else { throw mismatch(T.self, node, path()) }
        guard let value = T(text), value.isFinite else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: path(), debugDescription: "the number does not fit \(T.self)"))
        }
        return value
    }

    static func decodable<T: Decodable>(
        _ type: T.Type, _ node: JSONNode, _ path: @autoclosure () -> [any CodingKey], _ reading: StrictJSONReading
    ) throws -> T {
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

/// The unkeyed container of ``NodeDecoder``: an array's elements in order.
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
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: path, debugDescription: "the array has ended"))
        }
        defer { currentIndex += 1 }
        return (elements[currentIndex], path)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                Any?.self, .init(codingPath: codingPath, debugDescription: "the array has ended"))
        }
        if case .null = elements[currentIndex] {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool {
        let (node, path) = try next(type)
        return try NodeValue.bool(node, path)
    }
    mutating func decode(_ type: String.Type) throws -> String {
        let (node, path) = try next(type)
        return try NodeValue.string(node, path)
    }
    mutating func decode(_ type: Double.Type) throws -> Double {
        let (node, path) = try next(type)
        return try NodeValue.floatingPoint(type, node, path)
    }
    mutating func decode(_ type: Float.Type) throws -> Float {
        let (node, path) = try next(type)
        return try NodeValue.floatingPoint(type, node, path)
    }
    mutating func decode(_ type: Int.Type) throws -> Int {
        let (node, path) = try next(type)
        return try NodeValue.integer(type, node, path)
    }
    mutating func decode(_ type: Int8.Type) throws -> Int8 {
        let (node, path) = try next(type)
        return try NodeValue.integer(type, node, path)
    }
    mutating func decode(_ type: Int16.Type) throws -> Int16 {
        let (node, path) = try next(type)
        return try NodeValue.integer(type, node, path)
    }
    mutating func decode(_ type: Int32.Type) throws -> Int32 {
        let (node, path) = try next(type)
        return try NodeValue.integer(type, node, path)
    }
    mutating func decode(_ type: Int64.Type) throws -> Int64 {
        let (node, path) = try next(type)
        return try NodeValue.integer(type, node, path)
    }
    mutating func decode(_ type: UInt.Type) throws -> UInt {
        let (node, path) = try next(type)
        return try NodeValue.integer(type, node, path)
    }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 {
        let (node, path) = try next(type)
        return try NodeValue.integer(type, node, path)
    }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 {
        let (node, path) = try next(type)
        return try NodeValue.integer(type, node, path)
    }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 {
        let (node, path) = try next(type)
        return try NodeValue.integer(type, node, path)
    }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 {
        let (node, path) = try next(type)
        return try NodeValue.integer(type, node, path)
    }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (node, path) = try next(type)
        return try NodeValue.decodable(type, node, path, reading)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<
        NestedKey
    > {
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

/// The single-value container of ``NodeDecoder``: one primitive value.
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
