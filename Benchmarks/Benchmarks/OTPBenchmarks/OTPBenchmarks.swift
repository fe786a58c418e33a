import Benchmark
import OTP

/// Targets (release, this 2-core machine): one 6-digit SHA-1 code ≤ 250 ns;
/// verification with window 5 (11 codes) ≤ 2.5 µs. Each benchmark runs its
/// body 1,000 times per iteration, so the reported time is per 1,000 calls.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        timeUnits: .nanoseconds,
        maxDuration: .seconds(3)
    )
    let key = Array("12345678901234567890".utf8)
    let sha1 = try! TOTP(key: key)
    let sha256 = try! TOTP(key: Array("12345678901234567890123456789012".utf8), algorithm: .sha256)
    let now: Int64 = 1_700_000_000

    Benchmark("TOTP code SHA-1 6 digits (×1000)") { benchmark in
        for _ in benchmark.scaledIterations {
            for offset in 0..<1_000 {
                blackHole(try sha1.code(at: now &+ Int64(offset) &* 30))
            }
        }
    }

    Benchmark("TOTP code SHA-256 6 digits (×1000)") { benchmark in
        for _ in benchmark.scaledIterations {
            for offset in 0..<1_000 {
                blackHole(try sha256.code(at: now &+ Int64(offset) &* 30))
            }
        }
    }

    Benchmark("TOTP verify window 5, 11 codes (×1000)") { benchmark in
        let code = try sha1.code(at: now)
        for _ in benchmark.scaledIterations {
            for _ in 0..<1_000 {
                blackHole(try sha1.matchingStep(for: code, at: now, window: 5))
            }
        }
    }

    Benchmark("TOTP generator setup (key schedule) (×1000)") { benchmark in
        for _ in benchmark.scaledIterations {
            for _ in 0..<1_000 {
                blackHole(try TOTP(key: key))
            }
        }
    }

    let uri = OTPAuthURI(issuer: "ACME Co", account: "ada@example.com", secret: key).string
    Benchmark("otpauth URI parse (×1000)") { benchmark in
        for _ in benchmark.scaledIterations {
            for _ in 0..<1_000 {
                blackHole(try OTPAuthURI(parsing: uri))
            }
        }
    }

    Benchmark("QR code of an enrollment URI, encode + PNG") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try QRCode(text: uri).png(scale: 8))
        }
    }
}
