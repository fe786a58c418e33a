import Foundation

/// Base64url without padding (RFC 4648 §5), as JWTs, the emulator's opaque
/// tokens and sealed state use it. Its home is the helpers' module, so that
/// IdentityToolkit and IdentityServerState share one implementation without
/// depending on each other.
///
/// Encoded and decoded byte by byte: the emulator encodes three of these
/// per ID token, and the detour through Foundation's base64 and three
/// `replacingOccurrences` passes showed in `perf record` under `EmulatorLoad`.
private enum Base64URLAlphabet {
    static let symbols: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The 6-bit value of an ASCII byte of the URL alphabet, or 0xFF.
    static let strictValues: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, symbol) in symbols.enumerated() { table[Int(symbol)] = UInt8(index) }
        return table
    }()

    /// The same, with the standard alphabet's `+` and `/` accepted too.
    static let lenientValues: [UInt8] = {
        var table = strictValues
        table[Int(UInt8(ascii: "+"))] = 62
        table[Int(UInt8(ascii: "/"))] = 63
        return table
    }()
}

extension Data {
    /// Base64url without padding (RFC 4648 §5), as JWTs use it.
    /// Package-visible: every module of the package shares it.
    package var base64URLEncoded: String {
        let count = self.count
        // A trailing 1 or 2 bytes take 2 or 3 symbols (no padding).
        let encodedCount = (count / 3) * 4 + (count % 3 == 0 ? 0 : count % 3 + 1)
        return withUnsafeBytes { (input: UnsafeRawBufferPointer) in
            String(unsafeUninitializedCapacity: encodedCount) { output in
                Base64URLAlphabet.symbols.withUnsafeBufferPointer { symbols in
                    var read = 0
                    var written = 0
                    while read + 3 <= count {
                        let group = UInt32(input[read]) << 16 | UInt32(input[read + 1]) << 8 | UInt32(input[read + 2])
                        output[written] = symbols[Int(group >> 18)]
                        output[written + 1] = symbols[Int(group >> 12 & 0x3F)]
                        output[written + 2] = symbols[Int(group >> 6 & 0x3F)]
                        output[written + 3] = symbols[Int(group & 0x3F)]
                        read += 3
                        written += 4
                    }
                    switch count - read {
                    case 1:
                        let group = UInt32(input[read]) << 16
                        output[written] = symbols[Int(group >> 18)]
                        output[written + 1] = symbols[Int(group >> 12 & 0x3F)]
                        written += 2
                    case 2:
                        let group = UInt32(input[read]) << 16 | UInt32(input[read + 1]) << 8
                        output[written] = symbols[Int(group >> 18)]
                        output[written + 1] = symbols[Int(group >> 12 & 0x3F)]
                        output[written + 2] = symbols[Int(group >> 6 & 0x3F)]
                        written += 3
                    default:
                        break
                    }
                    return written
                }
            }
        }
    }

    /// Decodes strict base64url (RFC 7515 §2: the URL alphabet, no
    /// padding, zero trailing bits); nil otherwise. Each byte string has
    /// exactly one spelling, so a token cannot be re-spelled to slip past a
    /// denylist or a cache keyed by its text.
    package init?(base64URLEncoded text: some StringProtocol) {
        self.init(base64URLEncodedUTF8: Array(text.utf8)[...])
    }

    /// Strict base64url given as its UTF-8 bytes (a part of a JWT, without
    /// copying it into a `String` first).
    package init?(base64URLEncodedUTF8 input: ArraySlice<UInt8>) {
        guard let bytes = Self.decodeBase64(input, values: Base64URLAlphabet.strictValues) else { return nil }
        self.init(bytes)
    }

    /// Decodes base64url or standard base64, with or without `=` padding:
    /// for formats whose producers are known to vary (a JSON Web Key's `n`
    /// and `e` from a key route), never for a token whose text is its identity.
    package init?(lenientBase64URLEncoded text: some StringProtocol) {
        var symbols = Array(text.utf8)[...]
        // Padding is optional, but when present it must complete the last quantum.
        if let firstPad = symbols.firstIndex(of: UInt8(ascii: "=")) {
            guard symbols.count % 4 == 0, symbols.endIndex - firstPad <= 2,
                symbols[firstPad...].allSatisfy({ $0 == UInt8(ascii: "=") })
            else { return nil }
            symbols = symbols[..<firstPad]
        }
        guard let bytes = Self.decodeBase64(symbols, values: Base64URLAlphabet.lenientValues) else { return nil }
        self.init(bytes)
    }

