// IdentityToolkitAsyncHTTPClient builds on dependencies that only the package trait "AsyncHTTPClient" brings
// (see Package.swift), so that apps which do not use it never fetch them.
#if !AsyncHTTPClient
#error("IdentityToolkitAsyncHTTPClient needs the package trait \"AsyncHTTPClient\": add traits: [\"AsyncHTTPClient\"] to the .package line of swift-identity-mfa (in this repository, build with --enable-all-traits)")
#endif
