/// A QR code (ISO/IEC 18004) in byte mode: versions 1–40, four error
/// correction levels, Reed–Solomon blocks, automatic or fixed mask.
///
/// Pure Swift, so rendering an enrollment QR code needs no C library.
public struct QRCode: Sendable, Hashable {
    /// How much of the symbol can be damaged and still decode.
    public enum ErrorCorrection: String, Sendable, Hashable, CaseIterable {
        /// About 7 %.
        case low = "L"
        /// About 15 %.
        case medium = "M"
        /// About 25 %.
        case quartile = "Q"
        /// About 30 %.
        case high = "H"

        /// The two format bits (L=01, M=00, Q=11, H=10).
        var formatBits: Int {
            switch self {
            case .low: return 1
            case .medium: return 0
            case .quartile: return 3
            case .high: return 2
            }
        }

        var tableIndex: Int {
            switch self {
            case .low: return 0
            case .medium: return 1
            case .quartile: return 2
            case .high: return 3
            }
        }
    }

    /// 1…40.
    public let version: Int
    /// How much of the symbol may be damaged and still read.
    public let errorCorrection: ErrorCorrection
    /// 0…7.
    public let mask: Int
    /// Modules per side (4 × version + 17).
    public let size: Int
    /// Row-major, `true` for dark.
    public let modules: [Bool]

    /// Whether the module at column `x`, row `y` is dark.
    public subscript(x: Int, y: Int) -> Bool { modules[y * size + x] }

    /// Encodes `text` as UTF-8 bytes in the smallest version that holds it.
    /// - Parameters:
    ///   - errorCorrection: The level (medium by default).
    ///   - mask: A fixed mask 0…7, or nil to choose the one with the lowest penalty.
    ///   - minimumVersion: The smallest version to use.
    /// - Throws: ``QRCodeError`` when the data does not fit version 40 or a parameter is out of range.
    public init(text: String, errorCorrection: ErrorCorrection = .medium, mask: Int? = nil, minimumVersion: Int = 1)
        throws(QRCodeError)
    {
        try self.init(
            bytes: Array(text.utf8), errorCorrection: errorCorrection, mask: mask, minimumVersion: minimumVersion)
    }

    /// Encodes `bytes` in byte mode; see ``init(text:errorCorrection:mask:minimumVersion:)``.
    public init(bytes: [UInt8], errorCorrection: ErrorCorrection = .medium, mask: Int? = nil, minimumVersion: Int = 1)
        throws(QRCodeError)
    {
        if let mask, !(0...7).contains(mask) { throw .invalidMask(mask) }
        guard (1...40).contains(minimumVersion) else { throw .invalidVersion(minimumVersion) }
        guard
            let version = (minimumVersion...40).first(where: {
                bytes.count * 8 + 4 + QRTables.countBits(version: $0) <= QRTables.dataCodewords(
                    version: $0, errorCorrection) * 8
            })
        else {
            throw .dataTooLong(
                byteCount: bytes.count, maximum: QRTables.dataCodewords(version: 40, errorCorrection) - 3)
        }
        let codewords = QRCode.codewords(bytes: bytes, version: version, errorCorrection: errorCorrection)
        var matrix = QRMatrix(version: version)
        matrix.drawFunctionPatterns()
        matrix.drawCodewords(codewords)
        let chosen: Int
        if let mask {
            chosen = mask
        } else {
            var best = 0
            var bestPenalty = Int.max
            for candidate in 0..<8 {
                var trial = matrix
                trial.applyMask(candidate)
                trial.drawFormatBits(errorCorrection: errorCorrection, mask: candidate)
                let penalty = trial.penalty()
                if penalty < bestPenalty {
                    best = candidate
                    bestPenalty = penalty
                }
            }
            chosen = best
        }
        matrix.applyMask(chosen)
        matrix.drawFormatBits(errorCorrection: errorCorrection, mask: chosen)
        self.version = version
        self.errorCorrection = errorCorrection
        self.mask = chosen
        self.size = matrix.size
        self.modules = matrix.dark
    }

    /// The final codeword sequence: data in byte mode with terminator and
    /// padding, split into blocks, each followed by its Reed–Solomon
    /// codewords, interleaved.
    static func codewords(bytes: [UInt8], version: Int, errorCorrection: ErrorCorrection) -> [UInt8] {
        var bits = BitBuffer()
        bits.append(0b0100, count: 4)
        bits.append(bytes.count, count: QRTables.countBits(version: version))
        for byte in bytes { bits.append(Int(byte), count: 8) }
        let capacity = QRTables.dataCodewords(version: version, errorCorrection) * 8
        bits.append(0, count: min(4, capacity - bits.count))
        bits.append(0, count: (8 - bits.count % 8) % 8)
        var data = bits.bytes
        var pad: UInt8 = 0xEC
        while data.count < capacity / 8 {
            data.append(pad)
            pad ^= 0xEC ^ 0x11
        }
        return interleave(data: data, version: version, errorCorrection: errorCorrection)
    }

