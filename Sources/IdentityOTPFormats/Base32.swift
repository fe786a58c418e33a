/// Base32 (RFC 4648 §6), the encoding of TOTP shared secrets.
public enum Base32 {
    /// How strictly ``decode(_:mode:)`` reads its input.
    public enum DecodingMode: Sendable {
        /// Only alphabet characters (either case) and trailing `=` padding.
        case strict
        /// Also skips spaces and hyphens, as people type keys by hand.
        case lenient
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// Encodes `bytes`; with `padding`, to a multiple of 8 characters with `=`.
    public static func encode(_ bytes: some Collection<UInt8>, padding: Bool = false) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 8 + 4) / 5 + 6)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                output.append(alphabet[Int((buffer >> UInt32(bits - 5)) & 31)])
                bits -= 5
            }
        }
        if bits > 0 {
            output.append(alphabet[Int((buffer << UInt32(5 - bits)) & 31)])
        }
        if padding {
            while output.count % 8 != 0 { output.append(UInt8(ascii: "=")) }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes base32 text. Padding is optional; lower case is accepted.
    /// - Throws: ``Base32Error`` naming the first problem's position
    ///   (1-based, in characters). The character itself is never shown: it
    ///   may be part of a secret.
    public static func decode(_ text: String, mode: DecodingMode = .strict) throws(Base32Error) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count * 5 / 8)
        var buffer: UInt32 = 0
        var bits = 0
        var symbols = 0
        var paddingStart: Int?
        var position = 0
        for scalar in text.unicodeScalars {
            position += 1
            let value: UInt32
            switch scalar {
            case "A"..."Z": value = scalar.value - 65
            case "a"..."z": value = scalar.value - 97
            case "2"..."7": value = scalar.value - 50 + 26
            case "=":
                if paddingStart == nil { paddingStart = position }
                continue
            case " " where mode == .lenient, "-" where mode == .lenient:
                continue
            default:
                throw .invalidCharacter(position: position)
            }
            if let start = paddingStart { throw .misplacedPadding(position: start) }
            buffer = (buffer << 5) | value
            bits += 5
            symbols += 1
            if bits >= 8 {
                output.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits - 8)))
                bits -= 8
            }
            buffer &= (1 << UInt32(bits)) - 1
        }
        // A final group of 8 symbols holds 2, 4, 5 or 7 symbols of data.
        guard [0, 2, 4, 5, 7].contains(symbols % 8) else { throw .invalidLength(symbols: symbols) }
        if let start = paddingStart {
            let padded = position - start + 1
            guard (symbols + padded) % 8 == 0, padded < 8 else { throw .misplacedPadding(position: start) }
        }
        guard buffer == 0 else { throw .nonZeroTrailingBits }
        return output
    }
}

/// Why base32 text could not be decoded.
public enum Base32Error: Error, Sendable, Hashable, CustomStringConvertible {
    /// A character outside `A–Z`, `a–z`, `2–7` (and `=` at the end).
    case invalidCharacter(position: Int)
    /// `=` before the end, or a wrong amount of it.
    case misplacedPadding(position: Int)
    /// A symbol count no byte string encodes to.
    case invalidLength(symbols: Int)
    /// The last symbol carries bits beyond the data.
    case nonZeroTrailingBits

    /// What is wrong and where (never the input).
    public var description: String {
        switch self {
        case .invalidCharacter(let position):
            return "invalid base32 character at position \(position) (allowed: A–Z, 2–7)"
        case .misplacedPadding(let position):
            return "misplaced base32 padding '=' at position \(position)"
        case .invalidLength(let symbols):
            return "invalid base32 length: \(symbols) symbols cannot encode whole bytes"
        case .nonZeroTrailingBits:
            return "invalid base32: the last symbol has non-zero unused bits"
        }
    }
}
