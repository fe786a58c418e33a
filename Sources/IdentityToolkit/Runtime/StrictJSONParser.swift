package import Foundation

/// A parsed JSON value (``StrictJSONParser/parseDocument()``).
package enum JSONNode: Sendable {
    case null
    case bool(Bool)
    /// The number's text, checked against the JSON grammar.
    case number(String)
    case string(String)
    case array([JSONNode])
    /// Members in order; names are unique.
    case object([(name: String, value: JSONNode)])

    /// What the value is, for errors: `a string`, `null`, …
    package var kind: String {
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

/// The package's one JSON grammar for untrusted bytes (a JWT's header and
/// claims): RFC 8259, stricter where a token must be. It refuses duplicate
/// member names (RFC 7515 §4 lets a JWS parser refuse them, and a claim read
/// one way here and another way elsewhere is a classic bypass), invalid
/// UTF-8, lone surrogates, nesting deeper than ``maximumDepth`` and anything
/// after the value.
///
/// Two ways to read: ``parseDocument()`` builds a ``JSONNode`` tree (for
/// `StrictJSONDecoder`, any `Decodable`), and the pull readers
/// (``readObject(_:)``, ``readString()``, …) fill a value as they go,
/// without a tree: what the generated `init(strictJSON:)` of a schema
/// marked `x-strict-reader` calls on the verifier's hot path. Errors are
/// `DecodingError`s with the coding path, as `JSONDecoder`'s, so callers
/// name the member that failed (never its value).
///
/// It reads memory it does not own: use it inside `withUnsafeBytes`.
package struct StrictJSONParser {
    /// The deepest nesting accepted; a JWT's claims nest two or three levels.
    package static let maximumDepth = 32

    let bytes: UnsafeRawBufferPointer
    var index = 0
    /// The nesting of the pull readers (objects and arrays open now).
    var depth = 0

    /// A parser at the start of `bytes`.
    package init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    func corrupted(_ reason: String) -> DecodingError {
        .dataCorrupted(.init(codingPath: [], debugDescription: "not JSON: \(reason) at byte \(index)"))
    }

    /// The whole input as one value, with nothing after it.
    package mutating func parseDocument() throws -> JSONNode {
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw corrupted("content after the value") }
        return value
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// One value as a tree; objects and arrays through the pull readers,
    /// so that both ways of reading share one grammar (and one depth bound).
    mutating func parseValue() throws -> JSONNode {
        skipWhitespace()
        guard index < bytes.count else { throw corrupted("unexpected end") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            var members: [(name: String, value: JSONNode)] = []
            try readObject { parser, name in members.append((name.string, try parser.parseValue())) }
            return .object(members)
        case UInt8(ascii: "["): return .array(try readArray { try $0.parseValue() })
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw corrupted("unexpected character")
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw corrupted("unexpected end") }
        for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] {
            throw corrupted("unexpected character")
        }
        index += count
    }

    /// A number's text, checked against RFC 8259 §6.
    private mutating func parseNumber() throws -> String {
        let range = try scanNumber()
        // ASCII only, so this cannot fail.
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// Steps over a number, checked against RFC 8259 §6; its bytes' range.
    mutating func scanNumber() throws -> Range<Int> {
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
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard digits() > 0 else { throw corrupted("an exponent without digits") }
        }
        return start..<index
    }

    /// A member's name as the input spells it, compared with the names a
    /// reader knows without making a string (`case "iss":` in a `switch`).
    package struct MemberName {
        /// The bytes between the quotes, escapes unresolved.
        let raw: UnsafeRawBufferPointer
        /// The name with its escapes resolved, when it has any (rare).
        let unescaped: String?

        /// The name as a string.
        package var string: String { unescaped ?? String(decoding: raw, as: UTF8.self) }

        /// Whether `self` and `other` are one name, however each is escaped.
        func isSameName(as other: MemberName) -> Bool {
            if unescaped == nil, other.unescaped == nil {
                return Self.same(raw, other.raw.baseAddress, other.raw.count)
            }
            return string == other.string
        }

        /// Whether `name` is `pattern`: what a `switch` over a member's name calls.
        package static func ~= (pattern: StaticString, name: MemberName) -> Bool {
            if let unescaped = name.unescaped { return unescaped == pattern.description }
            return same(name.raw, pattern.utf8Start, pattern.utf8CodeUnitCount)
        }

        /// Whether `bytes` are the `count` bytes at `other`. A `switch` asks
        /// this of every case before the one that matches: a length check,
        /// then a loop for short names (a claim's name is mostly three
        /// letters, and a call to `memcmp` cost more than the compare).
        private static func same(_ bytes: UnsafeRawBufferPointer, _ other: UnsafeRawPointer?, _ count: Int) -> Bool {
            guard bytes.count == count else { return false }
            guard count > 0, let base = bytes.baseAddress, let other else { return true }
            guard count <= 16 else { return memcmp(base, other, count) == 0 }
            for offset in 0..<count
            where base.load(fromByteOffset: offset, as: UInt8.self)
                != other.load(fromByteOffset: offset, as: UInt8.self)
            {
                return false
            }
            return true
        }
    }
}

/// A member name or an array index in a coding path.
package struct JSONCodingKey: CodingKey, Sendable {
    package let stringValue: String
    package let intValue: Int?

    /// An object's member.
    package init(name: String) {
        stringValue = name
        intValue = nil
    }
    /// An array's element, named as `JSONDecoder` names it.
    package init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }
    package init?(stringValue: String) { self.init(name: stringValue) }
    package init?(intValue: Int) { self.init(index: intValue) }
    /// The key of a super decoder.
    package static let `super` = JSONCodingKey(name: "super")
}

/// A type the generator gives a strict pull reader (`x-strict-reader` in
/// the spec): read from untrusted bytes without `Codable`'s containers.
package protocol StrictJSONReadable {
    /// Reads the value at the parser's position, as `init(from:)` would
    /// decode it from the same JSON (unknown members skipped, `null` for an
    /// optional member its absence).
    init(strictJSON parser: inout StrictJSONParser) throws
}

extension StrictJSONReadable {
    /// `Self` read from `data`, a whole JSON document.
    package init(strictJSON data: Data) throws {
        self = try data.withUnsafeBytes { bytes in
            var parser = StrictJSONParser(bytes: bytes)
            let value = try Self(strictJSON: &parser)
            try parser.requireEnd()
            return value
        }
    }
}
