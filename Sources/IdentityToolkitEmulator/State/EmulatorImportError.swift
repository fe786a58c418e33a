#if Emulator
import Foundation
import IdentityToolkit
import IdentitySupport

/// An export folder the emulator cannot load: the file, the field within
/// it (`users[3].createdAt`) and why. Nothing is loaded when one is thrown.
public struct EmulatorImportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file, relative to the export folder (or the folder itself).
    public let file: String
    /// The field within the file, if one is to blame.
    public let field: String?
    /// What is wrong with it.
    public let reason: String

    init(file: String, field: String?, reason: String) {
        self.file = file
        self.field = field
        self.reason = LogSafeText.escaping(reason, limit: 300)
    }

    init(decoding error: DecodingError, file: String) {
        func path(_ codingPath: [any CodingKey]) -> String? {
            guard !codingPath.isEmpty else { return nil }
            var text = ""
            for key in codingPath {
                if let index = key.intValue {
                    text += "[\(index)]"
                } else {
                    text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
                }
            }
            return text
        }
        switch error {
        case .dataCorrupted(let context):
            self.init(
                file: file, field: path(context.codingPath),
                reason: context.codingPath.isEmpty ? "is not valid JSON" : "has a value of the wrong form")
        case .keyNotFound(let key, let context):
            self.init(file: file, field: path(context.codingPath + [key]), reason: "is missing")
        case .typeMismatch(let type, let context):
            self.init(file: file, field: path(context.codingPath), reason: "is not a \(type)")
        case .valueNotFound(let type, let context):
            self.init(file: file, field: path(context.codingPath), reason: "is null where a \(type) is expected")
        @unknown default:
            self.init(file: file, field: nil, reason: "does not decode")
        }
    }

    /// `FILE: FIELD REASON`, safe to print (no value from the file is quoted).
    public var description: String {
        "cannot import \(file)\(field.map { ": \($0)" } ?? "") \(reason)"
    }
}
#endif
