package import Foundation

/// A `Decoder` for the small JSON objects of a JWT (a JOSE header, a set of
/// claims), made for the verifier's hot path: Foundation's `JSONDecoder`
/// was 42 % of an uncached ID-token verification, more than the RSA check.
///
/// It reads the generated `Codable` types as they are (the wire names stay
/// in the spec), and is stricter than RFC 8259 requires: it refuses
/// duplicate member names (RFC 7515 §4 lets a JWS parser refuse them, and a
/// claim read one way here and another way elsewhere is a classic bypass),
/// invalid UTF-8, nesting deeper than ``maximumDepth`` and anything after
/// the value. Errors are `DecodingError`s with the coding path, as
/// `JSONDecoder`'s, so callers can name the claim that failed.
package enum JWTJSONDecoder {
    /// The deepest nesting accepted; a JWT's claims nest two or three levels.
    package static let maximumDepth = 32

    /// `T` decoded from `data`.
    package static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        let root = try data.withUnsafeBytes { bytes in
            var parser = JSONParser(bytes: bytes)
            return try parser.parseDocument()
        }
        return try T(from: NodeDecoder(node: root, codingPath: []))
    }
}

/// A parsed JSON value.
enum JSONNode {
    case null
    case bool(Bool)
    /// The number's text, checked against the JSON grammar.
    case number(String)
    case string(String)
    case array([JSONNode])
    /// Members in order; names are unique.
    case object([(name: String, value: JSONNode)])

    var kind: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// A recursive-descent parser over UTF-8 bytes.
struct JSONParser {
    let bytes: UnsafeRawBufferPointer
    var index = 0

    init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    private func corrupted(_ reason: String) -> DecodingError {
        .dataCorrupted(.init(codingPath: [], debugDescription: "not JSON: \(reason) at byte \(index)"))
    }

    mutating func parseDocument() throws -> JSONNode {
        let value = try parseValue(depth: 0)
        skipWhitespace()
        guard index == bytes.count else { throw corrupted("content after the value") }
        return value
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func parseValue(depth: Int) throws -> JSONNode {
        guard depth <= JWTJSONDecoder.maximumDepth else { throw corrupted("nested too deep") }
        skipWhitespace()
        guard index < bytes.count else { throw corrupted("unexpected end") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw corrupted("unexpected character")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw corrupted("unexpected end") }
        for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] {
            throw corrupted("unexpected character")
        }
        index += count
    }

    private mutating func parseObject(depth: Int) throws -> JSONNode {
        index += 1
        var members: [(name: String, value: JSONNode)] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw corrupted("expected a member name") }
            let name = try parseString()
            // Objects of a JWT are small: a linear scan beats hashing here.
            guard !members.contains(where: { $0.name == name }) else { throw corrupted("duplicate member name") }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw corrupted("expected ':'") }
            index += 1
            members.append((name, try parseValue(depth: depth + 1)))
            skipWhitespace()
            guard index < bytes.count else { throw corrupted("unexpected end") }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return .object(members)
            default: throw corrupted("expected ',' or '}'")
            }
        }
    }

    private mutating func parseArray(depth: Int) throws -> JSONNode {
        index += 1
        var elements: [JSONNode] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            elements.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            guard index < bytes.count else { throw corrupted("unexpected end") }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return .array(elements)
            default: throw corrupted("expected ',' or ']'")
            }
        }
    }

    /// A string from its opening quote; escapes resolved, UTF-8 checked.
    private mutating func parseString() throws -> String {
        index += 1
        let start = index
        // The common case: no escapes, one copy; and ASCII, so nothing to
        // validate (the generic `String(validating:)` was a sixth of a
        // verification's decoding).
        var ascii = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
                index += 1
                if ascii { return String(decoding: text, as: UTF8.self) }
                guard let string = String(validating: text, as: UTF8.self) else { throw corrupted("invalid UTF-8") }
                return string
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw corrupted("a control character in a string") }
            if byte >= 0x80 { ascii = false }
            index += 1
        }
        var scalars = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let string = String(validating: scalars, as: UTF8.self) else { throw corrupted("invalid UTF-8") }
                return string
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw corrupted("unexpected end") }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escaped)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"): scalars.append(contentsOf: try parseUnicodeEscape())
                default: throw corrupted("an unknown escape")
                }
            default:
                guard byte >= 0x20 else { throw corrupted("a control character in a string") }
                scalars.append(byte)
                index += 1
            }
        }
        throw corrupted("an unterminated string")
    }

    /// The UTF-8 of a `\uXXXX` escape (after the `u`), a surrogate pair read whole.
    private mutating func parseUnicodeEscape() throws -> [UInt8] {
        var value = try parseHex4()
        if (0xD800...0xDBFF).contains(value) {
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw corrupted("a lone surrogate")
            }
            index += 2
            let low = try parseHex4()
            guard (0xDC00...0xDFFF).contains(low) else { throw corrupted("a lone surrogate") }
            value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(value) {
            throw corrupted("a lone surrogate")
        }
        guard let scalar = Unicode.Scalar(value) else { throw corrupted("an invalid escape") }
        return Array(String(Character(scalar)).utf8)
    }

    private mutating func parseHex4() throws -> UInt32 {
        guard index + 4 <= bytes.count else { throw corrupted("unexpected end") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw corrupted("an invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// A number's text, checked against RFC 8259 §6.
    private mutating func parseNumber() throws -> String {
        let start = index
        func digits() -> Int {
            let first = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - first
        }
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { throw corrupted("unexpected end") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            guard digits() > 0 else { throw corrupted("a number without digits") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw corrupted("a fraction without digits") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw corrupted("an exponent without digits") }
        }
        // ASCII only, so this cannot fail.
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
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
        if let value = T(text) { return value }
        // `1e3` or `1.0`: accepted when integral and in range, as JSONDecoder does.
        if let double = Double(text), double.rounded() == double, let value = T(exactly: double) { return value }
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
            strings.append(try string(element, path + [IndexKey(index: index)]))
        }
        return strings
    }

    private static func stringLists(_ node: JSONNode, _ path: [any CodingKey]) throws -> [String: [String]] {
        guard case .object(let members) = node else { throw mismatch([String: [String]].self, node, path) }
        var lists: [String: [String]] = [:]
        lists.reserveCapacity(members.count)
        for member in members {
            lists[member.name] = try strings(member.value, path + [IndexKey(stringValue: member.name)!])
        }
        return lists
    }
}

/// A coding-path entry for an array index or a super decoder.
struct IndexKey: CodingKey {
    let stringValue: String
    let intValue: Int?
    init(index: Int) { stringValue = "Index \(index)"; intValue = index }
    init?(stringValue: String) { self.stringValue = stringValue; intValue = nil }
    init?(intValue: Int) { self.init(index: intValue) }
    static let `super` = IndexKey(stringValue: "super")!
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
        NodeDecoder(node: members.first { $0.name == "super" }?.value ?? .null, codingPath: codingPath + [IndexKey.super])
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
        let path = codingPath + [IndexKey(index: currentIndex)]
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
