import Foundation
import IdentitySupport
import Testing

/// The package's base64url codec (JWT segments, opaque emulator tokens).
@Suite struct Base64URLTests {
    @Test(arguments: [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
        ("foobar", "Zm9vYmFy"),
    ])
    func rfc4648Vectors(plain: String, encoded: String) {
        #expect(Data(plain.utf8).base64URLEncoded == encoded)
        #expect(Data(base64URLEncoded: encoded) == Data(plain.utf8))
    }

    @Test func matchesFoundationOnEveryLengthAndByte() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<200 {
            let data = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let reference = data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(data.base64URLEncoded == reference)
            #expect(Data(base64URLEncoded: reference) == data)
            #expect(
                Data(lenientBase64URLEncoded: data.base64EncodedString()) == data,
                "the lenient form takes the padded standard alphabet")
            #expect(Data(lenientBase64URLEncoded: reference) == data)
        }
        let everyByte = Data(0...255)
        #expect(Data(base64URLEncoded: everyByte.base64URLEncoded) == everyByte)
    }

    @Test(arguments: ["Z", "Zm9vY", "Zm9v!", "Zm 9v", "Zm8==", "Zg=", "Z=g=", "Zh", "Zm9", "Zm==Zm9v", "é"])
    func malformedInputIsRefused(text: String) {
        #expect(Data(base64URLEncoded: text) == nil)
        #expect(Data(lenientBase64URLEncoded: text) == nil)
    }

    /// RFC 7515 §2: one spelling per byte string. The standard alphabet's
    /// `+` and `/`, and `=` padding, are other spellings of the same bytes.
    @Test(arguments: ["Zg==", "Zm8=", "-_-_", "+/+/", "ab+c", "ab/c"])
    func strictFormHasOneSpelling(text: String) {
        let strict = Data(base64URLEncoded: text)
        if text.contains("=") || text.contains("+") || text.contains("/") {
            #expect(strict == nil)
            #expect(Data(lenientBase64URLEncoded: text) != nil)
        } else {
            #expect(strict != nil)
        }
    }
}
