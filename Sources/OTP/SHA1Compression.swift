/// The SHA-1 compression function (FIPS 180-4 §6.1.2), used only for HMAC of
/// an 8-byte counter from precomputed padded-key states: two compressions per
/// code, no allocation.
///
/// Measured need (see Benchmarks/): swift-crypto hashers copied from a
/// precomputed state allocate a new context per copy. Tested against
/// swift-crypto's `HMAC<Insecure.SHA1>` on 100,000+ random keys and counters
/// (OTPTests.HashCrossCheckTests).
enum SHA1Compression {
    /// The five chaining words.
    struct State: Sendable, Hashable {
        var h0: UInt32 = 0x6745_2301
        var h1: UInt32 = 0xEFCD_AB89
        var h2: UInt32 = 0x98BA_DCFE
        var h3: UInt32 = 0x1032_5476
        var h4: UInt32 = 0xC3D2_E1F0

        @inline(__always)
        func word(_ index: Int) -> UInt32 {
            switch index {
            case 0: return h0
            case 1: return h1
            case 2: return h2
            case 3: return h3
            default: return h4
            }
        }
    }

    /// The state after compressing one 64-byte block from the initial state.
    static func state(afterBlock block: [UInt8]) -> State {
        precondition(block.count == 64, "SHA-1 blocks are 64 bytes")
        var words = [UInt32](repeating: 0, count: 16)
        for index in 0..<16 {
            words[index] = UInt32(block[4 * index]) << 24 | UInt32(block[4 * index + 1]) << 16
                | UInt32(block[4 * index + 2]) << 8 | UInt32(block[4 * index + 3])
        }
        var state = State()
        compress(&state, words[0], words[1], words[2], words[3], words[4], words[5], words[6], words[7], words[8],
                 words[9], words[10], words[11], words[12], words[13], words[14], words[15])
        return state
    }

    /// HMAC-SHA1 of `counter` (8 bytes, big-endian), truncated per RFC 4226.
    @inline(__always)
    static func hmacTruncated(inner: State, outer: State, counter: UInt64) -> UInt32 {
        let digest = hmacDigest(inner: inner, outer: outer, counter: counter)
        // The offset comes from the low nibble of the last digest byte; the
        // four bytes from it straddle at most two big-endian words.
        let offset = Int(digest.h4 & 0x0f)
        let first = digest.word(offset >> 2)
        let shift = UInt32(offset & 3) * 8
        let value = shift == 0 ? first : (first << shift) | (digest.word((offset >> 2) + 1) >> (32 - shift))
        return value & 0x7fff_ffff
    }

    /// The 20-byte HMAC-SHA1 of `counter` (for tests).
    static func hmac(inner: State, outer: State, counter: UInt64) -> [UInt8] {
        let digest = hmacDigest(inner: inner, outer: outer, counter: counter)
        return [digest.h0, digest.h1, digest.h2, digest.h3, digest.h4].flatMap { word in
            [UInt8(word >> 24), UInt8(truncatingIfNeeded: word >> 16), UInt8(truncatingIfNeeded: word >> 8), UInt8(truncatingIfNeeded: word)]
        }
    }

    @inline(__always)
    private static func hmacDigest(inner: State, outer: State, counter: UInt64) -> State {
        // Inner: the 64-byte padded key, then the counter; 72 bytes = 576 bits.
        var innerState = inner
        compress(&innerState, UInt32(truncatingIfNeeded: counter >> 32), UInt32(truncatingIfNeeded: counter), 0x8000_0000,
                 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 576)
        // Outer: the 64-byte padded key, then the 20-byte inner digest; 84 bytes = 672 bits.
        var outerState = outer
        compress(&outerState, innerState.h0, innerState.h1, innerState.h2, innerState.h3, innerState.h4, 0x8000_0000,
                 0, 0, 0, 0, 0, 0, 0, 0, 0, 672)
        return outerState
    }

