import Testing

@testable import IdentityOTP
@testable import IdentityOTPFormats

@Suite struct QRCodeTests {
    @Test func reedSolomonMatchesTheStandardsExample() {
        // ISO/IEC 18004 Annex I: "01234567", version 1-M.
        let data: [UInt8] = [
            0x10, 0x20, 0x0C, 0x56, 0x61, 0x80, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11,
        ]
        let ec = ReedSolomon.remainder(data, generator: ReedSolomon.generator(degree: 10))
        #expect(ec == [0xA5, 0x24, 0xD4, 0xC1, 0xED, 0x36, 0xC7, 0x87, 0x2C, 0x55])
    }

    @Test func formatAndVersionBits() {
        #expect(QRTables.formatBits(.low, mask: 0) == 0b1110111_11000100)
        #expect(QRTables.formatBits(.medium, mask: 0) == 0b1010100_00010010)
        #expect(QRTables.formatBits(.quartile, mask: 0) == 0b0110101_01011111)
        #expect(QRTables.formatBits(.high, mask: 0) == 0b0010110_10001001)
        #expect(QRTables.formatBits(.low, mask: 7) == 0b1101001_01110110)
        #expect(QRTables.versionBits(7) == 0x07C94)
        #expect(QRTables.versionBits(21) == 0x15683)
        #expect(QRTables.versionBits(40) == 0x28C69)
    }

    @Test(arguments: [
        (QRCode.ErrorCorrection.low, 1, 17), (.medium, 1, 14), (.quartile, 1, 11), (.high, 1, 7),
        (.medium, 10, 213), (.low, 40, 2953), (.medium, 40, 2331), (.quartile, 40, 1663), (.high, 40, 1273),
    ])
    func byteCapacities(level: QRCode.ErrorCorrection, version: Int, bytes: Int) throws {
        #expect(
            try QRCode(bytes: [UInt8](repeating: 0x61, count: bytes), errorCorrection: level, minimumVersion: version)
                .version == version)
        if version < 40 {
            #expect(
                try QRCode(
                    bytes: [UInt8](repeating: 0x61, count: bytes + 1), errorCorrection: level, minimumVersion: version
                ).version == version + 1)
        } else {
            #expect(throws: QRCodeError.dataTooLong(byteCount: bytes + 1, maximum: bytes)) {
                try QRCode(bytes: [UInt8](repeating: 0x61, count: bytes + 1), errorCorrection: level)
            }
        }
    }

    @Test func matricesMatchPythonQRCodeModuleForModule() throws {
        let cases = try Fixture.load("qrcode-matrices.json", as: [Fixture.QR].self)
        for item in cases {
            let level = try #require(QRCode.ErrorCorrection(rawValue: item.error))
            let code = try QRCode(text: item.text, errorCorrection: level, mask: item.mask)
            #expect(code.version == item.version, "\(item.text.prefix(20)) \(item.error)")
            let rows = (0..<code.size).map { y in String((0..<code.size).map { code[$0, y] ? "1" : "0" }) }
            #expect(rows == item.matrix, "version \(item.version) \(item.error) mask \(item.mask)")
        }
    }

    @Test func automaticMaskChoosesTheLowestPenalty() throws {
        let text = "otpauth://totp/ACME%20Co:ada%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=ACME%20Co"
        let chosen = try QRCode(text: text)
        let penalties = try (0..<8).map { mask -> Int in
            let code = try QRCode(text: text, mask: mask)
            var matrix = QRMatrix(version: code.version)
            matrix.dark = code.modules
            return matrix.penalty()
        }
        #expect(penalties[chosen.mask] == penalties.min())
    }

    @Test func badParametersAreErrors() {
        #expect(throws: QRCodeError.invalidMask(8)) { try QRCode(text: "x", mask: 8) }
        #expect(throws: QRCodeError.invalidVersion(41)) { try QRCode(text: "x", minimumVersion: 41) }
    }

    @Test func pngIsWellFormed() throws {
        let code = try QRCode(text: "hello", errorCorrection: .low)
        let png = code.png(scale: 3, quietZone: 4)
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        // Walk the chunks, checking lengths and CRCs; inflate the stored IDAT.
        var offset = 8
        var types: [String] = []
        var idat: [UInt8] = []
        while offset < png.count {
            let length =
                Int(png[offset]) << 24 | Int(png[offset + 1]) << 16 | Int(png[offset + 2]) << 8 | Int(png[offset + 3])
            let typed = Array(png[(offset + 4)..<(offset + 8 + length)])
            let crc = png[(offset + 8 + length)..<(offset + 12 + length)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            #expect(CRC32.checksum(typed) == crc)
            let type = String(decoding: typed.prefix(4), as: UTF8.self)
            types.append(type)
            if type == "IDAT" { idat = Array(typed.dropFirst(4)) }
            offset += 12 + length
        }
        #expect(types == ["IHDR", "IDAT", "IEND"])
        let side = (21 + 8) * 3
        let raw = Array(idat[7..<(idat.count - 4)])
        #expect(raw.count == ((side + 7) / 8 + 1) * side)
        #expect(ZlibStored.adler32(raw) == idat.suffix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        // The top-left finder's corner module (pixel 12,12) is dark (bit 0); the quiet zone is white.
        let rowBytes = (side + 7) / 8 + 1
        #expect(raw[12 * rowBytes + 1 + 12 / 8] & (0x80 >> UInt8(12 % 8)) == 0)
        #expect(raw[0 * rowBytes + 1] == 0xFF)
        #expect(CRC32.checksum(Array("IEND".utf8)) == 0xAE42_6082)
    }

    @Test func svgAndTerminalText() throws {
        let code = try QRCode(text: "hello", errorCorrection: .low)
        let svg = code.svg(moduleSize: 4, quietZone: 4)
        #expect(svg.contains(#"viewBox="0 0 29 29""#))
        #expect(svg.contains(##"<path fill="#000000" d="M4,4h7v1h-7z"##))
        let text = code.terminalText(quietZone: 1, ansiColors: false)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 12)
        #expect(lines.allSatisfy { $0.count == 23 })
        #expect(lines[0].hasPrefix(" ▄▄▄▄▄▄▄ "))
        #expect(lines[1].hasPrefix(" █ ▄▄▄ █ "))
        #expect(code.terminalText().hasPrefix("\u{1B}[30;107m"))
    }
}
