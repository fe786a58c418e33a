// swift-tools-version: 6.1
// A Vapor server that protects a route: the Vapor trait.
import PackageDescription

let package = Package(
    name: "VaporApp",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(
            url: Context.environment["IDENTITY_MFA_URL"] ?? "https://github.com/OWNER/swift-identity-mfa.git",
            revision: Context.environment["IDENTITY_MFA_REVISION"] ?? "main", traits: ["Vapor"]),
        .package(url: "https://github.com/vapor/vapor.git", from: "4.111.0"),
    ],
    targets: [
        .executableTarget(
            name: "VaporApp",
            dependencies: [
                .product(name: "IdentityAdmin", package: "swift-identity-mfa"),
                .product(name: "IdentityAdminVapor", package: "swift-identity-mfa"),
                .product(name: "IdentityToolkit", package: "swift-identity-mfa"),
                .product(name: "Vapor", package: "vapor"),
                .product(name: "VaporTesting", package: "vapor"),
            ])
    ],
    swiftLanguageModes: [.v6]
)
