/// A position in a spec file, 1-based, as editors and compilers print it.
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    public var description: String { "\(file):\(line):\(column)" }
}

/// One problem found in a spec.
public struct Diagnostic: Hashable, Sendable, CustomStringConvertible {
    public enum Severity: String, Sendable { case error, warning }

    public var severity: Severity
    public var message: String
    public var location: SourceLocation

    public init(_ severity: Severity, _ message: String, at location: SourceLocation) {
        self.severity = severity
        self.message = message
        self.location = location
    }

    /// `file:line:column: error: message`, the form editors and CI logs link to.
    public var description: String { "\(location): \(severity.rawValue): \(message)" }
}

/// Collects diagnostics while a stage keeps going; errors stop the pipeline
/// after the stage that found them.
public final class DiagnosticCollector {
    public private(set) var diagnostics: [Diagnostic] = []

    public init() {}

    public func error(_ message: String, at location: SourceLocation) {
        diagnostics.append(Diagnostic(.error, message, at: location))
    }

    public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }

    /// Diagnostics in file, line, column order, so that output is stable.
    public var sorted: [Diagnostic] {
        diagnostics.sorted {
            ($0.location.file, $0.location.line, $0.location.column, $0.message)
                < ($1.location.file, $1.location.line, $1.location.column, $1.message)
        }
    }
}

/// Thrown when a stage found errors; carries all of them.
public struct SpecCodegenFailure: Error, CustomStringConvertible {
    public var diagnostics: [Diagnostic]
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}
