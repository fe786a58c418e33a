extension QRCode {
    /// An SVG document: one path of dark modules on a white square, with a
    /// quiet zone (4 modules by default, as the standard asks).
    public func svg(moduleSize: Int = 8, quietZone: Int = 4) -> String {
        let side = (size + 2 * quietZone) * moduleSize
        var path = ""
        for y in 0..<size {
            var x = 0
            while x < size {
                guard self[x, y] else {
                    x += 1
                    continue
                }
                let start = x
                while x < size && self[x, y] { x += 1 }
                path += "M\(start + quietZone),\(y + quietZone)h\(x - start)v1h-\(x - start)z"
            }
        }
        let viewBox = size + 2 * quietZone
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(side)" height="\(side)" viewBox="0 0 \(viewBox) \(viewBox)" shape-rendering="crispEdges">
            <rect width="100%" height="100%" fill="#ffffff"/>
            <path fill="#000000" d="\(path)"/>
            </svg>

            """
    }

    /// A PNG image (1-bit greyscale, `scale` pixels per module).
    public func png(scale: Int = 8, quietZone: Int = 4) -> [UInt8] {
        let side = (size + 2 * quietZone) * scale
        let rowBytes = (side + 7) / 8
        var raw: [UInt8] = []
        raw.reserveCapacity((rowBytes + 1) * side)
        for pixelY in 0..<side {
            raw.append(0) // filter type: none
            let y = pixelY / scale - quietZone
            var byte: UInt8 = 0
            for pixelX in 0..<side {
                let x = pixelX / scale - quietZone
                let isDark = x >= 0 && y >= 0 && x < size && y < size && self[x, y]
                // Greyscale 1-bit: 1 is white.
                if !isDark { byte |= 0x80 >> UInt8(pixelX % 8) }
                if pixelX % 8 == 7 {
                    raw.append(byte)
                    byte = 0
                }
            }
            if side % 8 != 0 { raw.append(byte) }
        }
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header: [UInt8] = []
        header.appendBigEndian(UInt32(side))
        header.appendBigEndian(UInt32(side))
        header += [1, 0, 0, 0, 0] // bit depth 1, greyscale, deflate, adaptive filtering, no interlace
        PNGChunk.append("IHDR", header, to: &png)
        PNGChunk.append("IDAT", ZlibStored.compress(raw), to: &png)
        PNGChunk.append("IEND", [], to: &png)
        return png
    }

    /// Text for a terminal: each character is two rows of modules (Unicode
    /// half blocks). With `ansiColors`, black on white whatever the
    /// terminal's theme, so a phone camera reads it from the screen.
    public func terminalText(quietZone: Int = 2, ansiColors: Bool = true) -> String {
        let side = size + 2 * quietZone
        func isDark(_ x: Int, _ y: Int) -> Bool {
            let mx = x - quietZone
            let my = y - quietZone
            return mx >= 0 && my >= 0 && mx < size && my < size && self[mx, my]
        }
        var lines: [String] = []
        for y in stride(from: 0, to: side, by: 2) {
            var line = ansiColors ? "\u{1B}[30;107m" : ""
            for x in 0..<side {
                switch (isDark(x, y), isDark(x, y + 1)) {
                case (true, true): line += "█"
                case (true, false): line += "▀"
                case (false, true): line += "▄"
                case (false, false): line += " "
                }
            }
            if ansiColors { line += "\u{1B}[0m" }
            lines.append(line)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension [UInt8] {
    mutating func appendBigEndian(_ value: UInt32) {
        append(UInt8(value >> 24))
        append(UInt8(truncatingIfNeeded: value >> 16))
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }
}

enum PNGChunk {
    static func append(_ type: String, _ data: [UInt8], to png: inout [UInt8]) {
        png.appendBigEndian(UInt32(data.count))
        let typed = Array(type.utf8) + data
        png += typed
        png.appendBigEndian(CRC32.checksum(typed))
    }
}

/// CRC-32 (ISO 3309), as PNG chunks use it.
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}

/// A zlib stream of stored (uncompressed) deflate blocks: valid for every
/// PNG decoder, with no compression library. QR images are small.
enum ZlibStored {
    static func compress(_ data: [UInt8]) -> [UInt8] {
        var output: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let length = Swift.min(65_535, data.count - offset)
            let isFinal = offset + length == data.count
            output.append(isFinal ? 1 : 0)
            output += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            output += data[offset..<offset + length]
            offset += length
        } while offset < data.count
        output.appendBigEndian(adler32(data))
        return output
    }

    static func adler32(_ data: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return b << 16 | a
    }
}
