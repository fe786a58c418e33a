// spec-codegen builds on dependencies that only the package trait "Tools" brings
// (see Package.swift), so that apps which use the libraries never fetch them.
#if !Tools
#error("spec-codegen needs the package trait \"Tools\": swift run --traits Tools spec-codegen (or --enable-all-traits)")
#endif
