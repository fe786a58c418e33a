// swift-tools-version: 6.1
//
// One package: the spec-driven REST layer (`IdentityToolkit`, generated at
// build time by `spec-codegen` through `SpecCodegenPlugin`), its transports,
// the IdentityOTP module, the server side for Hummingbird and Vapor apps, and the
// `mfa` command-line tool. See ARCHITECTURE.md.
//
// What is heavy sits behind a package trait (SE-0450), so an app resolves
// only what it builds: with no trait, the package brings Yams, swift-http-types,
// swift-log and swift-crypto (with swift-asn1). A dependency used only behind
// a disabled trait is neither fetched nor pinned. Each gated module says which
// trait it needs (a `#error` in its TraitRequirement.swift). In this
// repository, build and test with every trait on: `swift test --enable-all-traits`.
import PackageDescription

/// The package's traits: each names what it brings.
enum Trait {
    /// `IdentityToolkitAsyncHTTPClient`: the server transport (AsyncHTTPClient, SwiftNIO).
    static let asyncHTTPClient = "AsyncHTTPClient"
    /// `IdentityToolkitEmulator`: the embedded emulator (Hummingbird, swift-certificates, ServiceLifecycle).
    static let emulator = "Emulator"
    /// `IdentityAdminHummingbird`: the Hummingbird 2 middleware (Hummingbird, hummingbird-auth).
    static let hummingbird = "Hummingbird"
    /// `IdentityAdminVapor`: the Vapor 4 middleware (Vapor).
    static let vapor = "Vapor"
    /// `IdentityStoresPostgres`: the shared stores on PostgreSQL (postgres-nio).
    static let postgreSQL = "PostgreSQL"
    /// Metrics (swift-metrics) and trace spans (swift-distributed-tracing):
    /// two API packages with no dependencies, on by every server trait (each
    /// of their frameworks brings both already); the app bootstraps the backends.
    static let telemetry = "Telemetry"
    /// `Service` conformances (swift-service-lifecycle) for what runs beside
    /// a server: the key refresher, the stores' sweeper, the emulator. On
    /// with the traits whose frameworks bring it already (Hummingbird,
    /// postgres-nio, the emulator's Hummingbird).
    static let serviceLifecycle = "ServiceLifecycle"
    /// Initializers from a swift-configuration `ConfigReader`: IdentityAdmin,
    /// the sealing key ring, the PostgreSQL settings. On with Hummingbird,
    /// AsyncHTTPClient and the emulator, which bring swift-configuration already.
    static let configuration = "Configuration"
    /// The `mfa` and `spec-codegen` command-line tools (swift-argument-parser,
    /// and what `mfa` runs: the emulator, the server transport, PostgreSQL).
    static let tools = "Tools"
}

/// A product that only the given trait brings into an app's graph.
func gated(_ product: String, _ package: String, by trait: String) -> Target.Dependency {
    .product(name: product, package: package, condition: .when(traits: [trait]))
}

