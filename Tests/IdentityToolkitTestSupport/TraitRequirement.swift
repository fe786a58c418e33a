// IdentityToolkitTestSupport (the tests' helpers) builds on dependencies that
// only the package trait "AsyncHTTPClient" brings. Without it every other
// file compiles to nothing, so that a plain `swift build` succeeds; the
// tests themselves need every trait: `swift test --enable-all-traits`.
#if !AsyncHTTPClient
#warning("IdentityToolkitTestSupport is empty: the tests need every trait (swift test --enable-all-traits)")
#endif
