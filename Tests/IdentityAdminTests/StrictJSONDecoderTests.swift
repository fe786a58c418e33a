import Foundation
import IdentityToolkit
import IdentityToolkitJWT
import Testing

/// The verifier's JSON decoder reads what Foundation's reads, the same way,
/// and refuses what a JWT must not hold.
@Suite struct StrictJSONDecoderTests {
    static let claims = #"""
        {"iss":"https://securetoken.google.com/p","aud":"p","auth_time":1800000000,"user_id":"u1","sub":"u1","iat":1800000000,
         "exp":1800003600,"email":"ada@example.com","email_verified":true,
         "firebase":{"identities":{"email":["ada@example.com"]},"sign_in_provider":"password","sign_in_second_factor":"totp",
                     "second_factor_identifier":"f1","tenant":"t-1"},"role":["a",{"b":[1,2.5,-3e2,null,false]}]}
        """#

    @Test func generatedTypesDecodeAsWithFoundation() throws {
        let data = Data(Self.claims.utf8)
        #expect(
            try StrictJSONDecoder.decode(IDTokenClaims.self, from: data)
                == JSONDecoder().decode(IDTokenClaims.self, from: data))
        #expect(
            try StrictJSONDecoder.decode([String: JSONValue].self, from: data)
                == JSONDecoder().decode([String: JSONValue].self, from: data))
        let header = Data(#"{"alg":"RS256","kid":"k\u0031","typ":"JWT"}"#.utf8)
        #expect(
            try StrictJSONDecoder.decode(JOSEHeader.self, from: header)
                == JOSEHeader(alg: .rs256, typ: "JWT", kid: "k1"))
    }

    @Test(arguments: [
        (#""\u00e9\ud83d\ude00\n\"\\\/""#, "é😀\n\"\\/"),
        (#"  "plain"  "#, "plain"),
        (#""ÿ€""#, "ÿ€"),
        // ASCII with one-byte escapes (decoded straight into the string), then the general path's cases.
        (#""https:\/\/securetoken.google.com\/p""#, "https://securetoken.google.com/p"),
        (#""a\tb\"c\\d\be\ff\ng\rh\/""#, "a\tb\"c\\d\u{8}e\u{C}f\ng\rh/"),
        (#""é\/x""#, "é/x"), (#""\/é""#, "/é"), (#""\/\u0041""#, "/A"),
    ])
    func stringsAndEscapes(json: String, expected: String) throws {
        #expect(try StrictJSONDecoder.decode(String.self, from: Data(json.utf8)) == expected)
    }

    @Test func numbers() throws {
        #expect(
            try StrictJSONDecoder.decode([Int64].self, from: Data("[0, -1, 9223372036854775807, 1e3, 2.0]".utf8)) == [
                0, -1, .max, 1000, 2,
            ])
        #expect(try StrictJSONDecoder.decode([Double].self, from: Data("[0.5, -1E-2]".utf8)) == [0.5, -0.01])
        #expect(throws: DecodingError.self) {
            try StrictJSONDecoder.decode(Int64.self, from: Data("9223372036854775808".utf8))
        }
        #expect(throws: DecodingError.self) { try StrictJSONDecoder.decode(Int64.self, from: Data("1.5".utf8)) }
    }

    @Test(arguments: [
        #"{"sub":"a","sub":"b"}"#, // a duplicate name: read one way here, another elsewhere
        #"{"a":1} x"#, #"{"a":1}}"#, "", // content after the value; nothing
        #"{"a":01}"#, #"{"a":1.}"#, #"{"a":-}"#, #"{"a":.5}"#, #"{"a":1e}"#,
        #"{"a":"\x"}"#, #"{"a":"\ud800"}"#, #"{"a":"\udc00\ud800"}"#, "{\"a\":\"\u{1}\"}",
        #"{"a":"\/\x"}"#, #"{"a":"\/unterminated}"#, #"{"a":"\/"#, "{\"a\":\"\\/\u{1}\"}",
        #"{"a":tru}"#, #"{"a" 1}"#, #"{"a":1,}"#, #"[1,]"#, #"{a:1}"#, #"'a'"#, #"{"a":"unterminated}"#,
        String(repeating: "[", count: 40) + String(repeating: "]", count: 40),
    ])
    func refused(json: String) {
        #expect(throws: DecodingError.self, "\(json)") {
            try StrictJSONDecoder.decode(JSONValue.self, from: Data(json.utf8))
        }
    }

    @Test func invalidUTF8IsRefused() {
        #expect(throws: DecodingError.self) {
            try StrictJSONDecoder.decode(String.self, from: Data([0x22, 0xC3, 0x28, 0x22]))
        }
        #expect(throws: DecodingError.self) {
            try StrictJSONDecoder.decode(String.self, from: Data([0x22, 0xED, 0xA0, 0x80, 0x22]))
        }
    }

    /// Errors carry the coding path, so the verifier names the claim (never its value).
    @Test func errorsNameThePath() throws {
        var wrongType = Self.claims.replacingOccurrences(
            of: #""sign_in_provider":"password""#, with: #""sign_in_provider":5"#)
        do {
            _ = try StrictJSONDecoder.decode(IDTokenClaims.self, from: Data(wrongType.utf8))
            Issue.record("decoded a number as a string")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(context.codingPath.map(\.stringValue) == ["firebase", "sign_in_provider"])
        }
        wrongType = Self.claims.replacingOccurrences(of: #""sub":"u1","#, with: "")
        do {
            _ = try StrictJSONDecoder.decode(IDTokenClaims.self, from: Data(wrongType.utf8))
            Issue.record("decoded without sub")
        } catch DecodingError.keyNotFound(let key, _) {
            #expect(key.stringValue == "sub")
        }
        // null for an optional claim is its absence, as with JSONDecoder.
        let nullEmail = Self.claims.replacingOccurrences(
            of: #""ada@example.com","email_verified""#, with: #"null,"email_verified""#)
        #expect(try StrictJSONDecoder.decode(IDTokenClaims.self, from: Data(nullEmail.utf8)).email == nil)
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
        for json in [
            #"{"flag":true,"count":7,"lists":{"a":["x","é"],"b":[]},"names":["n"]}"#, #"{"flag":null,"count":null}"#,
            "{}",
        ] {
            let data = Data(json.utf8)
            #expect(
                try StrictJSONDecoder.decode(Optionals.self, from: data)
                    == JSONDecoder().decode(Optionals.self, from: data), "\(json)")
        }
        let badIdentity = Self.claims.replacingOccurrences(of: #"["ada@example.com"]"#, with: #"["ada@example.com",5]"#)
        do {
            _ = try StrictJSONDecoder.decode(IDTokenClaims.self, from: Data(badIdentity.utf8))
            Issue.record("decoded a number as an identity")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(context.codingPath.map(\.stringValue) == ["firebase", "identities", "email", "Index 1"])
        }
    }

    /// Random documents: each is read as Foundation reads it, or refused by both.
    @Test func randomDocumentsAgreeWithFoundation() throws {
        var generator = SystemRandomNumberGenerator()
        let pieces = [
            #"{"a":"#, "1", "-2.5e3", #""s""#, #""\u00e9""#, "[", "]", "{", "}", ",", ":", "true", "null", #""k":"#,
            " ",
        ]
        var agreed = 0
        for _ in 0..<2_000 {
            let text = (0..<Int.random(in: 1...12, using: &generator)).map { _ in
                pieces.randomElement(using: &generator)!
            }.joined()
            let ours = try? StrictJSONDecoder.decode(JSONValue.self, from: Data(text.utf8))
            let foundation = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
            if let ours {
                #expect(ours == foundation, "\(text)")
                agreed += 1
            }
        }
        #expect(agreed > 0)
    }
}

/// The verifier's hot path reads the header and claims with their generated
/// strict readers (`x-strict-reader`): they must read what `StrictJSONDecoder`
/// and Foundation read, refuse what `StrictJSONDecoder` refuses, and name the
/// claim that failed the same way.
@Suite struct StrictClaimsReaderTests {
    static let claims = StrictJSONDecoderTests.claims

    /// Both readers of the claims, as one outcome: the value, or nil when refused.
    static func outcomes(_ text: String) -> (strict: IDTokenClaims?, tree: IDTokenClaims?, foundation: IDTokenClaims?) {
        let data = Data(text.utf8)
        return (
            try? IDTokenClaims(strictJSON: data), try? StrictJSONDecoder.decode(IDTokenClaims.self, from: data),
            try? JSONDecoder().decode(IDTokenClaims.self, from: data)
        )
    }

    @Test func claimsAndHeaderReadAsWithFoundation() throws {
        let data = Data(Self.claims.utf8)
        #expect(try IDTokenClaims(strictJSON: data) == JSONDecoder().decode(IDTokenClaims.self, from: data))
        let header = Data(#"{"alg":"RS256","kid":"k\u0031","typ":"JWT","x5u":null}"#.utf8)
        #expect(try JOSEHeader(strictJSON: header) == JOSEHeader(alg: .rs256, typ: "JWT", kid: "k1"))
    }

    /// What a forger tries: each is refused by both JWT readers.
    @Test(arguments: [
        (#""sub":"u1","#, #""sub":"u1","sub":"admin","#), // a duplicate claim
        (#""sub":"u1","#, #""sub":"u1","s\u0075b":"admin","#), // the same, escaped
        (#""role":["#, #""role":1,"role":["#), // a duplicate unknown claim
        (#""tenant":"t-1""#, #""tenant":"t-1","tenant":null"#), // a duplicate in a nested object
        (#""role":["#, #""x":"\ud800","role":["#), // a lone surrogate, in a skipped claim
        (#""role":["#, #""x":01,"role":["#), // a bad number, in a skipped claim
        (
            #""role":["#,
            "\"x\":" + String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + ",\"role\":["
        ),
        (#""exp":1800003600"#, #""exp":1800003600.5"#), // a time that is not whole
        (#""exp":1800003600"#, #""exp":"1800003600""#), // a time as a string
    ])
    func forgedClaimsAreRefused(original: String, forged: String) {
        let text = Self.claims.replacingOccurrences(of: original, with: forged)
        #expect(text != Self.claims)
        let (strict, tree, _) = Self.outcomes(text)
        #expect(strict == nil, "\(forged)")
        #expect(tree == nil, "\(forged)")
    }

    /// An object's first 16 names are kept on the stack for the duplicate
    /// check and the rest in an array: a duplicate is refused wherever its
    /// two names fall, and many distinct names read as Foundation reads them.
    @Test func duplicatesAreFoundAmongManyNames() throws {
        let extra = (0..<24).map { #""custom_\#($0)":\#($0)"# }.joined(separator: ",")
        let many = Self.claims.replacingOccurrences(of: #""role":["#, with: extra + #","role":["#)
        #expect(many != Self.claims)
        let (strict, tree, foundation) = Self.outcomes(many)
        #expect(strict != nil && strict == tree && strict == foundation)
        let duplicates = [
            #""custom_20":0"#, // both past the 16th name
            #""iss":"x""#, // the first among the first 16, the second past them
            #""custom_2":0"#, // the same, an unknown claim
            #""s\u0075b":"x""#, // escaped, past the 16th
        ]
        for duplicate in duplicates {
            let text = many.replacingOccurrences(of: #""role":["#, with: duplicate + #","role":["#)
            let (strict, tree, _) = Self.outcomes(text)
            #expect(strict == nil, "\(duplicate)")
            #expect(tree == nil, "\(duplicate)")
        }
    }

    @Test func invalidUTF8AndTrailingContentAreRefused() {
        var bytes = Array(Self.claims.utf8)
        let at = bytes.firstIndex(of: UInt8(ascii: "@"))!
        bytes[at] = 0xC3
        #expect(throws: DecodingError.self) { try IDTokenClaims(strictJSON: Data(bytes)) }
        #expect(throws: DecodingError.self) { try IDTokenClaims(strictJSON: Data((Self.claims + " {}").utf8)) }
    }

    /// The verifier's message names the claim from the coding path: the same as the tree decoder's.
    @Test func errorsNameTheClaimAsTheTreeDecoderDoes() {
        let variants = [
            Self.claims.replacingOccurrences(of: #""sign_in_provider":"password""#, with: #""sign_in_provider":5"#),
            Self.claims.replacingOccurrences(of: #""sign_in_provider":"password","#, with: ""),
            Self.claims.replacingOccurrences(of: #""sub":"u1","#, with: ""),
            Self.claims.replacingOccurrences(of: #""sub":"u1","#, with: #""sub":null,"#),
            Self.claims.replacingOccurrences(of: #"["ada@example.com"]"#, with: #"["ada@example.com",5]"#),
        ]
        func described(_ error: any Error) -> String {
            switch error as? DecodingError {
            case .keyNotFound(let key, let context)?:
                return "missing \((context.codingPath.map(\.stringValue) + [key.stringValue]).joined(separator: "."))"
            case .typeMismatch(_, let context)?:
                return "type at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
            case .valueNotFound(_, let context)?:
                return "null at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
            default: return "other: \(error)"
            }
        }
        let expected = [
            "type at firebase.sign_in_provider", "missing firebase.sign_in_provider", "missing sub", "null at sub",
            "type at firebase.identities.email.Index 1",
        ]
        for (text, expected) in zip(variants, expected) {
            let data = Data(text.utf8)
            #expect(throws: (any Error).self) { try IDTokenClaims(strictJSON: data) }
            #expect(throws: (any Error).self) { try StrictJSONDecoder.decode(IDTokenClaims.self, from: data) }
            do { _ = try IDTokenClaims(strictJSON: data) } catch { #expect(described(error) == expected) }
            do { _ = try StrictJSONDecoder.decode(IDTokenClaims.self, from: data) } catch {
                #expect(described(error) == expected)
            }
        }
    }

    /// Random edits of a real claims set: the strict reader and the tree
    /// decoder agree on every one (both refuse, or both read the same
    /// claims), and what they read is what Foundation reads.
    @Test func randomEditsAgreeWithTheTreeDecoderAndFoundation() {
        var generator = SystemRandomNumberGenerator()
        let original = Array(Self.claims.utf8)
        let inserts: [[UInt8]] =
            [
                ",", "\"", "{", "}", "[", "]", ":", "null", "1", "-", "e", "\\", "\\u0041", " ", "\"sub\":\"x\",",
                "\u{7f}",
            ]
            .map { Array($0.utf8) } + [[0xC3], [0x00]]
        var accepted = 0
        for _ in 0..<3_000 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let at = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes.remove(at: at)
                case 1: bytes.insert(contentsOf: inserts.randomElement(using: &generator)!, at: at)
                default: bytes[at] = inserts.randomElement(using: &generator)!.first!
                }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            guard String(validating: bytes, as: UTF8.self) != nil else {
                #expect((try? IDTokenClaims(strictJSON: Data(bytes))) == nil)
                continue
            }
            let (strict, tree, foundation) = Self.outcomes(text)
            #expect(strict == tree, "\(text)")
            if let strict {
                accepted += 1
                #expect(strict == foundation, "\(text)")
            }
        }
        #expect(accepted > 0)
    }
}
