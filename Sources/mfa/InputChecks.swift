#if Tools
import ArgumentParser

/// The checks every option that names something (an id, a path, an
/// address) gets before a command runs: a bad value is a usage error
/// (exit 2) naming the option, never a request that fails later with
/// "no user" or "no such file".
enum InputCheck {
    /// Refuses an empty value, or one with control characters, of `option` when given.
    static func identifier(_ value: String?, _ option: String) throws {
        guard let value else { return }
        guard !value.isEmpty else { throw ValidationError("\(option) must not be empty") }
        guard !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ValidationError("\(option) must not contain control characters")
        }
    }

    /// Refuses an empty path, or one with a NUL or a newline, of `option` when given.
    static func path(_ value: String?, _ option: String) throws {
        guard let value else { return }
        guard !value.isEmpty else { throw ValidationError("\(option) must name a file, not be empty") }
        guard !value.contains("\0"), !value.contains("\n") else {
            throw ValidationError("\(option) must not contain a NUL or a newline")
        }
    }

    /// Refuses a project id that is not letters, digits and hyphens.
    static func project(_ value: String, _ option: String = "--project") throws {
        guard !value.isEmpty, value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
            throw ValidationError("\(option) must be letters, digits and hyphens, not '\(value)'")
        }
    }
}
#endif
