package import Foundation

extension APIServerRequest {
    /// The fields of an `application/x-www-form-urlencoded` body (the first
    /// value of each name), read as the WHATWG URL standard's form parser
    /// reads them (and so as browsers, Node's `URLSearchParams` and Google's
    /// emulator do): `+` is a space, a `%` not followed by two hex digits
    /// stays as it is, and bytes that are not UTF-8 become U+FFFD.
    ///
    /// Total: any bytes give fields, so an identity provider's `postBody`
    /// (JSON, stray escapes, NUL) is read, never trapped on.
    package static func formFields(_ body: Data) -> [String: String] {
        formFields(Array(body))
    }

    /// ``formFields(_:)`` over a string, such as a request's `postBody`.
    package static func formFields(_ text: String) -> [String: String] {
        formFields(Array(text.utf8))
    }

    private static func formFields(_ bytes: [UInt8]) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let separator = pair.firstIndex(of: UInt8(ascii: "="))
            let name = formDecode(pair[..<(separator ?? pair.endIndex)])
            let value = separator.map { formDecode(pair[pair.index(after: $0)...]) } ?? ""
            if fields[name] == nil { fields[name] = value }
        }
        return fields
    }

    /// One name or value: `+` as a space, then the WHATWG percent-decode.
    private static func formDecode(_ bytes: ArraySlice<UInt8>) -> String {
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), bytes.endIndex - index >= 3,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                decoded.append(high << 4 | low)
                index += 3
                continue
            }
            decoded.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            index += 1
        }
        return String(decoding: decoded, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
