// AdminTestSupport (the admin tests' helpers) builds on the emulator and the
// server transport, which only the package traits "Emulator" and
// "AsyncHTTPClient" bring. Without them every other file compiles to
// nothing, so that a plain `swift build` succeeds; the tests themselves need
// every trait: `swift test --enable-all-traits`.
#if !(Emulator && AsyncHTTPClient)
#warning("AdminTestSupport is empty: the tests need every trait (swift test --enable-all-traits)")
#endif