    static func interleave(data: [UInt8], version: Int, errorCorrection: ErrorCorrection) -> [UInt8] {
        let blockCount = QRTables.blockCount(version: version, errorCorrection)
        let ecLength = QRTables.ecCodewordsPerBlock(version: version, errorCorrection)
        let rawCodewords = QRTables.rawDataModules(version: version) / 8
        let shortBlocks = blockCount - rawCodewords % blockCount
        let shortLength = rawCodewords / blockCount
        let generator = ReedSolomon.generator(degree: ecLength)
        var blocks: [[UInt8]] = []
        var ecBlocks: [[UInt8]] = []
        var offset = 0
        for index in 0..<blockCount {
            let length = shortLength - ecLength + (index < shortBlocks ? 0 : 1)
            let block = Array(data[offset..<offset + length])
            offset += length
            blocks.append(block)
            ecBlocks.append(ReedSolomon.remainder(block, generator: generator))
        }
        var result: [UInt8] = []
        result.reserveCapacity(rawCodewords)
        for column in 0..<(shortLength - ecLength + 1) {
            for block in blocks where column < block.count { result.append(block[column]) }
        }
        for column in 0..<ecLength {
            for block in ecBlocks { result.append(block[column]) }
        }
        return result
    }
}

/// Why a QR code could not be made.
public enum QRCodeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The data does not fit the largest symbol at this error-correction level.
    case dataTooLong(byteCount: Int, maximum: Int)
    /// A mask must be 0 to 7.
    case invalidMask(Int)
    /// A version must be 1 to 40.
    case invalidVersion(Int)

    /// What could not be encoded, and why.
    public var description: String {
        switch self {
        case .dataTooLong(let count, let maximum):
            return
                "the data (\(count) bytes) does not fit a QR code at this error correction level (at most \(maximum) bytes)"
        case .invalidMask(let mask): return "mask must be 0 to 7, not \(mask)"
        case .invalidVersion(let version): return "version must be 1 to 40, not \(version)"
        }
    }
}

/// Appends bit fields most significant bit first.
struct BitBuffer {
    private(set) var bytes: [UInt8] = []
    private(set) var count = 0

    mutating func append(_ value: Int, count bitCount: Int) {
        for shift in stride(from: bitCount - 1, through: 0, by: -1) {
            if count % 8 == 0 { bytes.append(0) }
            if (value >> shift) & 1 == 1 { bytes[count / 8] |= 0x80 >> UInt8(count % 8) }
            count += 1
        }
    }
}

/// Reed–Solomon over GF(256) with the QR polynomial x⁸+x⁴+x³+x²+1 (0x11D).
enum ReedSolomon {
    /// exp[i] = α^i, log[α^i] = i.
    static let tables: (exp: [UInt8], log: [Int]) = {
        var exp = [UInt8](repeating: 0, count: 512)
        var log = [Int](repeating: 0, count: 256)
        var value = 1
        for index in 0..<255 {
            exp[index] = UInt8(value)
            log[value] = index
            value <<= 1
            if value & 0x100 != 0 { value ^= 0x11D }
        }
        for index in 255..<512 { exp[index] = exp[index - 255] }
        return (exp, log)
    }()

    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        if a == 0 || b == 0 { return 0 }
        return tables.exp[tables.log[Int(a)] + tables.log[Int(b)]]
    }

    /// The monic generator polynomial ∏(x − α^i), i < degree, highest
    /// coefficient first, without the leading 1.
    static func generator(degree: Int) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: degree)
        result[degree - 1] = 1
        var root: UInt8 = 1
        for _ in 0..<degree {
            for index in 0..<degree {
                result[index] = multiply(result[index], root)
                if index + 1 < degree { result[index] ^= result[index + 1] }
            }
            root = multiply(root, 0x02)
        }
        return result
    }

    /// The error correction codewords: the remainder of data·x^degree divided by the generator.
    static func remainder(_ data: [UInt8], generator: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: generator.count)
        for byte in data {
            let factor = byte ^ result[0]
            result.removeFirst()
            result.append(0)
            for index in 0..<result.count { result[index] ^= multiply(generator[index], factor) }
        }
        return result
    }
}
