// IdentityAdminHummingbird builds on dependencies that only the package trait "Hummingbird" brings
// (see Package.swift), so that apps which do not use it never fetch them.
#if !Hummingbird
#error("IdentityAdminHummingbird needs the package trait \"Hummingbird\": add traits: [\"Hummingbird\"] to the .package line of swift-identity-mfa (in this repository, build with --enable-all-traits)")
#endif
