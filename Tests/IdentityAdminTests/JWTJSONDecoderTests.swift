import Foundation
import IdentityToolkit
import IdentityToolkitJWT
import Testing

/// The verifier's JSON decoder reads what Foundation's reads, the same way,
/// and refuses what a JWT must not hold.
@Suite struct JWTJSONDecoderTests {
    static let claims = #"""
        {"iss":"https://securetoken.google.com/p","aud":"p","auth_time":1800000000,"user_id":"u1","sub":"u1","iat":1800000000,
         "exp":1800003600,"email":"ada@example.com","email_verified":true,
         "firebase":{"identities":{"email":["ada@example.com"]},"sign_in_provider":"password","sign_in_second_factor":"totp",
                     "second_factor_identifier":"f1","tenant":"t-1"},"role":["a",{"b":[1,2.5,-3e2,null,false]}]}
        """#

    @Test func generatedTypesDecodeAsWithFoundation() throws {
        let data = Data(Self.claims.utf8)
        #expect(try JWTJSONDecoder.decode(IDTokenClaims.self, from: data) == JSONDecoder().decode(IDTokenClaims.self, from: data))
        #expect(try JWTJSONDecoder.decode([String: JSONValue].self, from: data) == JSONDecoder().decode([String: JSONValue].self, from: data))
        let header = Data(#"{"alg":"RS256","kid":"k\u0031","typ":"JWT"}"#.utf8)
        #expect(try JWTJSONDecoder.decode(JOSEHeader.self, from: header) == JOSEHeader(alg: .rs256, typ: "JWT", kid: "k1"))
    }

    @Test(arguments: [
        (#""\u00e9\ud83d\ude00\n\"\\\/""#, "é😀\n\"\\/"),
        (#"  "plain"  "#, "plain"),
        (#""ÿ€""#, "ÿ€"),
    ])
    func stringsAndEscapes(json: String, expected: String) throws {
        #expect(try JWTJSONDecoder.decode(String.self, from: Data(json.utf8)) == expected)
    }

    @Test func numbers() throws {
        #expect(try JWTJSONDecoder.decode([Int64].self, from: Data("[0, -1, 9223372036854775807, 1e3, 2.0]".utf8)) == [0, -1, .max, 1000, 2])
        #expect(try JWTJSONDecoder.decode([Double].self, from: Data("[0.5, -1E-2]".utf8)) == [0.5, -0.01])
        #expect(throws: DecodingError.self) { try JWTJSONDecoder.decode(Int64.self, from: Data("9223372036854775808".utf8)) }
        #expect(throws: DecodingError.self) { try JWTJSONDecoder.decode(Int64.self, from: Data("1.5".utf8)) }
    }

    @Test(arguments: [
        #"{"sub":"a","sub":"b"}"#,            // a duplicate name: read one way here, another elsewhere
        #"{"a":1} x"#, #"{"a":1}}"#, "",      // content after the value; nothing
        #"{"a":01}"#, #"{"a":1.}"#, #"{"a":-}"#, #"{"a":.5}"#, #"{"a":1e}"#,
        #"{"a":"\x"}"#, #"{"a":"\ud800"}"#, #"{"a":"\udc00\ud800"}"#, "{\"a\":\"\u{1}\"}",
        #"{"a":tru}"#, #"{"a" 1}"#, #"{"a":1,}"#, #"[1,]"#, #"{a:1}"#, #"'a'"#, #"{"a":"unterminated}"#,
        String(repeating: "[", count: 40) + String(repeating: "]", count: 40),
    ])
    func refused(json: String) {
        #expect(throws: DecodingError.self, "\(json)") { try JWTJSONDecoder.decode(JSONValue.self, from: Data(json.utf8)) }
    }

    @Test func invalidUTF8IsRefused() {
        #expect(throws: DecodingError.self) { try JWTJSONDecoder.decode(String.self, from: Data([0x22, 0xC3, 0x28, 0x22])) }
        #expect(throws: DecodingError.self) { try JWTJSONDecoder.decode(String.self, from: Data([0x22, 0xED, 0xA0, 0x80, 0x22])) }
    }

    /// Errors carry the coding path, so the verifier names the claim (never its value).
    @Test func errorsNameThePath() throws {
        var wrongType = Self.claims.replacingOccurrences(of: #""sign_in_provider":"password""#, with: #""sign_in_provider":5"#)
        do {
            _ = try JWTJSONDecoder.decode(IDTokenClaims.self, from: Data(wrongType.utf8))
            Issue.record("decoded a number as a string")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(context.codingPath.map(\.stringValue) == ["firebase", "sign_in_provider"])
        }
        wrongType = Self.claims.replacingOccurrences(of: #""sub":"u1","#, with: "")
        do {
            _ = try JWTJSONDecoder.decode(IDTokenClaims.self, from: Data(wrongType.utf8))
            Issue.record("decoded without sub")
        } catch DecodingError.keyNotFound(let key, _) {
            #expect(key.stringValue == "sub")
        }
        // null for an optional claim is its absence, as with JSONDecoder.
        let nullEmail = Self.claims.replacingOccurrences(of: #""ada@example.com","email_verified""#, with: #"null,"email_verified""#)
        #expect(try JWTJSONDecoder.decode(IDTokenClaims.self, from: Data(nullEmail.utf8)).email == nil)
    }

    /// The shapes read without `Decodable`'s generic path (`firebase.identities`)
    /// and the one-lookup optionals give what Foundation gives, errors with their path.
    @Test func directShapesAndOptionalsAgreeWithFoundation() throws {
        struct Optionals: Decodable, Equatable {
            let flag: Bool?
            let count: Int64?
            let lists: [String: [String]]?
            let names: [String]?
        }
        for json in [#"{"flag":true,"count":7,"lists":{"a":["x","é"],"b":[]},"names":["n"]}"#, #"{"flag":null,"count":null}"#, "{}"] {
            let data = Data(json.utf8)
            #expect(try JWTJSONDecoder.decode(Optionals.self, from: data) == JSONDecoder().decode(Optionals.self, from: data), "\(json)")
        }
        let badIdentity = Self.claims.replacingOccurrences(of: #"["ada@example.com"]"#, with: #"["ada@example.com",5]"#)
        do {
            _ = try JWTJSONDecoder.decode(IDTokenClaims.self, from: Data(badIdentity.utf8))
            Issue.record("decoded a number as an identity")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(context.codingPath.map(\.stringValue) == ["firebase", "identities", "email", "Index 1"])
        }
    }

    /// Random documents: each is read as Foundation reads it, or refused by both.
    @Test func randomDocumentsAgreeWithFoundation() throws {
        var generator = SystemRandomNumberGenerator()
        let pieces = [#"{"a":"#, "1", "-2.5e3", #""s""#, #""\u00e9""#, "[", "]", "{", "}", ",", ":", "true", "null", #""k":"#, " "]
        var agreed = 0
        for _ in 0..<2_000 {
            let text = (0..<Int.random(in: 1...12, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let ours = try? JWTJSONDecoder.decode(JSONValue.self, from: Data(text.utf8))
            let foundation = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
            if let ours {
                #expect(ours == foundation, "\(text)")
                agreed += 1
            }
        }
        #expect(agreed > 0)
    }
}
