import Crypto

/// HMAC with the inner and outer key states computed once.
///
/// For an 8-byte message (an HOTP counter) and SHA-1, the inner hash is one
/// compression from the inner state and the outer hash one compression from
/// the outer state; ``SHA1Compression`` does exactly that without allocating.
/// SHA-256 and SHA-512 go through swift-crypto's hashers from copied states.
struct PrecomputedHMAC: Sendable {
    private enum States: Sendable {
        case sha1(inner: SHA1Compression.State, outer: SHA1Compression.State)
        case sha256(inner: SHA256, outer: SHA256)
        case sha512(inner: SHA512, outer: SHA512)
    }

    private let states: States

    init(key: [UInt8], algorithm: HashAlgorithm) {
        var block = key
        if block.count > algorithm.blockSize {
            switch algorithm {
            case .sha1: block = Array(Insecure.SHA1.hash(data: key))
            case .sha256: block = Array(SHA256.hash(data: key))
            case .sha512: block = Array(SHA512.hash(data: key))
            }
        }
        block += [UInt8](repeating: 0, count: algorithm.blockSize - block.count)
        let innerPad = block.map { $0 ^ 0x36 }
        let outerPad = block.map { $0 ^ 0x5c }
        switch algorithm {
        case .sha1:
            states = .sha1(inner: SHA1Compression.state(afterBlock: innerPad), outer: SHA1Compression.state(afterBlock: outerPad))
        case .sha256:
            var inner = SHA256()
            inner.update(data: innerPad)
            var outer = SHA256()
            outer.update(data: outerPad)
            states = .sha256(inner: inner, outer: outer)
        case .sha512:
            var inner = SHA512()
            inner.update(data: innerPad)
            var outer = SHA512()
            outer.update(data: outerPad)
            states = .sha512(inner: inner, outer: outer)
        }
    }

    /// RFC 4226 dynamic truncation of HMAC(key, counter as 8 bytes big-endian).
    func truncated(counter: UInt64) -> UInt32 {
        switch states {
        case .sha1(let inner, let outer):
            return SHA1Compression.hmacTruncated(inner: inner, outer: outer, counter: counter)
        case .sha256(let inner, let outer):
            return Self.truncated(inner: inner, outer: outer, counter: counter)
        case .sha512(let inner, let outer):
            return Self.truncated(inner: inner, outer: outer, counter: counter)
        }
    }

    /// The full MAC of a counter (for tests against swift-crypto's HMAC).
    func mac(counter: UInt64) -> [UInt8] {
        switch states {
        case .sha1(let inner, let outer):
            return SHA1Compression.hmac(inner: inner, outer: outer, counter: counter)
        case .sha256(let inner, let outer):
            return Self.mac(inner: inner, outer: outer, counter: counter)
        case .sha512(let inner, let outer):
            return Self.mac(inner: inner, outer: outer, counter: counter)
        }
    }

    private static func mac<H: HashFunction>(inner: H, outer: H, counter: UInt64) -> [UInt8] {
        var inner = inner
        withUnsafeBytes(of: counter.bigEndian) { inner.update(bufferPointer: $0) }
        var outer = outer
        inner.finalize().withUnsafeBytes { outer.update(bufferPointer: $0) }
        return Array(outer.finalize())
    }

    private static func truncated<H: HashFunction>(inner: H, outer: H, counter: UInt64) -> UInt32 {
        var inner = inner
        withUnsafeBytes(of: counter.bigEndian) { inner.update(bufferPointer: $0) }
        var outer = outer
        inner.finalize().withUnsafeBytes { outer.update(bufferPointer: $0) }
        return outer.finalize().withUnsafeBytes { truncate($0) }
    }

    /// Dynamic truncation: offset from the low nibble of the last byte.
    static func truncate(_ mac: UnsafeRawBufferPointer) -> UInt32 {
        let offset = Int(mac[mac.count - 1] & 0x0f)
        return (UInt32(mac[offset] & 0x7f) << 24) | (UInt32(mac[offset + 1]) << 16)
            | (UInt32(mac[offset + 2]) << 8) | UInt32(mac[offset + 3])
    }
}
