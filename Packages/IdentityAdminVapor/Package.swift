// swift-tools-version: 6.1
//
// Vapor 4 middleware for IdentityAdmin's token checks. A package of its own
// under the repository (as Examples/TOTPLogin is), so that the root
// package's users never resolve Vapor; add it by path.
import PackageDescription

let package = Package(
    name: "IdentityAdminVapor",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "IdentityAdminVapor", targets: ["IdentityAdminVapor"]),
    ],
    dependencies: [
        .package(name: "swift-identity-mfa", path: "../.."),
        // VaporTesting (Swift Testing helpers, used by the tests) first shipped in 4.111.
        .package(url: "https://github.com/vapor/vapor.git", from: "4.111.0"),
    ],
    targets: [
        .target(
            name: "IdentityAdminVapor",
            dependencies: [
                .product(name: "IdentityAdmin", package: "swift-identity-mfa"),
                .product(name: "Vapor", package: "vapor"),
            ]
        ),
        .testTarget(
            name: "IdentityAdminVaporTests",
            dependencies: [
                "IdentityAdminVapor",
                .product(name: "VaporTesting", package: "vapor"),
                .product(name: "IdentityToolkit", package: "swift-identity-mfa"),
                .product(name: "IdentityToolkitEmulator", package: "swift-identity-mfa"),
                .product(name: "IdentityToolkitAsyncHTTPClient", package: "swift-identity-mfa"),
                .product(name: "OTP", package: "swift-identity-mfa"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
