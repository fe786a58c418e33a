// IdentityAdminVapor builds on dependencies that only the package trait "Vapor" brings
// (see Package.swift), so that apps which do not use it never fetch them.
#if !Vapor
#error("IdentityAdminVapor needs the package trait \"Vapor\": add traits: [\"Vapor\"] to the .package line of swift-identity-mfa (in this repository, build with --enable-all-traits)")
#endif