    @inline(__always)
    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value << count) | (value >> (32 &- count))
    }

    /// One compression of a 16-word block into `state`, fully unrolled over
    /// local variables (a 16-word rolling schedule) so that nothing is boxed
    /// or allocated; measured in Benchmarks/OTPBenchmarks.
    @inline(__always)
    private static func compress(_ state: inout State, _ m0: UInt32, _ m1: UInt32, _ m2: UInt32, _ m3: UInt32, _ m4: UInt32, _ m5: UInt32, _ m6: UInt32, _ m7: UInt32, _ m8: UInt32, _ m9: UInt32, _ m10: UInt32, _ m11: UInt32, _ m12: UInt32, _ m13: UInt32, _ m14: UInt32, _ m15: UInt32) {
        var w0 = m0
        var w1 = m1
        var w2 = m2
        var w3 = m3
        var w4 = m4
        var w5 = m5
        var w6 = m6
        var w7 = m7
        var w8 = m8
        var w9 = m9
        var w10 = m10
        var w11 = m11
        var w12 = m12
        var w13 = m13
        var w14 = m14
        var w15 = m15
        var a = state.h0, b = state.h1, c = state.h2, d = state.h3, e = state.h4
        var f: UInt32 = 0
        f = (b & c) | (~b & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x5A82_7999 &+ w0, a, rotate(b, 30), c, d)
        f = (b & c) | (~b & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x5A82_7999 &+ w1, a, rotate(b, 30), c, d)
        f = (b & c) | (~b & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x5A82_7999 &+ w2, a, rotate(b, 30), c, d)
        f = (b & c) | (~b & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x5A82_7999 &+ w3, a, rotate(b, 30), c, d)
        f = (b & c) | (~b & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x5A82_7999 &+ w4, a, rotate(b, 30), c, d)
        f = (b & c) | (~b & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x5A82_7999 &+ w5, a, rotate(b, 30), c, d)
        f = (b & c) | (~b & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x5A82_7999 &+ w6, a, rotate(b, 30), c, d)
        f = (b & c) | (~b & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x5A82_7999 &+ w7, a, rotate(b, 30), c, d)
        f = (b & c) | (~b & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x5A82_7999 &+ w8, a, rotate(b, 30), c, d)
        f = (b & c) | (~b & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x5A82_7999 &+ w9, a, rotate(b, 30), c, d)
        f = (b & c) | (~b & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x5A82_7999 &+ w10, a, rotate(b, 30), c, d)
        f = (b & c) | (~b & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x5A82_7999 &+ w11, a, rotate(b, 30), c, d)
        f = (b & c) | (~b & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x5A82_7999 &+ w12, a, rotate(b, 30), c, d)
        f = (b & c) | (~b & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x5A82_7999 &+ w13, a, rotate(b, 30), c, d)
        f = (b & c) | (~b & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x5A82_7999 &+ w14, a, rotate(b, 30), c, d)
        f = (b & c) | (~b & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x5A82_7999 &+ w15, a, rotate(b, 30), c, d)
        w0 = rotate(w13 ^ w8 ^ w2 ^ w0, 1)
        f = (b & c) | (~b & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x5A82_7999 &+ w0, a, rotate(b, 30), c, d)
        w1 = rotate(w14 ^ w9 ^ w3 ^ w1, 1)
        f = (b & c) | (~b & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x5A82_7999 &+ w1, a, rotate(b, 30), c, d)
        w2 = rotate(w15 ^ w10 ^ w4 ^ w2, 1)
        f = (b & c) | (~b & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x5A82_7999 &+ w2, a, rotate(b, 30), c, d)
        w3 = rotate(w0 ^ w11 ^ w5 ^ w3, 1)
        f = (b & c) | (~b & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x5A82_7999 &+ w3, a, rotate(b, 30), c, d)
        w4 = rotate(w1 ^ w12 ^ w6 ^ w4, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x6ED9_EBA1 &+ w4, a, rotate(b, 30), c, d)
        w5 = rotate(w2 ^ w13 ^ w7 ^ w5, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x6ED9_EBA1 &+ w5, a, rotate(b, 30), c, d)
        w6 = rotate(w3 ^ w14 ^ w8 ^ w6, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x6ED9_EBA1 &+ w6, a, rotate(b, 30), c, d)
        w7 = rotate(w4 ^ w15 ^ w9 ^ w7, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x6ED9_EBA1 &+ w7, a, rotate(b, 30), c, d)
        w8 = rotate(w5 ^ w0 ^ w10 ^ w8, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x6ED9_EBA1 &+ w8, a, rotate(b, 30), c, d)
        w9 = rotate(w6 ^ w1 ^ w11 ^ w9, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x6ED9_EBA1 &+ w9, a, rotate(b, 30), c, d)
        w10 = rotate(w7 ^ w2 ^ w12 ^ w10, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x6ED9_EBA1 &+ w10, a, rotate(b, 30), c, d)
        w11 = rotate(w8 ^ w3 ^ w13 ^ w11, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x6ED9_EBA1 &+ w11, a, rotate(b, 30), c, d)
        w12 = rotate(w9 ^ w4 ^ w14 ^ w12, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x6ED9_EBA1 &+ w12, a, rotate(b, 30), c, d)
        w13 = rotate(w10 ^ w5 ^ w15 ^ w13, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x6ED9_EBA1 &+ w13, a, rotate(b, 30), c, d)
        w14 = rotate(w11 ^ w6 ^ w0 ^ w14, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x6ED9_EBA1 &+ w14, a, rotate(b, 30), c, d)
        w15 = rotate(w12 ^ w7 ^ w1 ^ w15, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x6ED9_EBA1 &+ w15, a, rotate(b, 30), c, d)
        w0 = rotate(w13 ^ w8 ^ w2 ^ w0, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x6ED9_EBA1 &+ w0, a, rotate(b, 30), c, d)
        w1 = rotate(w14 ^ w9 ^ w3 ^ w1, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x6ED9_EBA1 &+ w1, a, rotate(b, 30), c, d)
        w2 = rotate(w15 ^ w10 ^ w4 ^ w2, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x6ED9_EBA1 &+ w2, a, rotate(b, 30), c, d)
        w3 = rotate(w0 ^ w11 ^ w5 ^ w3, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x6ED9_EBA1 &+ w3, a, rotate(b, 30), c, d)
        w4 = rotate(w1 ^ w12 ^ w6 ^ w4, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x6ED9_EBA1 &+ w4, a, rotate(b, 30), c, d)
        w5 = rotate(w2 ^ w13 ^ w7 ^ w5, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x6ED9_EBA1 &+ w5, a, rotate(b, 30), c, d)
        w6 = rotate(w3 ^ w14 ^ w8 ^ w6, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x6ED9_EBA1 &+ w6, a, rotate(b, 30), c, d)
        w7 = rotate(w4 ^ w15 ^ w9 ^ w7, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x6ED9_EBA1 &+ w7, a, rotate(b, 30), c, d)
        w8 = rotate(w5 ^ w0 ^ w10 ^ w8, 1)
        f = (b & c) | (b & d) | (c & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x8F1B_BCDC &+ w8, a, rotate(b, 30), c, d)
        w9 = rotate(w6 ^ w1 ^ w11 ^ w9, 1)
        f = (b & c) | (b & d) | (c & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x8F1B_BCDC &+ w9, a, rotate(b, 30), c, d)
        w10 = rotate(w7 ^ w2 ^ w12 ^ w10, 1)
        f = (b & c) | (b & d) | (c & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x8F1B_BCDC &+ w10, a, rotate(b, 30), c, d)
        w11 = rotate(w8 ^ w3 ^ w13 ^ w11, 1)
        f = (b & c) | (b & d) | (c & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x8F1B_BCDC &+ w11, a, rotate(b, 30), c, d)
        w12 = rotate(w9 ^ w4 ^ w14 ^ w12, 1)
        f = (b & c) | (b & d) | (c & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x8F1B_BCDC &+ w12, a, rotate(b, 30), c, d)
        w13 = rotate(w10 ^ w5 ^ w15 ^ w13, 1)
        f = (b & c) | (b & d) | (c & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x8F1B_BCDC &+ w13, a, rotate(b, 30), c, d)
        w14 = rotate(w11 ^ w6 ^ w0 ^ w14, 1)
        f = (b & c) | (b & d) | (c & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x8F1B_BCDC &+ w14, a, rotate(b, 30), c, d)
        w15 = rotate(w12 ^ w7 ^ w1 ^ w15, 1)
        f = (b & c) | (b & d) | (c & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x8F1B_BCDC &+ w15, a, rotate(b, 30), c, d)
        w0 = rotate(w13 ^ w8 ^ w2 ^ w0, 1)
        f = (b & c) | (b & d) | (c & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x8F1B_BCDC &+ w0, a, rotate(b, 30), c, d)
        w1 = rotate(w14 ^ w9 ^ w3 ^ w1, 1)
        f = (b & c) | (b & d) | (c & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x8F1B_BCDC &+ w1, a, rotate(b, 30), c, d)
        w2 = rotate(w15 ^ w10 ^ w4 ^ w2, 1)
        f = (b & c) | (b & d) | (c & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x8F1B_BCDC &+ w2, a, rotate(b, 30), c, d)
        w3 = rotate(w0 ^ w11 ^ w5 ^ w3, 1)
        f = (b & c) | (b & d) | (c & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x8F1B_BCDC &+ w3, a, rotate(b, 30), c, d)
        w4 = rotate(w1 ^ w12 ^ w6 ^ w4, 1)
        f = (b & c) | (b & d) | (c & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x8F1B_BCDC &+ w4, a, rotate(b, 30), c, d)
        w5 = rotate(w2 ^ w13 ^ w7 ^ w5, 1)
        f = (b & c) | (b & d) | (c & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x8F1B_BCDC &+ w5, a, rotate(b, 30), c, d)
        w6 = rotate(w3 ^ w14 ^ w8 ^ w6, 1)
        f = (b & c) | (b & d) | (c & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x8F1B_BCDC &+ w6, a, rotate(b, 30), c, d)
        w7 = rotate(w4 ^ w15 ^ w9 ^ w7, 1)
        f = (b & c) | (b & d) | (c & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x8F1B_BCDC &+ w7, a, rotate(b, 30), c, d)
        w8 = rotate(w5 ^ w0 ^ w10 ^ w8, 1)
        f = (b & c) | (b & d) | (c & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x8F1B_BCDC &+ w8, a, rotate(b, 30), c, d)
        w9 = rotate(w6 ^ w1 ^ w11 ^ w9, 1)
        f = (b & c) | (b & d) | (c & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x8F1B_BCDC &+ w9, a, rotate(b, 30), c, d)
        w10 = rotate(w7 ^ w2 ^ w12 ^ w10, 1)
        f = (b & c) | (b & d) | (c & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x8F1B_BCDC &+ w10, a, rotate(b, 30), c, d)
        w11 = rotate(w8 ^ w3 ^ w13 ^ w11, 1)
        f = (b & c) | (b & d) | (c & d)
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0x8F1B_BCDC &+ w11, a, rotate(b, 30), c, d)
        w12 = rotate(w9 ^ w4 ^ w14 ^ w12, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0xCA62_C1D6 &+ w12, a, rotate(b, 30), c, d)
        w13 = rotate(w10 ^ w5 ^ w15 ^ w13, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0xCA62_C1D6 &+ w13, a, rotate(b, 30), c, d)
        w14 = rotate(w11 ^ w6 ^ w0 ^ w14, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0xCA62_C1D6 &+ w14, a, rotate(b, 30), c, d)
        w15 = rotate(w12 ^ w7 ^ w1 ^ w15, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0xCA62_C1D6 &+ w15, a, rotate(b, 30), c, d)
        w0 = rotate(w13 ^ w8 ^ w2 ^ w0, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0xCA62_C1D6 &+ w0, a, rotate(b, 30), c, d)
        w1 = rotate(w14 ^ w9 ^ w3 ^ w1, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0xCA62_C1D6 &+ w1, a, rotate(b, 30), c, d)
        w2 = rotate(w15 ^ w10 ^ w4 ^ w2, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0xCA62_C1D6 &+ w2, a, rotate(b, 30), c, d)
        w3 = rotate(w0 ^ w11 ^ w5 ^ w3, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0xCA62_C1D6 &+ w3, a, rotate(b, 30), c, d)
        w4 = rotate(w1 ^ w12 ^ w6 ^ w4, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0xCA62_C1D6 &+ w4, a, rotate(b, 30), c, d)
        w5 = rotate(w2 ^ w13 ^ w7 ^ w5, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0xCA62_C1D6 &+ w5, a, rotate(b, 30), c, d)
        w6 = rotate(w3 ^ w14 ^ w8 ^ w6, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0xCA62_C1D6 &+ w6, a, rotate(b, 30), c, d)
        w7 = rotate(w4 ^ w15 ^ w9 ^ w7, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0xCA62_C1D6 &+ w7, a, rotate(b, 30), c, d)
        w8 = rotate(w5 ^ w0 ^ w10 ^ w8, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0xCA62_C1D6 &+ w8, a, rotate(b, 30), c, d)
        w9 = rotate(w6 ^ w1 ^ w11 ^ w9, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0xCA62_C1D6 &+ w9, a, rotate(b, 30), c, d)
        w10 = rotate(w7 ^ w2 ^ w12 ^ w10, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0xCA62_C1D6 &+ w10, a, rotate(b, 30), c, d)
        w11 = rotate(w8 ^ w3 ^ w13 ^ w11, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0xCA62_C1D6 &+ w11, a, rotate(b, 30), c, d)
        w12 = rotate(w9 ^ w4 ^ w14 ^ w12, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0xCA62_C1D6 &+ w12, a, rotate(b, 30), c, d)
        w13 = rotate(w10 ^ w5 ^ w15 ^ w13, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0xCA62_C1D6 &+ w13, a, rotate(b, 30), c, d)
        w14 = rotate(w11 ^ w6 ^ w0 ^ w14, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0xCA62_C1D6 &+ w14, a, rotate(b, 30), c, d)
        w15 = rotate(w12 ^ w7 ^ w1 ^ w15, 1)
        f = b ^ c ^ d
        (a, b, c, d, e) = (rotate(a, 5) &+ f &+ e &+ 0xCA62_C1D6 &+ w15, a, rotate(b, 30), c, d)
        state.h0 = state.h0 &+ a
        state.h1 = state.h1 &+ b
        state.h2 = state.h2 &+ c
        state.h3 = state.h3 &+ d
        state.h4 = state.h4 &+ e
    }
}
