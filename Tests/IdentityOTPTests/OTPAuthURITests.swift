import IdentityOTP
import SeededRandom
import Testing

@Suite struct OTPAuthURITests {
    static let secret = Array("12345678901234567890".utf8)

    @Test func builderEncodesLabelAndParameters() {
        let uri = OTPAuthURI(issuer: "ACME Co", account: "john.doe@email.com", secret: Self.secret)
        #expect(
            uri.string
                == "otpauth://totp/ACME%20Co:john.doe%40email.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=ACME%20Co"
        )
        let custom = OTPAuthURI(
            issuer: "R&D/Ops", account: "a:b?c#d", secret: Self.secret, algorithm: .sha512, digits: 8, period: 60)
        #expect(
            custom.string
                == "otpauth://totp/R%26D%2FOps:a%3Ab%3Fc%23d?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=R%26D%2FOps&algorithm=SHA512&digits=8&period=60"
        )
        let hotp = OTPAuthURI(kind: .hotp, issuer: nil, account: "Ünï 東京", secret: Self.secret, counter: 7)
        #expect(
            hotp.string
                == "otpauth://hotp/%C3%9Cn%C3%AF%20%E6%9D%B1%E4%BA%AC?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&counter=7"
        )
    }

    @Test func theWikiExampleParses() throws {
        let uri = try OTPAuthURI(
            parsing:
                "otpauth://totp/ACME%20Co:john.doe@email.com?secret=HXDMVJECJJWSRB3HWIZR4IFUGFTMXBOZ&issuer=ACME%20Co&algorithm=SHA1&digits=6&period=30"
        )
        #expect(uri.issuer == "ACME Co")
        #expect(uri.account == "john.doe@email.com")
        #expect(uri.algorithm == .sha1)
        #expect(uri.digits == 6)
        #expect(uri.period == 30)
        #expect(Base32.encode(uri.secret) == "HXDMVJECJJWSRB3HWIZR4IFUGFTMXBOZ")
    }

    @Test func encodedColonsInsideParts() throws {
        let uri = OTPAuthURI(issuer: "R:D", account: "a:b@x", secret: Self.secret)
        #expect(uri.string.hasPrefix("otpauth://totp/R%3AD:a%3Ab%40x?secret="))
        let parsed = try OTPAuthURI(parsing: uri.string)
        #expect(parsed.issuer == "R:D")
        #expect(parsed.account == "a:b@x")
    }

    @Test func firebaseStyleUnencodedURIsParse() throws {
        let uri = try OTPAuthURI(
            parsing:
                "otpauth://totp/my-app:ada@example.com?secret=HXDMVJECJJWSRB3HWIZR4IFUGFTMXBOZ&issuer=my-app&algorithm=SHA1&digits=6"
        )
        #expect(uri.issuer == "my-app")
        #expect(uri.account == "ada@example.com")
        // An encoded separator, confirmed by the issuer parameter (the wiki's form).
        let encodedSeparator = try OTPAuthURI(
            parsing: "otpauth://totp/ACME%3A%20ada?secret=HXDMVJECJJWSRB3HWIZR4IFUGFTMXBOZ&issuer=ACME")
        #expect(encodedSeparator.issuer == "ACME")
        #expect(encodedSeparator.account == "ada")
        // Without the parameter, an encoded colon belongs to the account (as pyotp reads it).
        let accountColon = try OTPAuthURI(parsing: "otpauth://totp/co%3Alon?secret=HXDMVJECJJWSRB3HWIZR4IFUGFTMXBOZ")
        #expect(accountColon.issuer == nil)
        #expect(accountColon.account == "co:lon")
    }

    /// Seeded: every run checks the same URIs; a failure prints the URI.
    @Test func roundTripOfEverythingTheBuilderEmits() throws {
        var generator = SeededGenerator(seed: 6238)
        let names = [
            "ACME Co", "a@b", "R&D", "50% off", "x/y", "Ünïcödé", "東京", "a+b", "q?u#e=r;y", "😀", "", "plain", "R:D",
            "a:b:c",
        ]
        for index in 0..<500 {
            let issuer = names[index % names.count]
            let account = names[(index / 3) % names.count] + "\(index)"
            let uri = OTPAuthURI(
                kind: index % 5 == 0 ? .hotp : .totp, issuer: issuer.isEmpty ? nil : issuer, account: account,
                secret: (0..<Int.random(in: 16...64, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                },
                algorithm: HashAlgorithm.allCases[index % 3], digits: [6, 7, 8][index % 3],
                // An hotp URI has no period.
                period: index % 5 == 0 ? 30 : [30, 60, 1][index % 3],
                counter: index % 5 == 0 ? UInt64(index) : nil)
            #expect(try OTPAuthURI(parsing: uri.string) == uri, "\(uri.string)")
        }
    }

    @Test func pyotpFixtures() throws {
        let cases = try Fixture.load("pyotp-uris.json", as: [Fixture.URI].self)
        #expect(cases.count >= 200)
        for item in cases {
            let uri = try OTPAuthURI(parsing: item.uri)
            #expect(uri.issuer == item.issuer, "\(item.uri)")
            #expect(uri.account == item.account, "\(item.uri)")
            #expect(Base32.encode(uri.secret) == item.secret)
            #expect(uri.algorithm.rawValue == item.algorithm)
            #expect(uri.digits == item.digits)
            #expect(uri.period == item.period)
        }
    }

    @Test(arguments: [
        ("https://totp/x?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", OTPAuthURIError.notOTPAuth),
        ("otpauth://motp/x?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", .unknownType("motp")),
        ("otpauth://totp/x", .missingSecret),
        ("otpauth://totp/x?secret=", .missingSecret),
        ("otpauth://totp/x?secret=JBSWY3D1", .invalidSecret(.invalidCharacter(position: 8))),
        ("otpauth://totp/A:x?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=B", .issuerMismatch),
        ("otpauth://totp/x?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&algorithm=MD5", .unknownAlgorithm("MD5")),
        ("otpauth://totp/x?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&digits=9", .invalidDigits("9")),
        ("otpauth://totp/x?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&digits=5", .invalidDigits("5")),
        ("otpauth://totp/x?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&digits=six", .invalidDigits("six")),
        ("otpauth://totp/x?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&period=0", .invalidPeriod("0")),
        (
            "otpauth://totp/x?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ",
            .duplicateParameter("secret")
        ),
        ("otpauth://totp/x?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&Issuer=a&issuer=a", .duplicateParameter("issuer")),
        ("otpauth://hotp/x?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", .missingCounter),
        ("otpauth://hotp/x?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&counter=-1", .invalidCounter("-1")),
        ("otpauth://totp/?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", .missingAccount),
        ("otpauth://totp/a:b:c?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", .malformedLabel),
        ("otpauth://totp/x%ZZ?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", .malformedEncoding),
        ("otpauth://totp/x%FF?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", .malformedEncoding),
        ("otpauth://totp", .malformedLabel),
    ])
    func rejections(text: String, error: OTPAuthURIError) {
        #expect(throws: error) { try OTPAuthURI(parsing: text) }
    }

    /// RFC 4226's 128 bits by default; an 80-bit secret (the
    /// `JBSWY3DPEHPK3PXP` of many examples) only with the explicit opt-out.
    @Test func shortSecretsNeedTheLegacyPolicy() throws {
        let legacy = "otpauth://totp/ACME:ada?secret=JBSWY3DPEHPK3PXP&issuer=ACME"
        #expect(throws: OTPAuthURIError.secretTooShort(byteCount: 10, minimum: 16)) { try OTPAuthURI(parsing: legacy) }
        let imported = try OTPAuthURI(parsing: legacy, keyLengthPolicy: .legacyImport)
        #expect(imported.secret.count == 10)
        #expect(throws: OTPError.secretTooShort(byteCount: 10, minimum: 16)) { try imported.totp() }
        _ = try imported.totp(keyLengthPolicy: .legacyImport)
        #expect(throws: OTPAuthURIError.secretTooShort(byteCount: 1, minimum: 16)) {
            try OTPAuthURI(parsing: "otpauth://totp/x?secret=AE")
        }
    }

    /// A URI longer than any QR code holds is refused before it is read.
    @Test func overlongURIsAreRefused() throws {
        let base = "otpauth://totp/x?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&image="
        let fits = base + String(repeating: "a", count: OTPAuthURI.maximumLength - base.utf8.count)
        #expect(try OTPAuthURI(parsing: fits).account == "x")
        #expect(throws: OTPAuthURIError.tooLong(limit: 4096)) { try OTPAuthURI(parsing: fits + "a") }
        #expect(throws: OTPAuthURIError.tooLong(limit: 4096)) {
            try OTPAuthURI(parsing: base + String(repeating: "a", count: 1 << 20))
        }
    }

    /// A URI within the bound whose written form would exceed it is refused
    /// too, so that every parsed value writes a URI that parses again: an
    /// issuer of 1,300 "é" in the label (2.6 KB) is written twice, encoded
    /// (15.6 KB).
    @Test func aURIWhoseWrittenFormWouldNotParseIsRefused() throws {
        let issuer = String(repeating: "é", count: 1_300)
        let text = "otpauth://totp/\(issuer):ada?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
        #expect(text.utf8.count <= OTPAuthURI.maximumLength)
        #expect(throws: OTPAuthURIError.tooLong(limit: 4096)) { try OTPAuthURI(parsing: text) }
        // Short enough written: accepted, and it round-trips.
        let short = try OTPAuthURI(
            parsing: "otpauth://totp/\(String(repeating: "é", count: 100)):ada?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ")
        #expect(try OTPAuthURI(parsing: short.string) == short)
    }

    @Test func descriptionsHideTheSecret() {
        let uri = OTPAuthURI(issuer: "I", account: "a", secret: Self.secret)
        #expect(!uri.description.contains("GEZDGNBV"))
        #expect(!"\(OTPAuthURIError.invalidSecret(.invalidCharacter(position: 3)))".contains("GEZ"))
    }
}

@Suite struct OTPAuthURIKindParameterTests {
    /// Found by the otpauth fuzz harness: parameters of the other kind are
    /// dropped, so a parsed URI re-parses to the same value.
    @Test func parametersOfTheOtherKindAreDropped() throws {
        let totp = try OTPAuthURI(
            parsing: "otpauth://totp/x?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&counter=256&period=60")
        #expect(totp.counter == nil)
        #expect(totp.period == 60)
        #expect(try OTPAuthURI(parsing: totp.string) == totp)
        let hotp = try OTPAuthURI(
            parsing: "otpauth://hotp/x?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&counter=5&period=60")
        #expect(hotp.counter == 5)
        #expect(hotp.period == 30)
        #expect(try OTPAuthURI(parsing: hotp.string) == hotp)
    }
}
