// swift-tools-version: 6.1
//
// Benchmarks live in their own package so that apps depending on
// swift-identity-mfa never build package-benchmark.
//
//   cd Benchmarks && swift package benchmark
import PackageDescription

let package = Package(
    name: "Benchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "swift-identity-mfa", path: "..", traits: ["Emulator", "AsyncHTTPClient", "PostgreSQL"]),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/ordo-one/benchmark.git", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        // The comparison of TokenBenchmarks only (5.8 added the audience check).
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    ],
    targets: [
        .executableTarget(
            name: "GeneratorBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "_SpecCodegen", package: "swift-identity-mfa"),
            ],
            path: "Benchmarks/GeneratorBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // The C floor for one TOTP code: OpenSSL's SHA-1 from precomputed
        // HMAC states (system libcrypto: apt-get install libssl-dev).
        .target(
            name: "OpenSSLFloor",
            path: "Benchmarks/OpenSSLFloor",
            linkerSettings: [.linkedLibrary("crypto")]
        ),
        .executableTarget(
            name: "OTPBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "IdentityOTP", package: "swift-identity-mfa"),
                .product(name: "Crypto", package: "swift-crypto"),
                "OpenSSLFloor",
            ],
            path: "Benchmarks/OTPBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "SDKBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "MultiFactorAuth", package: "swift-identity-mfa"),
                .product(name: "IdentityToolkitEmulator", package: "swift-identity-mfa"),
                .product(name: "IdentityToolkit", package: "swift-identity-mfa"),
                .product(name: "IdentityToolkitAsyncHTTPClient", package: "swift-identity-mfa"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Benchmarks/SDKBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // verifyIDToken beside jwt-kit's verification of the same token and
        // the floor (swift-crypto's and OpenSSL's RS256 check of its input).
        // The tokens both token targets verify, signed as Google signs them.
        .target(
            name: "BenchmarkTokens",
            dependencies: [
                .product(name: "IdentityToolkit", package: "swift-identity-mfa"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            path: "Benchmarks/BenchmarkTokens"
        ),
        .executableTarget(
            name: "TokenBenchmarks",
            dependencies: [
                "OpenSSLFloor",
                "BenchmarkTokens",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "IdentityAdmin", package: "swift-identity-mfa"),
                .product(name: "IdentityToolkit", package: "swift-identity-mfa"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ],
            path: "Benchmarks/TokenBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Not a suite: one verification repeated, for callgrind and perf.
        .executableTarget(
            name: "TokenProfile",
            dependencies: [
                "BenchmarkTokens",
                .product(name: "IdentityAdmin", package: "swift-identity-mfa"),
                .product(name: "IdentityToolkit", package: "swift-identity-mfa"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            path: "Benchmarks/TokenProfile"
        ),
        // Bytes of an idle signed-in Auth + User (glibc's mallinfo2).
        .executableTarget(
            name: "SDKFootprint",
            dependencies: [.product(name: "MultiFactorAuth", package: "swift-identity-mfa")],
            path: "Benchmarks/SDKFootprint"
        ),
        // A load command, not a package-benchmark suite: throughput and
        // latency of complete TOTP sign-ins against the emulator over loopback.
        .executableTarget(
            name: "EmulatorLoad",
            dependencies: [
                .product(name: "IdentityToolkitEmulator", package: "swift-identity-mfa"),
                .product(name: "IdentityToolkit", package: "swift-identity-mfa"),
                .product(name: "IdentityToolkitAsyncHTTPClient", package: "swift-identity-mfa"),
                .product(name: "IdentityOTP", package: "swift-identity-mfa"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            path: "Benchmarks/EmulatorLoad"
        ),
        // A load command: TOTP verifications per second and latency with the
        // in-memory and the PostgreSQL stores, 64 concurrent callers.
        .executableTarget(
            name: "StoreLoad",
            dependencies: [
                .product(name: "IdentityOTP", package: "swift-identity-mfa"),
                .product(name: "IdentityServerState", package: "swift-identity-mfa"),
                .product(name: "IdentityStoresPostgres", package: "swift-identity-mfa"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/StoreLoad"
        ),
    ],
    swiftLanguageModes: [.v6]
)