let package = Package(
    name: "swift-identity-mfa",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "IdentityToolkit", targets: ["IdentityToolkit"]),
        // A product of its own so that apps which bring their own transport
        // never build AsyncHTTPClient and SwiftNIO.
        .library(name: "IdentityToolkitAsyncHTTPClient", targets: ["IdentityToolkitAsyncHTTPClient"]),
        .library(name: "IdentityOTP", targets: ["IdentityOTP"]),
        // Base32, otpauth:// URIs, QR codes: no swift-crypto (IdentityOTP re-exports it).
        .library(name: "IdentityOTPFormats", targets: ["IdentityOTPFormats"]),
        .library(name: "IdentityToolkitEmulator", targets: ["IdentityToolkitEmulator"]),
        .library(name: "MultiFactorAuth", targets: ["MultiFactorAuth"]),
        .library(name: "IdentityAdmin", targets: ["IdentityAdmin"]),
        // Hummingbird 2 middleware for IdentityAdmin's token checks: a product
        // of its own, so that only apps on Hummingbird build hummingbird-auth.
        .library(name: "IdentityAdminHummingbird", targets: ["IdentityAdminHummingbird"]),
        // State a server keeps between requests: sealed for a cookie, or in
        // an expiring store (swift-crypto and IdentityOTP only).
        .library(name: "IdentityServerState", targets: ["IdentityServerState"]),
        // The expiring key-value store the other stores build on: Foundation
        // only, so MultiFactorAuth keeps sessions in it without swift-crypto,
        // and an app names it to write its own store (Redis, say).
        .library(name: "IdentityKeyValueStore", targets: ["IdentityKeyValueStore"]),
        // The shared stores on PostgreSQL, in a product of their own so that
        // apps which do not use them never build postgres-nio.
        .library(name: "IdentityStoresPostgres", targets: ["IdentityStoresPostgres"]),
        // Underscored: the generator's library is for this package's tools
        // and benchmarks, not a stable API (as swift-openapi-generator's core).
        .library(name: "_SpecCodegen", targets: ["SpecCodegen"]),
        .executable(name: "spec-codegen", targets: ["spec-codegen"]),
        .executable(name: "mfa", targets: ["mfa"]),
        .plugin(name: "SpecCodegenPlugin", targets: ["SpecCodegenPlugin"]),
        .plugin(name: "GenerateCodeFromSpec", targets: ["GenerateCodeFromSpec"]),
        // Vapor 4 middleware for IdentityAdmin's token checks (the `Vapor` trait).
        .library(name: "IdentityAdminVapor", targets: ["IdentityAdminVapor"]),
    ],
    // No default trait: an app names what it uses, and none pulls a server
    // framework by default.
    traits: [
        .trait(
            name: Trait.telemetry,
            description:
                "Metrics (swift-metrics) and trace spans (swift-distributed-tracing) from token checks, TOTP, recovery, stores and REST calls."
        ),
        .trait(
            name: Trait.serviceLifecycle,
            description:
                "Service conformances (swift-service-lifecycle): the signing-key refresher, the PostgreSQL stores' sweeper, the emulator."
        ),
        .trait(
            name: Trait.configuration,
            description:
                "Initializers from a swift-configuration ConfigReader: IdentityAdmin, SealingKeyRing, PostgresConnectionSettings."
        ),
        .trait(
            name: Trait.asyncHTTPClient,
            description: "IdentityToolkitAsyncHTTPClient: the server transport over AsyncHTTPClient and SwiftNIO.",
            enabledTraits: [Trait.telemetry, Trait.configuration]),
        .trait(
            name: Trait.emulator,
            description:
                "IdentityToolkitEmulator: the embedded Auth emulator (Hummingbird, swift-certificates, ServiceLifecycle).",
            enabledTraits: [Trait.telemetry, Trait.serviceLifecycle, Trait.configuration]),
        .trait(
            name: Trait.hummingbird,
            description: "IdentityAdminHummingbird: the Hummingbird 2 middleware (Hummingbird, hummingbird-auth).",
            enabledTraits: [Trait.telemetry, Trait.serviceLifecycle, Trait.configuration]),
        .trait(
            name: Trait.vapor, description: "IdentityAdminVapor: the Vapor 4 middleware (Vapor).",
            enabledTraits: [Trait.telemetry]),
        .trait(
            name: Trait.postgreSQL,
            description: "IdentityStoresPostgres: the shared stores on PostgreSQL (postgres-nio).",
            enabledTraits: [Trait.telemetry, Trait.serviceLifecycle]),
        .trait(
            name: Trait.tools,
            description:
                "The mfa and spec-codegen command-line tools (swift-argument-parser; mfa also needs the emulator, the server transport and PostgreSQL).",
            enabledTraits: [Trait.emulator, Trait.asyncHTTPClient, Trait.postgreSQL]),
        .default(enabledTraits: []),
    ],
    // Floors are the lowest releases the code needs, so that apps are not
    // forced to upgrade: Yams 6.0 (its Swift 6 release: Node.alias and the
    // Sendable duplicate-key error, which a build against 5.0.1 lacks),
    // swift-http-types 1.0 (every type used is in 1.0), swift-log 1.6
    // (Sendable loggers for Swift 6), swift-argument-parser 1.5 (Sendable
    // command configurations; the CLI only). The server-side floors stay at
    // the releases verified here: the emulator uses HTTP1Channel's idle
    // timeout and ServiceGroup's shutdown limits, which came late.
    dependencies: [
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // The `Telemetry` trait: API packages without dependencies (the app
        // picks the backends); the releases verified here.
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        // The `Configuration` trait; none of its own traits (JSON, YAML…):
        // the app picks its providers.
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0", traits: []),
        // The emulator's X.509 form of its signing key (what most ID-token
        // verifiers fetch). The emulator only: about 12 s of a clean debug
        // build; 1.21.1 is the release verified here.
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        // `swift package generate-documentation`: a command plugin, built
        // only when documentation is generated, never in an app's build.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
        // IdentityStoresPostgres only. PostgresClient (the pool) is public
        // since 1.21; 1.33.2 is the release verified here. swift-nio-ssl is
        // already in the graph through async-http-client and postgres-nio;
        // it is named for the TLS settings of a connection URL.
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // IdentityAdminVapor only (the `Vapor` trait). VaporTesting (Swift
        // Testing helpers, used by its tests) first shipped in 4.111.
        .package(url: "https://github.com/vapor/vapor.git", from: "4.111.0"),
    ],
    targets: [
        // MARK: Generator (imports no target of Sources/)
        .target(
            name: "SpecCodegen",
            dependencies: [.product(name: "Yams", package: "Yams")],
            path: "Generator/SpecCodegen"
        ),
        .executableTarget(
            name: "spec-codegen",
            dependencies: [
                "SpecCodegen",
                gated("ArgumentParser", "swift-argument-parser", by: Trait.tools),
            ],
            path: "Generator/spec-codegen"
        ),
        // What the plugins run: `generate` only, without swift-argument-parser,
        // because every app that uses the SDK builds it.
        .executableTarget(
            name: "spec-codegen-plugin-tool",
            dependencies: ["SpecCodegen"],
            path: "Generator/spec-codegen-plugin-tool"
        ),
        .plugin(
            name: "SpecCodegenPlugin",
            capability: .buildTool(),
            dependencies: ["spec-codegen-plugin-tool"],
            path: "Plugins/SpecCodegenPlugin"
        ),
        .plugin(
            name: "GenerateCodeFromSpec",
            capability: .command(
                intent: .custom(
                    verb: "generate-code-from-spec",
                    description: "Write the code generated from Spec/ into a folder for review and API diffs."
                ),
                permissions: [
                    .writeToPackageDirectory(reason: "Writes the generated Swift files into the chosen folder.")
                ]
            ),
            dependencies: ["spec-codegen-plugin-tool"],
            path: "Plugins/GenerateCodeFromSpec"
        ),

        // MARK: Library
        // The package's generic helpers (Locked, SharedFetch, Deadline,
        // LogSafeText, base64url, ExpiringEntries, Telemetry...): not a
        // product, so that no module imports another for a helper. Also the
        // one door to swift-metrics and swift-distributed-tracing
        // (Telemetry.swift): every module that records goes through it.
        .target(
            name: "IdentitySupport",
            dependencies: [
                gated("CoreMetrics", "swift-metrics", by: Trait.telemetry),
                gated("Tracing", "swift-distributed-tracing", by: Trait.telemetry),
            ]
        ),
        .target(
            name: "IdentityToolkit",
            dependencies: [
                "IdentitySupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HTTPTypesFoundation", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["spec-codegen-config.json"],
            plugins: ["SpecCodegenPlugin"]
        ),
        .target(
            name: "IdentityToolkitAsyncHTTPClient",
            dependencies: [
                "IdentityToolkit",
                "IdentitySupport",
                gated("AsyncHTTPClient", "async-http-client", by: Trait.asyncHTTPClient),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                gated("NIOCore", "swift-nio", by: Trait.asyncHTTPClient),
                gated("NIOHTTP1", "swift-nio", by: Trait.asyncHTTPClient),
            ]
        ),
        // The one home of RS256 JWTs (sign and verify over the compact form),
        // for IdentityAdmin and the emulator; not a product, and apart from
        // IdentityToolkit so that client apps never build BoringSSL for it.
        .target(
            name: "IdentityToolkitJWT",
            dependencies: [
                "IdentityToolkit", "IdentitySupport", .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // Base32, otpauth:// URIs and QR codes: formats over the standard
        // library alone, so that client apps build no crypto for them.
        .target(name: "IdentityOTPFormats"),
        .target(
            name: "IdentityOTP",
            // IdentityKeyValueStore: the primitive the shared stores build on.
            dependencies: [
                "IdentityOTPFormats", "IdentityKeyValueStore", "IdentitySupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "IdentityToolkitEmulator",
            dependencies: [
                "IdentityToolkit",
                "IdentityToolkitJWT",
                "IdentityOTP",
                "IdentityOTPFormats",
                "IdentitySupport",
                gated("Hummingbird", "hummingbird", by: Trait.emulator),
                gated("HummingbirdCore", "hummingbird", by: Trait.emulator),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                gated("NIOCore", "swift-nio", by: Trait.emulator),
                gated("ServiceLifecycle", "swift-service-lifecycle", by: Trait.emulator),
                gated("X509", "swift-certificates", by: Trait.emulator),
            ],
            exclude: ["spec-codegen-config.json"],
            plugins: ["SpecCodegenPlugin"]
        ),
        .target(
            name: "MultiFactorAuth",
            dependencies: [
                "IdentityToolkit",
                // Only the formats (Base32, otpauth:// URIs): apps of the
                // client SDK do not build BoringSSL for it.
                "IdentityOTPFormats",
                "IdentitySupport",
                // Sessions in any expiring store (Foundation only).
                "IdentityKeyValueStore",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            exclude: ["spec-codegen-config.json"],
            plugins: ["SpecCodegenPlugin"]
        ),
        .target(
            name: "IdentityAdmin",
            dependencies: [
                "IdentityToolkit",
                "IdentityToolkitJWT",
                // Recovery codes (AccountRecovery); swift-crypto is here already.
                "IdentityOTP",
                // The fleet's shared key sets, sealed (SharedSigningKeys).
                "IdentityServerState",
                "IdentitySupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                gated("ServiceLifecycle", "swift-service-lifecycle", by: Trait.serviceLifecycle),
                gated("Configuration", "swift-configuration", by: Trait.configuration),
            ]
        ),
        .target(
            name: "IdentityAdminHummingbird",
            dependencies: [
                "IdentityAdmin",
                "IdentityOTP",
                "IdentityToolkit",
                gated("Hummingbird", "hummingbird", by: Trait.hummingbird),
                gated("HummingbirdAuth", "hummingbird-auth", by: Trait.hummingbird),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "IdentityAdminVapor",
            dependencies: [
                "IdentityAdmin",
                "IdentityOTP",
                "IdentitySupport",
                "IdentityToolkit",
                gated("Vapor", "vapor", by: Trait.vapor),
            ]
        ),
        .target(name: "IdentityKeyValueStore", dependencies: ["IdentitySupport"]),
        .target(
            name: "IdentityServerState",
            dependencies: [
                "IdentityKeyValueStore", "IdentitySupport", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                gated("Configuration", "swift-configuration", by: Trait.configuration),
            ]
        ),
        .target(
            name: "IdentityStoresPostgres",
            dependencies: [
                // The two primitives only: the security stores are built
                // on them in IdentityOTP, so this product builds no OTP and
                // no swift-crypto.
                "IdentityKeyValueStore", "IdentitySupport",
                gated("PostgresNIO", "postgres-nio", by: Trait.postgreSQL),
                gated("NIOSSL", "swift-nio-ssl", by: Trait.postgreSQL),
                gated("NIOCore", "swift-nio", by: Trait.postgreSQL),
                .product(name: "Logging", package: "swift-log"),
                gated("ServiceLifecycle", "swift-service-lifecycle", by: Trait.serviceLifecycle),
                gated("Configuration", "swift-configuration", by: Trait.configuration),
            ]
        ),
        .executableTarget(
            name: "mfa",
            dependencies: [
                "IdentityOTP",
                "IdentitySupport",
                "IdentityToolkitEmulator",
                "MultiFactorAuth",
                "IdentityAdmin",
                "IdentityToolkit",
                "IdentityToolkitAsyncHTTPClient",
                // `admin users recovery-codes` writes to the app's store.
                "IdentityStoresPostgres",
                gated("PostgresNIO", "postgres-nio", by: Trait.tools),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                gated("ArgumentParser", "swift-argument-parser", by: Trait.tools),
                // `mfa emulator` owns the service group the emulator runs in.
                gated("ServiceLifecycle", "swift-service-lifecycle", by: Trait.tools),
                // Reads the environment through one reader (ToolConfiguration).
                gated("Configuration", "swift-configuration", by: Trait.tools),
            ]
        ),

        // MARK: Fuzzing (not products: apps never build these)
        // One harness per parser of outside input; `fuzz-runner` is the
        // libFuzzer binary (built with -sanitize=fuzzer,address -DFUZZING by
        // .ci/fuzz) and, in a normal build, replays files through them.
        .target(
            name: "FuzzHarnesses",
            dependencies: [
                "IdentityOTP", "IdentityToolkit", "IdentitySupport", "SpecCodegen",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Fuzz/Harnesses"
        ),
        .target(name: "FuzzDriver", path: "Fuzz/Driver"),
        .executableTarget(name: "fuzz-runner", dependencies: ["FuzzHarnesses", "FuzzDriver"], path: "Fuzz/Runner"),

        // MARK: Tests
        // The generator's golden reference output, compiled as a target of its
        // own so that the committed expected code is known to build.
        .target(
            name: "GeneratorGoldenReference",
            dependencies: ["IdentityToolkit", .product(name: "HTTPTypes", package: "swift-http-types")],
            path: "Tests/GeneratorGoldenReference"
        ),
        // Seeded randomness for the tests that draw inputs (one generator, no dependencies).
        .target(name: "SeededRandom", path: "Tests/SeededRandom"),
        // Shared by the test targets: an in-memory transport and a loopback
        // HTTP server. Its SwiftNIO comes with the AsyncHTTPClient trait (the
        // tests run with every trait on), so that apps never pin SwiftNIO for it.
        .target(
            name: "IdentityToolkitTestSupport",
            dependencies: [
                "IdentityToolkit",
                "IdentitySupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                gated("NIOCore", "swift-nio", by: Trait.asyncHTTPClient),
                gated("NIOPosix", "swift-nio", by: Trait.asyncHTTPClient),
                gated("NIOHTTP1", "swift-nio", by: Trait.asyncHTTPClient),
            ],
            path: "Tests/IdentityToolkitTestSupport"
        ),
        .testTarget(
            name: "SpecCodegenTests",
            // The plugin tool and the CLI are dependencies so that `swift test` builds them; tests run them.
            dependencies: [
                "SpecCodegen", "spec-codegen-plugin-tool", "spec-codegen", "GeneratorGoldenReference",
                "IdentityToolkit", "IdentityToolkitTestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            exclude: ["Fixtures"]
        ),
        // The generic helpers: the deadline race, base64url, the bounded expiring entries.
        .testTarget(name: "IdentitySupportTests", dependencies: ["IdentitySupport"]),
        .testTarget(
            name: "IdentityToolkitTests",
            dependencies: [
                "IdentityToolkit",
                "IdentitySupport",
                "IdentityToolkitAsyncHTTPClient",
                "IdentityToolkitTestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Fixtures"]
        ),
        // The emulator's application in process for every suite that needs
        // no socket (HummingbirdTesting's `.router` framework).
        .target(
            name: "EmulatorTestSupport",
            dependencies: [
                "IdentityToolkit", "IdentitySupport", "IdentityToolkitEmulator",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                gated("HummingbirdTesting", "hummingbird", by: Trait.emulator),
                gated("NIOCore", "swift-nio", by: Trait.emulator),
            ],
            path: "Tests/EmulatorTestSupport"
        ),
        .testTarget(
            name: "IdentityToolkitEmulatorTests",
            dependencies: [
                "SeededRandom",
                "IdentityToolkitTestSupport",
                "EmulatorTestSupport",
                "IdentitySupport",
                "IdentityToolkitEmulator",
                "IdentityToolkit",
                "IdentityToolkitAsyncHTTPClient",
                "IdentityOTP",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // The harness: the emulator's application in process, no socket.
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "DocSampleTests",
            dependencies: [
                "MultiFactorAuth", "IdentityToolkitEmulator", "IdentityToolkit", "IdentityToolkitAsyncHTTPClient",
                "IdentityOTP",
                "IdentityToolkitTestSupport", "EmulatorTestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .testTarget(
            name: "MultiFactorAuthTests",
            dependencies: [
                "MultiFactorAuth", "IdentityToolkitEmulator", "IdentityToolkit", "IdentityToolkitAsyncHTTPClient",
                "IdentityOTP", "IdentityAdmin",
                "IdentityToolkitTestSupport", "EmulatorTestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        // A top-level `main.swift` that awaits every async method of
        // MultiFactorAuth and IdentityAdmin, run by IdentityAdminTests (a
        // dependency so that `swift test` builds it).
        .executableTarget(
            name: "TopLevelConsumer",
            dependencies: ["IdentityAdmin", "IdentityToolkit", "MultiFactorAuth", "IdentityOTP"],
            path: "Tests/TopLevelConsumer"
        ),
        // The README's quick-start client, a `main.swift` run by IdentityAdminTests.
        .executableTarget(
            name: "QuickStartClient",
            dependencies: ["MultiFactorAuth", "IdentityToolkit", "IdentityOTP"],
            path: "Tests/QuickStartClient"
        ),
        // The emulator setup and the middleware tokens that IdentityAdmin's
        // tests and the Vapor middleware's share (apps never build it).
        .target(
            name: "AdminTestSupport",
            dependencies: [
                "IdentityAdmin", "IdentityToolkit", "IdentityToolkitEmulator", "IdentityToolkitAsyncHTTPClient",
                "IdentityOTP", "IdentityToolkitTestSupport", "EmulatorTestSupport",
            ],
            path: "Tests/AdminTestSupport"
        ),
        .testTarget(
            name: "IdentityAdminTests",
            dependencies: [
                "IdentityAdmin", "IdentityToolkit", "IdentityToolkitEmulator", "IdentityToolkitAsyncHTTPClient",
                "IdentityOTP", "AdminTestSupport",
                "IdentityToolkitTestSupport", "TopLevelConsumer", "QuickStartClient", "IdentityAdminHummingbird",
                "IdentityToolkitJWT", "IdentitySupport",
                // StepUpClientTests: a MultiFactorAuth client answers a protected route's step-up challenge.
                "MultiFactorAuth",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                // TelemetryTests: a metrics factory and a tracer bound to each test's task.
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Configuration", package: "swift-configuration"),
            ]
        ),
        // The Vapor middleware's tests, and a Vapor app that names our TOTP types.
        .testTarget(
            name: "IdentityAdminVaporTests",
            dependencies: [
                "IdentityAdminVapor", "IdentityAdmin", "IdentityToolkit", "IdentityOTP", "IdentitySupport",
                "AdminTestSupport", "IdentityToolkitTestSupport",
                .product(name: "VaporTesting", package: "vapor"),
            ]
        ),
        .testTarget(
            name: "MFACommandTests",
            // Depends on the executable so that `swift test` builds it; the
            // tests run the binary as a user would.
            dependencies: [
                "mfa", "IdentityOTP", "IdentityToolkit", "IdentityToolkitTestSupport", "IdentityStoresPostgres",
                "IdentityAdmin",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        .testTarget(
            name: "FuzzRegressionTests",
            dependencies: ["FuzzHarnesses"]
        ),
        // The cases every store implementation must pass (in-memory here,
        // PostgreSQL in .ci/run): one suite, several stores.
        .target(
            name: "StoreConformance",
            dependencies: [
                "IdentityOTP", "IdentityServerState", "MultiFactorAuth",
                .product(name: "Configuration", package: "swift-configuration"),
            ],
            path: "Tests/StoreConformance"
        ),
        .testTarget(
            name: "IdentityServerStateTests",
            dependencies: [
                "IdentityServerState", "StoreConformance", "MultiFactorAuth", "IdentityOTP",
                .product(name: "Configuration", package: "swift-configuration"),
            ]
        ),
        // The same shared cases on PostgreSQL, and its failure modes. They
        // run when IDENTITY_TEST_POSTGRES_URL names a server (.ci/run starts
        // one); without it each test says it was skipped.
        .testTarget(
            name: "IdentityStoresPostgresTests",
            dependencies: [
                "IdentityStoresPostgres", "IdentityServerState", "StoreConformance", "MultiFactorAuth", "IdentityOTP",
                "IdentityToolkitTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "IdentityOTPTests",
            dependencies: [
                "IdentityOTP", "IdentityOTPFormats", "SeededRandom", "StoreConformance", "IdentityToolkitTestSupport",
            ],
            exclude: ["Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Every Swift target of ours spells existential types `any P`, as Swift 6
// code should (Hummingbird does the same). The verbatim doc samples are left
// as the docs write them.
for target in package.targets where target.type != .plugin && !["FuzzDriver", "DocSampleTests"].contains(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("ExistentialAny")]
}
// The libraries import internally unless a file says `public import` (as
// Hummingbird's do), so a module re-exports only what its public API uses;
// the generator writes `public import Foundation` where generated public
// declarations use its types.
for target in package.targets
where [
    "IdentitySupport", "IdentityToolkit", "IdentityToolkitJWT", "IdentityToolkitAsyncHTTPClient", "IdentityOTP",
    "IdentityOTPFormats", "MultiFactorAuth", "IdentityAdmin", "IdentityToolkitEmulator", "IdentityKeyValueStore",
    "IdentityServerState", "IdentityStoresPostgres", "SpecCodegen",
].contains(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("InternalImportsByDefault")]
}
