#if Tools
import ArgumentParser
import Foundation
import IdentitySupport

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

/// Secrets and tokens read from standard input or a file the user names,
/// at most ``limit`` bytes (``BoundedRead``). More is an error naming where
/// it came from: a token cut short failed as "invalid", for the wrong reason.
enum BoundedInput {
    /// Far above any TOTP secret or ID token; far below a mistake.
    static let limit = 64 * 1024

    /// Standard input to its end; `what` names what it should hold.
    static func standardInput(holding what: String) throws -> Data {
        guard let data = try BoundedRead.contents(of: FileHandle.standardInput, atMost: limit) else {
            throw ValidationError("standard input holds more than \(limit / 1024) KiB; \(what) is far shorter")
        }
        return data
    }

    /// The file `path` names, given with `option`.
    static func file(_ path: String, option: String) throws -> Data {
        let data: Data?
        do {
            data = try BoundedRead.contents(ofFile: path, atMost: limit)
        } catch {
            throw ValidationError("cannot read \(option) \(path): \(error.localizedDescription)")
        }
        guard let data else {
            throw ValidationError("\(option) \(path) holds more than \(limit / 1024) KiB; it is not a secret's file")
        }
        return data
    }
}
#endif
