import Foundation
import IdentityOTP
import SeededRandom
import Testing

@Suite struct Base32Tests {
    @Test(arguments: [
        ("", ""), ("f", "MY"), ("fo", "MZXQ"), ("foo", "MZXW6"), ("foob", "MZXW6YQ"), ("fooba", "MZXW6YTB"),
        ("foobar", "MZXW6YTBOI"),
    ])
    func rfc4648Vectors(plain: String, encoded: String) throws {
        #expect(Base32.encode(Array(plain.utf8)) == encoded)
        #expect(try Base32.decode(encoded) == Array(plain.utf8))
        let padded = Base32.encode(Array(plain.utf8), padding: true)
        #expect(padded.count % 8 == 0)
        #expect(try Base32.decode(padded) == Array(plain.utf8))
        #expect(try Base32.decode(encoded.lowercased()) == Array(plain.utf8))
    }

    /// Seeded: every run checks the same inputs, and a failure names its bytes.
    @Test func randomRoundTrips() throws {
        var generator = SeededGenerator(seed: 32)
        for length in 0..<200 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let hex = bytes.map { String(format: "%02x", $0) }.joined()
            #expect(try Base32.decode(Base32.encode(bytes)) == bytes, "bytes \(hex)")
            #expect(try Base32.decode(Base32.encode(bytes, padding: true)) == bytes, "bytes \(hex), padded")
        }
    }

    @Test(
        arguments: [
            ("MZXW0", Base32Error.invalidCharacter(position: 5)),
            ("MZXW1", .invalidCharacter(position: 5)),
            ("MZ8W6", .invalidCharacter(position: 3)),
            ("MZ9W6", .invalidCharacter(position: 3)),
            ("MZ W6", .invalidCharacter(position: 3)),
            ("MZ-W6", .invalidCharacter(position: 3)),
            ("MZ_W6", .invalidCharacter(position: 3)),
            ("MZXé6", .invalidCharacter(position: 4)),
            ("MZ=XW6", .misplacedPadding(position: 3)),
            ("MZXW6=====", .misplacedPadding(position: 6)),
            ("========", .misplacedPadding(position: 1)),
            ("M", .invalidLength(symbols: 1)),
            ("MZX", .invalidLength(symbols: 3)),
            ("MZXW6Y", .invalidLength(symbols: 6)),
            ("MZ", .nonZeroTrailingBits),
            ("MY=====", .misplacedPadding(position: 3)),
            ("MZXQ===", .misplacedPadding(position: 5)),
            ("MZXW6YTBOJ", .nonZeroTrailingBits),
            ("MZ7", .invalidLength(symbols: 3)),
            ("M7", .nonZeroTrailingBits),
        ] as [(String, Base32Error)])
    func strictRejections(text: String, error: Base32Error) {
        #expect(throws: error) { try Base32.decode(text) }
    }

    @Test func validPaddingForms() throws {
        #expect(try Base32.decode("MY======") == Array("f".utf8))
        #expect(try Base32.decode("MZXQ====") == Array("fo".utf8))
        #expect(try Base32.decode("MZXW6===") == Array("foo".utf8))
        #expect(try Base32.decode("MZXW6YQ=") == Array("foob".utf8))
    }

    @Test func lenientModeSkipsSpacesAndHyphensOnly() throws {
        #expect(try Base32.decode("mzxw 6ytb-oi", mode: .lenient) == Array("foobar".utf8))
        #expect(throws: Base32Error.invalidCharacter(position: 5)) { try Base32.decode("mzxw_6ytb", mode: .lenient) }
        #expect(throws: Base32Error.invalidCharacter(position: 5)) { try Base32.decode("mzxw 6ytb") }
    }

    @Test func errorMessagesNeverShowTheInput() {
        let error = Base32Error.invalidCharacter(position: 7)
        #expect(error.description == "invalid base32 character at position 7 (allowed: A–Z, 2–7)")
    }
}
