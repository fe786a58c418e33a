// IdentityToolkitEmulator builds on dependencies that only the package trait "Emulator" brings
// (see Package.swift), so that apps which do not use it never fetch them.
#if !Emulator
#error("IdentityToolkitEmulator needs the package trait \"Emulator\": add traits: [\"Emulator\"] to the .package line of swift-identity-mfa (in this repository, build with --enable-all-traits)")
#endif
