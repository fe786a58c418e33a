import Crypto

/// HMAC (RFC 2104) with the inner and outer key states computed once: the
/// padded key blocks are hashed at initialisation, and each MAC copies the
/// two swift-crypto hasher states and feeds them the message and the inner
/// digest. Every hash is swift-crypto's (BoringSSL); nothing here computes
/// one. Cross-checked against `HMAC<H>` in `IdentityOTPTests.HashCrossCheckTests`.
struct PrecomputedHMAC: Sendable {
    private enum States: Sendable {
        case sha1(inner: Insecure.SHA1, outer: Insecure.SHA1)
        case sha256(inner: SHA256, outer: SHA256)
        case sha512(inner: SHA512, outer: SHA512)
    }

    private let states: States

    init(key: [UInt8], algorithm: HashAlgorithm) {
        switch algorithm {
        case .sha1:
            let (inner, outer) = Self.keyedStates(Insecure.SHA1.self, key: key, blockSize: algorithm.blockSize)
            states = .sha1(inner: inner, outer: outer)
        case .sha256:
            let (inner, outer) = Self.keyedStates(SHA256.self, key: key, blockSize: algorithm.blockSize)
            states = .sha256(inner: inner, outer: outer)
        case .sha512:
            let (inner, outer) = Self.keyedStates(SHA512.self, key: key, blockSize: algorithm.blockSize)
            states = .sha512(inner: inner, outer: outer)
        }
    }

    /// The hashers after the inner (`key ⊕ 0x36…`) and outer (`key ⊕ 0x5c…`)
    /// blocks, a key longer than a block hashed first (RFC 2104 §2).
    private static func keyedStates<H: HashFunction>(_: H.Type, key: [UInt8], blockSize: Int) -> (inner: H, outer: H) {
        var block = key.count > blockSize ? Array(H.hash(data: key)) : key
        block += [UInt8](repeating: 0, count: blockSize - block.count)
        var inner = H()
        inner.update(data: block.map { $0 ^ 0x36 })
        var outer = H()
        outer.update(data: block.map { $0 ^ 0x5c })
        return (inner, outer)
    }

    /// RFC 4226 dynamic truncation of HMAC(key, counter as 8 bytes big-endian).
    func truncated(counter: UInt64) -> UInt32 {
        switch states {
        case .sha1(let inner, let outer): return Self.truncated(inner: inner, outer: outer, counter: counter)
        case .sha256(let inner, let outer): return Self.truncated(inner: inner, outer: outer, counter: counter)
        case .sha512(let inner, let outer): return Self.truncated(inner: inner, outer: outer, counter: counter)
        }
    }

    /// The full MAC of a counter (for tests against swift-crypto's HMAC).
    func mac(counter: UInt64) -> [UInt8] {
        switch states {
        case .sha1(let inner, let outer): return Self.mac(inner: inner, outer: outer, counter: counter)
        case .sha256(let inner, let outer): return Self.mac(inner: inner, outer: outer, counter: counter)
        case .sha512(let inner, let outer): return Self.mac(inner: inner, outer: outer, counter: counter)
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
