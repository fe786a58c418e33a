import Foundation

/// The strict parser's pull readers: a generated type reads its members
/// straight from the bytes, with no tree in between (the verifier's hot
/// path); the tree (`parseDocument()`) is in
/// `StrictJSONParser.swift`.
extension StrictJSONParser {

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
