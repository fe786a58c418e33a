// IdentityStoresPostgres builds on dependencies that only the package trait "PostgreSQL" brings
// (see Package.swift), so that apps which do not use it never fetch them.
#if !PostgreSQL
#error("IdentityStoresPostgres needs the package trait \"PostgreSQL\": add traits: [\"PostgreSQL\"] to the .package line of swift-identity-mfa (in this repository, build with --enable-all-traits)")
#endif
