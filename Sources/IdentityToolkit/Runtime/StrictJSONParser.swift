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
    private var depth = 0

    /// A parser at the start of `bytes`.
    package init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    private func corrupted(_ reason: String) -> DecodingError {
        .dataCorrupted(.init(codingPath: [], debugDescription: "not JSON: \(reason) at byte \(index)"))
    }

    /// The whole input as one value, with nothing after it.
    package mutating func parseDocument() throws -> JSONNode {
        let value = try parseValue()
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

    /// One value as a tree; objects and arrays through the pull readers,
    /// so that both ways of reading share one grammar (and one depth bound).
    private mutating func parseValue() throws -> JSONNode {
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

    private mutating func expectLiteral(_ literal: StaticString) throws {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw corrupted("unexpected end") }
        for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] {
            throw corrupted("unexpected character")
        }
        index += count
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
        if ascii, let string = parseEscapedASCII(from: start) { return string }
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
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
            else {
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
        let range = try scanNumber()
        // ASCII only, so this cannot fail.
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// Steps over a number, checked against RFC 8259 §6; its bytes' range.
    private mutating func scanNumber() throws -> Range<Int> {
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

    // MARK: Pull readers (no tree)

    /// Reads an object, calling `member` with each member's name; `member`
    /// reads the value (or ``skipValue()``s it). Duplicate names are
    /// refused, whatever `member` does with them; an error thrown while a
    /// member is read gets the member's name put in front of its coding path.
    package mutating func readObject(_ member: (inout StrictJSONParser, MemberName) throws -> Void) throws {
        try enter(expecting: UInt8(ascii: "{"), [String: Any].self)
        defer { depth -= 1 }
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return
        }
        // The names so far, as the input spells them: no string is made for
        // a name the reader knows. A JWT's objects are small: a linear scan,
        // over room on the stack for the first 16 names (an array for each
        // object was four of a verification's allocations).
        try withUnsafeTemporaryAllocation(of: MemberName.self, capacity: Self.namesOnTheStack) { stack in
            var count = 0
            var more: [MemberName] = []
            defer { stack.baseAddress?.deinitialize(count: Swift.min(count, Self.namesOnTheStack)) }
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                    throw corrupted("expected a member name")
                }
                let name = try scanMemberName()
                guard !stack[..<Swift.min(count, Self.namesOnTheStack)].contains(where: { $0.isSameName(as: name) }),
                    !more.contains(where: { $0.isSameName(as: name) })
                else { throw corrupted("duplicate member name") }
                if count < Self.namesOnTheStack {
                    (stack.baseAddress! + count).initialize(to: name)
                } else {
                    more.append(name)
                }
                count += 1
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw corrupted("expected ':'") }
                index += 1
                do {
                    try member(&self, name)
                } catch let error as DecodingError {
                    throw Self.prefixing(error, with: JSONCodingKey(name: name.string))
                }
                if try readSeparator(closing: UInt8(ascii: "}")) { return }
            }
        }
    }

    /// How many names of an object are kept on the stack for the duplicate check.
    private static var namesOnTheStack: Int { 16 }

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

    /// A member's name, from its opening quote: checked as every string is
    /// (escapes, UTF-8), kept as a range of the input unless it has escapes.
    private mutating func scanMemberName() throws -> MemberName {
        let start = index + 1
        var end = start
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") {
                // Printable ASCII only, so the bytes are the name.
                index = end + 1
                return MemberName(raw: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), unescaped: nil)
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 { break }
            end += 1
        }
        // Escapes, control characters or non-ASCII: the string parser's checks and resolution.
        let text = try parseString()
        return MemberName(raw: UnsafeRawBufferPointer(rebasing: bytes[start..<(index - 1)]), unescaped: text)
    }

    /// An object of any member names, each value read by `value`: `[String: Value]`.
    package mutating func readMap<Value>(_ value: (inout StrictJSONParser) throws -> Value) throws -> [String: Value] {
        var map: [String: Value] = [:]
        try readObject { parser, name in map[name.string] = try value(&parser) }
        return map
    }

    /// An array, each element read by `element`.
    package mutating func readArray<Element>(_ element: (inout StrictJSONParser) throws -> Element) throws -> [Element]
    {
        try enter(expecting: UInt8(ascii: "["), [Any].self)
        defer { depth -= 1 }
        var elements: [Element] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return elements
        }
        while true {
            do {
                elements.append(try element(&self))
            } catch let error as DecodingError {
                throw Self.prefixing(error, with: JSONCodingKey(index: elements.count))
            }
            if try readSeparator(closing: UInt8(ascii: "]")) { return elements }
        }
    }

    /// Reads what follows a member or an element: a comma (false, more
    /// follow) or `closing` (true, the object or array ends).
    private mutating func readSeparator(closing: UInt8) throws -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw corrupted("unexpected end") }
        switch bytes[index] {
        case UInt8(ascii: ","):
            index += 1
            return false
        case closing:
            index += 1
            return true
        default: throw corrupted("expected ',' or '\(Character(Unicode.Scalar(closing)))'")
        }
    }

    /// The rest of an ASCII string from its first backslash (`index`) when every
    /// byte is printable ASCII and every escape one of JSON's one-byte
    /// ones (a URL's `\/`, say), decoded straight into the string's
    /// storage: the general path copies into an array first, two
    /// allocations more. Nil leaves `index` where it was, for the general
    /// path (and its errors).
    private mutating func parseEscapedASCII(from start: Int) -> String? {
        var end = index
        var escapes = 0
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") { break }
            guard byte >= 0x20, byte < 0x80 else { return nil }
            if byte == UInt8(ascii: "\\") {
                guard end + 1 < bytes.count, Self.oneByteEscape(bytes[end + 1]) != nil else { return nil }
                escapes += 1
                end += 2
            } else {
                end += 1
            }
        }
        guard end < bytes.count else { return nil }
        let bytes = self.bytes
        let string = String(unsafeUninitializedCapacity: end - start - escapes) { output in
            var read = start
            var written = 0
            while read < end {
                if bytes[read] == UInt8(ascii: "\\") {
                    output[written] = Self.oneByteEscape(bytes[read + 1]) ?? 0
                    read += 2
                } else {
                    output[written] = bytes[read]
                    read += 1
                }
                written += 1
            }
            return written
        }
        index = end + 1
        return string
    }

    /// The byte a one-byte escape (`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`) stands for.
    private static func oneByteEscape(_ escaped: UInt8) -> UInt8? {
        switch escaped {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): escaped
        case UInt8(ascii: "b"): 0x08
        case UInt8(ascii: "f"): 0x0C
        case UInt8(ascii: "n"): 0x0A
        case UInt8(ascii: "r"): 0x0D
        case UInt8(ascii: "t"): 0x09
        default: nil
        }
    }

    /// A string value.
    package mutating func readString() throws -> String {
        try expect(UInt8(ascii: "\""), String.self)
        return try parseString()
    }

    /// An integer value; `1e3` or `2.0` are taken when integral and in
    /// range, as `JSONDecoder` takes them.
    package mutating func readInteger<T: FixedWidthInteger>(_ type: T.Type = T.self) throws -> T {
        try expectNumber(T.self)
        let range = try scanNumber()
        // Plain digits (what a JWT's times are): read from the bytes.
        let negative = bytes[range.lowerBound] == UInt8(ascii: "-")
        let digits = UnsafeRawBufferPointer(
            rebasing: bytes[(negative ? range.lowerBound + 1 : range.lowerBound)..<range.upperBound])
        if digits.count <= 18, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            let magnitude = digits.reduce(Int64(0)) { $0 * 10 + Int64($1 - UInt8(ascii: "0")) }
            if let value = T(exactly: negative ? -magnitude : magnitude) { return value }
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        guard let value = Self.integer(T.self, fromNumber: text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: [], debugDescription: "the number does not fit \(T.self)"))
        }
        return value
    }

    /// A boolean value.
    package mutating func readBool() throws -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw corrupted("unexpected end") }
        switch bytes[index] {
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return true
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return false
        default: throw mismatch(Bool.self)
        }
    }

    /// Reads a `null` if one is next (an optional member that is null is
    /// absent, as with `JSONDecoder`); false, reading nothing, otherwise.
    package mutating func readNull() throws -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "n") else { return false }
        try expectLiteral("null")
        return true
    }

    /// Reads any value and drops it (a member the reader does not know),
    /// with the same checks as every other value.
    package mutating func skipValue() throws {
        _ = try parseValue()
    }

    /// Throws unless nothing but whitespace is left (after the top-level value).
    package mutating func requireEnd() throws {
        skipWhitespace()
        guard index == bytes.count else { throw corrupted("content after the value") }
    }

    /// The member `name` that a reader needs and the object lacked.
    package static func missing(_ name: String) -> DecodingError {
        .keyNotFound(JSONCodingKey(name: name), .init(codingPath: [], debugDescription: "no member \(name)"))
    }

    /// `text` (a number checked against the grammar) as `T`: its digits, or
    /// an integral value in range written with a fraction or exponent.
    package static func integer<T: FixedWidthInteger>(_ type: T.Type, fromNumber text: String) -> T? {
        if let value = T(text) { return value }
        if let double = Double(text), double.rounded() == double, let value = T(exactly: double) { return value }
        return nil
    }

    /// Steps into an object or array whose first byte is `opening`.
    private mutating func enter(expecting opening: UInt8, _ type: Any.Type) throws {
        try expect(opening, type)
        guard depth < Self.maximumDepth else { throw corrupted("nested too deep") }
        depth += 1
        index += 1
    }

    /// Throws unless the next value starts with `first`; the index stays on it.
    private mutating func expect(_ first: UInt8, _ type: Any.Type) throws {
        skipWhitespace()
        guard index < bytes.count else { throw corrupted("unexpected end") }
        guard bytes[index] == first else { throw mismatch(type) }
    }

    private mutating func expectNumber(_ type: Any.Type) throws {
        skipWhitespace()
        guard index < bytes.count else { throw corrupted("unexpected end") }
        switch bytes[index] {
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return
        default: throw mismatch(type)
        }
    }

    /// The error for a value of another kind than `type` (`null` for a
    /// required value is `valueNotFound`, as with `JSONDecoder`).
    private func mismatch(_ type: Any.Type) -> DecodingError {
        let found: String
        switch bytes[index] {
        case UInt8(ascii: "n"):
            return .valueNotFound(type, .init(codingPath: [], debugDescription: "expected \(type), found null"))
        case UInt8(ascii: "{"): found = "an object"
        case UInt8(ascii: "["): found = "an array"
        case UInt8(ascii: "\""): found = "a string"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): found = "a boolean"
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): found = "a number"
        default: return corrupted("unexpected character")
        }
        return .typeMismatch(type, .init(codingPath: [], debugDescription: "expected \(type), found \(found)"))
    }

    /// `error` with `key` in front of its coding path.
    private static func prefixing(_ error: DecodingError, with key: JSONCodingKey) -> DecodingError {
        func moved(_ context: DecodingError.Context) -> DecodingError.Context {
            .init(
                codingPath: [key] + context.codingPath, debugDescription: context.debugDescription,
                underlyingError: context.underlyingError)
        }
        switch error {
        case .typeMismatch(let type, let context): return .typeMismatch(type, moved(context))
        case .valueNotFound(let type, let context): return .valueNotFound(type, moved(context))
        case .keyNotFound(let missing, let context): return .keyNotFound(missing, moved(context))
        case .dataCorrupted(let context):
            // A grammar error stands for the whole document, not a member.
            return context.codingPath.isEmpty && context.debugDescription.hasPrefix("not JSON")
                ? error : .dataCorrupted(moved(context))
        @unknown default: return error
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
