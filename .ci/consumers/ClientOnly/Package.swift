// swift-tools-version: 6.1
// An app that signs users in: MultiFactorAuth alone, no trait.
import PackageDescription

let package = Package(
    name: "ClientOnly",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(
            url: Context.environment["IDENTITY_MFA_URL"] ?? "https://github.com/OWNER/swift-identity-mfa.git",
            revision: Context.environment["IDENTITY_MFA_REVISION"] ?? "main")
    ],
    targets: [
        .executableTarget(
            name: "ClientOnly", dependencies: [.product(name: "MultiFactorAuth", package: "swift-identity-mfa")])
    ],
    swiftLanguageModes: [.v6]
)
