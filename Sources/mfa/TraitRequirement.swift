// mfa builds on dependencies that only the package trait "Tools" brings
// (see Package.swift), so that apps which use the libraries never fetch them.
#if !Tools
#error("mfa needs the package trait \"Tools\": swift run --traits Tools mfa (or --enable-all-traits)")
#endif
