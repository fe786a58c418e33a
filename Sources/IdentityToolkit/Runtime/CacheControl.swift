package import Foundation

/// A total reader of an HTTP `Cache-Control` field value (RFC 9111 §5.2):
/// whatever bytes a server sends, it answers with a freshness lifetime or
/// none, and never traps. Every server that verifies tokens reads this
/// header from Google's key routes, so a malformed value must not stop it.
package enum CacheControl {
    /// The longest lifetime honoured: a key set is fetched again at least weekly.
    package static let longestMaxAge: TimeInterval = 7 * 24 * 3600

    /// The value's `max-age` in seconds (capped at ``longestMaxAge``); 0 when
    /// it says `no-store` or `no-cache`; nil when it says none of these, or
    /// when its `max-age` is not a plain non-negative number.
    package static func maxAge(_ value: String?) -> TimeInterval? {
        guard let value else { return nil }
        for directive in value.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: true) {
            let (name, argument) = nameAndArgument(directive)
            if equalsIgnoringCase(name, "no-store") || equalsIgnoringCase(name, "no-cache") { return 0 }
            if equalsIgnoringCase(name, "max-age"), let argument, let seconds = deltaSeconds(argument) {
                return seconds
            }
        }
        return nil
    }

    /// A directive's name and its argument (without quotes), both trimmed.
    private static func nameAndArgument(_ directive: Substring.UTF8View.SubSequence) -> (
        Substring.UTF8View.SubSequence, Substring.UTF8View.SubSequence?
    ) {
        guard let equals = directive.firstIndex(of: UInt8(ascii: "=")) else { return (trimmed(directive), nil) }
        let name = trimmed(directive[..<equals])
        var argument = trimmed(directive[directive.index(after: equals)...])
        if argument.count >= 2, argument.first == UInt8(ascii: "\""), argument.last == UInt8(ascii: "\"") {
            argument = argument.dropFirst().dropLast()
        }
        return (name, argument)
    }

    /// RFC 9111's delta-seconds: one or more digits; a value past the cap is the cap.
    private static func deltaSeconds(_ digits: Substring.UTF8View.SubSequence) -> TimeInterval? {
        guard !digits.isEmpty else { return nil }
        var seconds: TimeInterval = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            seconds = min(seconds * 10 + TimeInterval(byte - UInt8(ascii: "0")), longestMaxAge)
        }
        return seconds
    }

    private static func trimmed(_ bytes: Substring.UTF8View.SubSequence) -> Substring.UTF8View.SubSequence {
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var result = bytes
        while let first = result.first, isSpace(first) { result = result.dropFirst() }
        while let last = result.last, isSpace(last) { result = result.dropLast() }
        return result
    }

    private static func equalsIgnoringCase(_ bytes: Substring.UTF8View.SubSequence, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        return zip(bytes, UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount))
            .allSatisfy { byte, expected in
                (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte) == expected
            }
    }
}
