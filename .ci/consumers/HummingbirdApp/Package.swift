// swift-tools-version: 6.1
// A Hummingbird server that protects a route: the Hummingbird trait.
import PackageDescription

let package = Package(
    name: "HummingbirdApp",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(
            url: Context.environment["IDENTITY_MFA_URL"] ?? "https://github.com/OWNER/swift-identity-mfa.git",
            revision: Context.environment["IDENTITY_MFA_REVISION"] ?? "main", traits: ["Hummingbird"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
    ],
    targets: [
        .executableTarget(
            name: "HummingbirdApp",
            dependencies: [
                .product(name: "IdentityAdmin", package: "swift-identity-mfa"),
                .product(name: "IdentityAdminHummingbird", package: "swift-identity-mfa"),
                .product(name: "IdentityToolkit", package: "swift-identity-mfa"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ])
    ],
    swiftLanguageModes: [.v6]
)
