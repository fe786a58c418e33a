public import Foundation

// The coding wrappers below are SPI `Generated`: generated models use them
// inside their `Codable` conformances (in this package or in an app's own
// package, whose generated files import IdentityToolkit with
// `@_spi(Generated)`), and no public signature exposes them. They are
// plumbing, not API: SemVer does not cover them.

/// An int64 in proto3 JSON: written as a string, read from a string or a number.
@_spi(Generated) public struct ProtoInt64: Codable, Hashable, Sendable {
    /// The value.
    public var value: Int64

    /// Wraps `value`.
    public init(_ value: Int64) { self.value = value }

    /// Reads the value in any form proto3 JSON allows.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int64.self) {
            value = number
        } else if let text = try? container.decode(String.self), let number = Int64(text) {
            value = number
        } else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "Expected an int64 as a JSON number or a string of digits.")
        }
    }

    /// Writes the value as a string of digits, proto3's canonical form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(String(value))
    }
}

/// An int32 in proto3 JSON: written as a number, read from a number or a string.
@_spi(Generated) public struct ProtoInt32: Codable, Hashable, Sendable {
    /// The value.
    public var value: Int32

    /// Wraps `value`.
    public init(_ value: Int32) { self.value = value }

    /// Reads the value in any form proto3 JSON allows.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int32.self) {
            value = number
        } else if let text = try? container.decode(String.self), let number = Int32(text) {
            value = number
        } else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "Expected an int32 as a JSON number or a string of digits.")
        }
    }

    /// Writes the value as a JSON number.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

/// An RFC 3339 timestamp (`2024-05-01T12:00:00.123456Z`, any number of
/// fraction digits or none, `Z` or a numeric offset).
@_spi(Generated) public struct RFC3339Date: Codable, Hashable, Sendable {
    /// The value.
    public var value: Date

    /// Wraps `value`.
    public init(_ value: Date) { self.value = value }

    /// Reads the value in any form proto3 JSON allows.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let date = RFC3339Date.parse(text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "Expected an RFC 3339 timestamp such as 2024-05-01T12:00:00Z.")
        }
        value = date
    }

    /// Writes the value in UTC, with milliseconds or microseconds.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(RFC3339Date.format(value))
    }

    /// Parses an RFC 3339 timestamp; nil when the text is not one.
    public static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        var index = 0
        func digits(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<index + count] {
                guard byte >= 48 && byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            index += count
            return value
        }
        func expect(_ characters: UInt8...) -> Bool {
            guard index < bytes.count, characters.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        guard let year = digits(4), expect(45), let month = digits(2), expect(45), let day = digits(2),
            expect(84, 116, 32), let hour = digits(2), expect(58), let minute = digits(2), expect(58),
            let second = digits(2)
        else { return nil }
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day), hour < 24, minute < 60,
            second <= 60
        else { return nil }
        var fraction = 0.0
        if index < bytes.count, bytes[index] == 46 {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, bytes[index] >= 48 && bytes[index] <= 57 {
                fraction += Double(bytes[index] - 48) * scale
                scale /= 10
                index += 1
            }
            if index == start { return nil }
        }
        var offset = 0
        if expect(90, 122) {
            offset = 0
        } else if index < bytes.count, bytes[index] == 43 || bytes[index] == 45 {
            let sign = bytes[index] == 45 ? -1 : 1
            index += 1
            guard let offsetHours = digits(2), expect(58), let offsetMinutes = digits(2), offsetHours < 24,
                offsetMinutes < 60
            else { return nil }
            offset = sign * (offsetHours * 3600 + offsetMinutes * 60)
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// Formats in UTC with `Z` and 3 fraction digits, or 6 when there are
    /// microseconds (proto3 JSON's canonical form; JavaScript's
    /// `toISOString`, which Google's emulator writes, for milliseconds).
    public static func format(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        var seconds = Int(interval.rounded(.down))
        var micros = Int(((interval - Double(seconds)) * 1_000_000).rounded())
        if micros >= 1_000_000 {
            seconds += 1
            micros -= 1_000_000
        }
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civilFromDays(days)
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        var text =
            "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))"
        text += "." + (micros % 1000 == 0 ? pad(micros / 1000, 3) : pad(micros, 6))
        return text + "Z"
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 (Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

/// A coding key for any string; used to read and write empty JSON objects.
@_spi(Generated) public struct AnyCodingKey: CodingKey, Sendable {
    /// The key's text.
    public var stringValue: String
    /// The key as an array index, when it is one.
    public var intValue: Int?
    /// A key with this text.
    public init(stringValue: String) { self.stringValue = stringValue }
    /// A key for an array index.
    public init?(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }
}