    /// The bytes of unpadded base64 symbols under `values`; nil as
    /// ``Base64URL/decode(_:values:into:)`` says.
    private static func decodeBase64(_ symbols: ArraySlice<UInt8>, values: [UInt8]) -> [UInt8]? {
        guard let length = Base64URL.decodedCount(symbols: symbols.count) else { return nil }
        var valid = true
        let bytes = [UInt8](unsafeUninitializedCapacity: length) { output, initialized in
            values.withUnsafeBufferPointer { table in
                symbols.withUnsafeBufferPointer { input in
                    valid = Base64URL.decode(input, values: table, into: UnsafeMutableRawBufferPointer(output))
                }
            }
            initialized = length
        }
        return valid ? bytes : nil
    }
}

/// The decoding core over memory the caller owns, so that a JWT's three
/// parts can be decoded into one buffer (`JWTCompactForm` in IdentityToolkit, a module this one cannot link to).
package enum Base64URL {
    /// How many bytes `symbols` unpadded symbols decode to; nil for a
    /// count no encoding has (a lone trailing symbol).
    package static func decodedCount(symbols: Int) -> Int? {
        let tail = symbols % 4
        guard tail != 1 else { return nil }
        return symbols / 4 * 3 + (tail == 0 ? 0 : tail - 1)
    }

    /// Decodes strict base64url `symbols` into `output`, which holds
    /// exactly ``decodedCount(symbols:)`` bytes; false for a symbol outside
    /// the URL alphabet, or non-zero leftover bits (a non-canonical spelling).
    package static func decodeStrict(_ symbols: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableRawBufferPointer)
        -> Bool
    {
        Base64URLAlphabet.strictValues.withUnsafeBufferPointer { decode(symbols, values: $0, into: output) }
    }

    /// Decodes `input` under `values` (6-bit value or 0xFF per ASCII byte)
    /// into `output` (exactly ``decodedCount(symbols:)`` bytes); false for
    /// a symbol outside it or non-zero leftover bits.
    ///
    /// Four symbols at a time: the symbol by symbol loop with appends was a
    /// tenth of an ID-token verification.
    static func decode(
        _ input: UnsafeBufferPointer<UInt8>, values table: UnsafeBufferPointer<UInt8>,
        into output: UnsafeMutableRawBufferPointer
    ) -> Bool {
        precondition(decodedCount(symbols: input.count) == output.count, "the output holds exactly the decoded bytes")
        // Each value is 0...63 or 0xFF: OR-ing them all flags any invalid symbol at the end.
        var seen: UInt8 = 0
        var read = 0
        var written = 0
        var valid = true
        while read + 4 <= input.count {
            let a = table[Int(input[read])]
            let b = table[Int(input[read + 1])]
            let c = table[Int(input[read + 2])]
            let d = table[Int(input[read + 3])]
            seen |= a | b | c | d
            let group = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
            output[written] = UInt8(truncatingIfNeeded: group >> 16)
            output[written + 1] = UInt8(truncatingIfNeeded: group >> 8)
            output[written + 2] = UInt8(truncatingIfNeeded: group)
            read += 4
            written += 3
        }
        switch input.count - read {
        case 2:
            let a = table[Int(input[read])]
            let b = table[Int(input[read + 1])]
            seen |= a | b
            // 12 bits carry 8: the last 4 must be zero.
            if b & 0x0F != 0 { valid = false }
            output[written] = a << 2 | b >> 4
        case 3:
            let a = table[Int(input[read])]
            let b = table[Int(input[read + 1])]
            let c = table[Int(input[read + 2])]
            seen |= a | b | c
            // 18 bits carry 16: the last 2 must be zero.
            if c & 0x03 != 0 { valid = false }
            output[written] = a << 2 | b >> 4
            output[written + 1] = b << 4 | c >> 2
        default:
            break
        }
        return valid && seen & 0xC0 == 0
    }
}
