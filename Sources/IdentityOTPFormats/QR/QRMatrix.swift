/// The module grid while a symbol is built: function patterns first, then
/// data in the zig-zag order, then the mask and format bits.
struct QRMatrix {
    let version: Int
    let size: Int
    var dark: [Bool]
    /// Modules that belong to function patterns (never masked or filled with data).
    var reserved: [Bool]

    init(version: Int) {
        self.version = version
        size = version * 4 + 17
        dark = [Bool](repeating: false, count: size * size)
        reserved = [Bool](repeating: false, count: size * size)
    }

    private mutating func set(_ x: Int, _ y: Int, _ value: Bool) {
        dark[y * size + x] = value
        reserved[y * size + x] = true
    }

    mutating func drawFunctionPatterns() {
        // Timing patterns.
        for index in 0..<size {
            set(6, index, index % 2 == 0)
            set(index, 6, index % 2 == 0)
        }
        // Finder patterns with their separators.
        for (cx, cy) in [(3, 3), (size - 4, 3), (3, size - 4)] {
            for dy in -4...4 {
                for dx in -4...4 {
                    let x = cx + dx
                    let y = cy + dy
                    guard (0..<size).contains(x), (0..<size).contains(y) else { continue }
                    let distance = max(abs(dx), abs(dy))
                    set(x, y, distance != 2 && distance != 4)
                }
            }
        }
        // Alignment patterns, except where they would overlap the finders.
        let positions = QRTables.alignmentPositions(version: version)
        let last = positions.count - 1
        for (i, cx) in positions.enumerated() {
            for (j, cy) in positions.enumerated() {
                if (i == 0 && j == 0) || (i == 0 && j == last) || (i == last && j == 0) { continue }
                for dy in -2...2 {
                    for dx in -2...2 { set(cx + dx, cy + dy, max(abs(dx), abs(dy)) != 1) }
                }
            }
        }
        // Reserve the format areas (drawn later) and the dark module.
        drawFormatBits(errorCorrection: .medium, mask: 0)
        set(8, size - 8, true)
        // Version information.
        if version >= 7 {
            let bits = QRTables.versionBits(version)
            for index in 0..<18 {
                let bit = (bits >> index) & 1 == 1
                let a = size - 11 + index % 3
                let b = index / 3
                set(a, b, bit)
                set(b, a, bit)
            }
        }
    }

    mutating func drawFormatBits(errorCorrection: QRCode.ErrorCorrection, mask: Int) {
        let bits = QRTables.formatBits(errorCorrection, mask: mask)
        func bit(_ index: Int) -> Bool { (bits >> index) & 1 == 1 }
        // First copy, around the top-left finder.
        for index in 0...5 { set(8, index, bit(index)) }
        set(8, 7, bit(6))
        set(8, 8, bit(7))
        set(7, 8, bit(8))
        for index in 9..<15 { set(14 - index, 8, bit(index)) }
        // Second copy, split between the other two finders.
        for index in 0..<8 { set(size - 1 - index, 8, bit(index)) }
        for index in 8..<15 { set(8, size - 15 + index, bit(index)) }
        set(8, size - 8, true)
    }

    /// Places codewords two columns at a time, right to left, alternating
    /// upwards and downwards, skipping the vertical timing column.
    mutating func drawCodewords(_ codewords: [UInt8]) {
        var bitIndex = 0
        let totalBits = codewords.count * 8
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            for vertical in 0..<size {
                for column in 0..<2 {
                    let x = right - column
                    let upward = ((right + 1) & 2) == 0
                    let y = upward ? size - 1 - vertical : vertical
                    guard !reserved[y * size + x] else { continue }
                    if bitIndex < totalBits {
                        dark[y * size + x] = (codewords[bitIndex >> 3] >> (7 - UInt8(bitIndex & 7))) & 1 == 1
                        bitIndex += 1
                    }
                }
            }
            right -= 2
        }
    }

    mutating func applyMask(_ mask: Int) {
        for y in 0..<size {
            for x in 0..<size where !reserved[y * size + x] {
                let invert: Bool
                switch mask {
                case 0: invert = (x + y) % 2 == 0
                case 1: invert = y % 2 == 0
                case 2: invert = x % 3 == 0
                case 3: invert = (x + y) % 3 == 0
                case 4: invert = (x / 3 + y / 2) % 2 == 0
                case 5: invert = x * y % 2 + x * y % 3 == 0
                case 6: invert = (x * y % 2 + x * y % 3) % 2 == 0
                default: invert = ((x + y) % 2 + x * y % 3) % 2 == 0
                }
                if invert { dark[y * size + x].toggle() }
            }
        }
    }

    /// The mask penalty of ISO/IEC 18004 §7.8.3 (rules N1–N4).
    func penalty() -> Int {
        var result = 0
        func line(_ values: [Bool]) -> Int {
            var score = 0
            var runColor = values[0]
            var runLength = 0
            for value in values {
                if value == runColor {
                    runLength += 1
                } else {
                    if runLength >= 5 { score += 3 + runLength - 5 }
                    runColor = value
                    runLength = 1
                }
            }
            if runLength >= 5 { score += 3 + runLength - 5 }
            // Finder-like 1:1:3:1:1 with four light modules on one side.
            let pattern: [Bool] = [true, false, true, true, true, false, true]
            if values.count >= 11 {
                for start in 0...(values.count - 7) where Array(values[start..<start + 7]) == pattern {
                    let before = start >= 4 && values[(start - 4)..<start].allSatisfy { !$0 }
                    let after = start + 11 <= values.count && values[(start + 7)..<(start + 11)].allSatisfy { !$0 }
                    if before || after { score += 40 }
                }
            }
            return score
        }
        for y in 0..<size { result += line(Array(dark[(y * size)..<(y * size + size)])) }
        for x in 0..<size { result += line((0..<size).map { dark[$0 * size + x] }) }
        for y in 0..<(size - 1) {
            for x in 0..<(size - 1) {
                let color = dark[y * size + x]
                if color == dark[y * size + x + 1] && color == dark[(y + 1) * size + x]
                    && color == dark[(y + 1) * size + x + 1]
                {
                    result += 3
                }
            }
        }
        let darkCount = dark.reduce(0) { $0 + ($1 ? 1 : 0) }
        let total = size * size
        let deviation = (abs(darkCount * 20 - total * 10) + total - 1) / total - 1
        result += max(0, deviation) * 10
        return result
    }
}
