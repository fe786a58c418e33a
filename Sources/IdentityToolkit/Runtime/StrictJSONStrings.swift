/// The strict parser's strings (RFC 8259 §7): plain runs read in place,
/// escapes resolved, UTF-8 checked; every other value is in
/// `StrictJSONParser.swift`.
extension StrictJSONParser {
    /// A string from its opening quote; escapes resolved, UTF-8 checked.
    mutating func parseString() throws -> String {
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
    mutating func parseUnicodeEscape() throws -> [UInt8] {
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

    mutating func parseHex4() throws -> UInt32 {
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

    /// The rest of an ASCII string from its first backslash (`index`) when every
    /// byte is printable ASCII and every escape one of JSON's one-byte
    /// ones (a URL's `\/`, say), decoded straight into the string's
    /// storage: the general path copies into an array first, two
    /// allocations more. Nil leaves `index` where it was, for the general
    /// path (and its errors).
    mutating func parseEscapedASCII(from start: Int) -> String? {
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
    static func oneByteEscape(_ escaped: UInt8) -> UInt8? {
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
}
