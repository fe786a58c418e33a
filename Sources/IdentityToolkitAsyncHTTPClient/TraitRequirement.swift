// IdentityToolkitAsyncHTTPClient builds on dependencies that only the package trait "AsyncHTTPClient" brings
// (see Package.swift), so that apps which do not use it never fetch them.
// Without the trait every other file of the module compiles to nothing
// (each is wrapped in `#if AsyncHTTPClient`): the module is empty, and this warning
// says what to add, so that a plain `swift build` of the repository (what
// the Swift Package Index and a first-time reader type) still succeeds.
#if !AsyncHTTPClient
#warning(
    "IdentityToolkitAsyncHTTPClient is empty: it needs the package trait \"AsyncHTTPClient\". Add traits: [\"AsyncHTTPClient\"] to the .package line of swift-identity-mfa (in this repository, build with --enable-all-traits)"
)
#endif
