// spec-codegen builds on dependencies that only the package trait "Tools" brings
// (see Package.swift), so that apps which use the libraries never fetch them.
// Without the trait every other file compiles to nothing (each is wrapped
// in `#if Tools`) and this entry point says what to type instead, so that a
// plain `swift build` of the repository still succeeds.
#if !Tools
#warning(
    "spec-codegen needs the package trait \"Tools\": swift run --traits Tools spec-codegen (or --enable-all-traits)"
)

import Foundation

/// The tool built without its trait: it explains and fails.
@main
enum TraitMissing {
    static func main() {
        FileHandle.standardError.write(
            Data(
                "spec-codegen was built without the package trait \"Tools\": run it with `swift run --traits Tools spec-codegen` (or --enable-all-traits)\n"
                    .utf8))
        exit(64)
    }
}
#endif
