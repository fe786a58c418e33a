// swift-tools-version: 6.1
//
// A web app that signs users in with a password and a TOTP second factor,
// using the SDK from the repository root. A package of its own, so that apps
// depending on the SDK never build it.
import PackageDescription

let package = Package(
    name: "TOTPLogin",
    platforms: [.macOS(.v14)],
    dependencies: [
        // The traits of the products it uses: the middleware, the server
        // transport, the fleet's stores and the embedded emulator.
        .package(
            name: "swift-identity-mfa", path: "../..",
            traits: ["Hummingbird", "AsyncHTTPClient", "PostgreSQL", "Emulator"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        // The metrics backend the example picks (the SDK records through
        // swift-metrics' API): Prometheus text at --metrics-port's /metrics.
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // Or, with the standard OTEL_* variables set, traces and metrics over
        // OTLP/HTTP (swift-otel; the SDK itself stays on the API packages).
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // Its settings: options, environment and a JSON file through one reader.
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.8.1"),
    ],
    targets: [
        // The pages, the browser sessions and the sign-in flow: a library so
        // that the tests drive the same router the executable serves.
        .target(
            name: "TOTPLoginApp",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "MultiFactorAuth", package: "swift-identity-mfa"),
                .product(name: "IdentityAdmin", package: "swift-identity-mfa"),
                .product(name: "IdentityAdminHummingbird", package: "swift-identity-mfa"),
                .product(name: "IdentityToolkitAsyncHTTPClient", package: "swift-identity-mfa"),
                .product(name: "IdentityOTP", package: "swift-identity-mfa"),
                .product(name: "IdentityOTPFormats", package: "swift-identity-mfa"),
                .product(name: "IdentityServerState", package: "swift-identity-mfa"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "TOTPLogin",
            dependencies: [
                "TOTPLoginApp",
                .product(name: "IdentityToolkitEmulator", package: "swift-identity-mfa"),
                .product(name: "IdentityStoresPostgres", package: "swift-identity-mfa"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // Not part of the app: the server that wrk loads for Benchmarks/README.md
        // (routes with and without FirebaseAuthenticator), here to share this build.
        .executableTarget(
            name: "RouteLoadServer",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "IdentityAdmin", package: "swift-identity-mfa"),
                .product(name: "IdentityAdminHummingbird", package: "swift-identity-mfa"),
                .product(name: "IdentityToolkit", package: "swift-identity-mfa"),
                .product(name: "IdentityToolkitAsyncHTTPClient", package: "swift-identity-mfa"),
                .product(name: "IdentityToolkitEmulator", package: "swift-identity-mfa"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "TOTPLoginAppTests",
            dependencies: [
                "TOTPLoginApp",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "IdentityToolkitAsyncHTTPClient", package: "swift-identity-mfa"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "IdentityToolkitEmulator", package: "swift-identity-mfa"),
                .product(name: "IdentityOTP", package: "swift-identity-mfa"),
                .product(name: "IdentityServerState", package: "swift-identity-mfa"),
                .product(name: "IdentityStoresPostgres", package: "swift-identity-mfa"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
