import Foundation
import HTTPTypes

/// A request body decoded into an operation's type, as proto3 JSON
/// parsers read it.
extension APIServerRequest {
    /// Decodes the body as JSON, or as a form when it is form-encoded and the
    /// operation allows forms.
    /// Field names are read as proto3 JSON parsers read them: the
    /// lowerCamelCase name or the original snake_case one.
    /// - Parameter snakeCaseWireNames: The snake_case wire names of the
    ///   schema and of those inside it (the generated routes list them from
    ///   the spec); every other field's wire name is lowerCamelCase.
    package func decodeBody<Body: Decodable>(_ type: Body.Type, snakeCaseWireNames: Set<String> = []) throws -> Body {
        let isForm = acceptsFormBody && headerFields[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true
        if !isForm { try Self.checkStructure(body) }
        // Fast path: a JSON body whose keys need no proto3 alias decodes in one pass.
        if !isForm && snakeCaseWireNames.isEmpty && !Self.hasKeyWithUnderscore(body) {
            do {
                return try JSONDecoder().decode(Body.self, from: body.isEmpty ? Data("{}".utf8) : body)
            } catch let error as DecodingError {
                if case .dataCorrupted(let context) = error, context.codingPath.isEmpty {
                    throw APIServerError.undecodableRequest(Self.isJSONObject(body) ? Self.describe(error) : "the body is not valid JSON")
                }
                if case .typeMismatch(_, let context) = error, context.codingPath.isEmpty {
                    throw APIServerError.undecodableRequest("the body must be a JSON object")
                }
                guard case .keyNotFound = error else { throw APIServerError.undecodableRequest(Self.describe(error)) }
                // An absent required field: the slow path fills it.
            }
        }
        let object: Any
        if isForm {
            object = try Self.formFields(body)
        } else {
            do {
                object = try JSONSerialization.jsonObject(with: body.isEmpty ? Data("{}".utf8) : body, options: [.fragmentsAllowed])
            } catch {
                throw APIServerError.undecodableRequest("the body is not valid JSON")
            }
        }
        guard var fields = object as? [String: Any] else { throw APIServerError.undecodableRequest("the body must be a JSON object") }
        fields = Self.withWireNameSpelling(fields, snakeCaseWireNames: snakeCaseWireNames) as? [String: Any] ?? fields
        // A required field that is absent is decoded empty ("", [] or {}):
        // as production, the operation checks it in its own order (a
        // project's switches before `MISSING_ID_TOKEN`) and names it with
        // its own code. Each attempt fills one more field.
        var filled: [String: [Any]] = [:]
        var absence: [String: DecodingError] = [:]
        for _ in 0..<Self.maximumFilledFields {
            do {
                return try JSONDecoder().decode(Body.self, from: try JSONSerialization.data(withJSONObject: fields))
            } catch let error as DecodingError {
                guard let path = Self.absentOrMistypedFill(error, filled: filled) else {
                    throw APIServerError.undecodableRequest(Self.describe(error))
                }
                let key = path.map(\.stringValue).joined(separator: "/")
                if absence[key] == nil { absence[key] = error }
                let candidates = filled[key, default: [Self.emptyText, [Any](), [String: Any]()]]
                // No empty value fits (a date, a number): the field is reported missing.
                guard let next = candidates.first else { throw APIServerError.undecodableRequest(Self.describe(absence[key] ?? error)) }
                filled[key] = Array(candidates.dropFirst())
                fields = Self.setting(next, at: path[...], in: fields) as? [String: Any] ?? fields
            }
        }
        throw APIServerError.undecodableRequest("the body is missing too many required fields")
    }

    /// How many absent required fields one body may have filled.
    static let maximumFilledFields = 24
    static let emptyText = ""

    /// The field to fill for a decoding error, as its coding path: one
    /// absent, or one this decoder filled with a value of the wrong kind
    /// (then the next kind is tried). Nil for any other error, which stays an error.
    static func absentOrMistypedFill(_ error: DecodingError, filled: [String: [Any]]) -> [any CodingKey]? {
        switch error {
        case .keyNotFound(let key, let context):
            return context.codingPath + [key]
        case .typeMismatch(_, let context), .dataCorrupted(let context):
            guard !context.codingPath.isEmpty else { return nil }
            return filled[context.codingPath.map(\.stringValue).joined(separator: "/")] == nil ? nil : context.codingPath
        default:
            return nil
        }
    }

    /// `value` placed at `path` inside `container` (objects created on the way).
    static func setting(_ value: Any, at path: ArraySlice<any CodingKey>, in container: Any) -> Any {
        guard let first = path.first else { return value }
        let rest = path.dropFirst()
        if let index = first.intValue, var array = container as? [Any], array.indices.contains(index) {
            array[index] = setting(value, at: rest, in: array[index])
            return array
        }
        var object = container as? [String: Any] ?? [:]
        object[first.stringValue] = setting(value, at: rest, in: object[first.stringValue] ?? [String: Any]())
        return object
    }

    /// Whether `body` parses as JSON at all (only asked on the error path).
    static func isJSONObject(_ body: Data) -> Bool {
        (try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])) is [String: Any]
    }

    /// The tree with every key under the one spelling the schema's wire name
    /// has (proto3 JSON parsers accept `a_b` and `aB` for either): a key sent
    /// in the other spelling is renamed, never copied, so the result is no
    /// larger than what was sent. When both spellings of a field are sent,
    /// the wire name's own wins.
    static func withWireNameSpelling(_ value: Any, snakeCaseWireNames: Set<String>) -> Any {
        if let dictionary = value as? [String: Any] {
            var result: [String: Any] = [:]
            result.reserveCapacity(dictionary.count)
            // Sorted, so that two other spellings of one name resolve the same way every time.
            for (key, element) in dictionary.sorted(by: { $0.key < $1.key }) {
                let wireName = Self.wireName(of: key, snakeCaseWireNames: snakeCaseWireNames)
                if wireName != key && (dictionary[wireName] != nil || result[wireName] != nil) { continue }
                result[wireName] = withWireNameSpelling(element, snakeCaseWireNames: snakeCaseWireNames)
            }
            return result
        }
        if let array = value as? [Any] { return array.map { withWireNameSpelling($0, snakeCaseWireNames: snakeCaseWireNames) } }
        return value
    }

    /// The wire name a sent key stands for: itself when it is one of the
    /// snake_case names, its snake_case form when that is one, else its
    /// lowerCamelCase form.
    static func wireName(of key: String, snakeCaseWireNames: Set<String>) -> String {
        if snakeCaseWireNames.contains(key) { return key }
        if key.contains("_") { return camelCase(key) }
        guard !snakeCaseWireNames.isEmpty else { return key }
        let snake = snakeCase(key)
        return snakeCaseWireNames.contains(snake) ? snake : key
    }

    static func camelCase(_ key: String) -> String {
        let parts = key.split(separator: "_")
        return (parts.first.map(String.init) ?? "") + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    static func snakeCase(_ key: String) -> String {
        key.reduce(into: "") { result, character in
            if character.isUppercase {
                result += "_" + character.lowercased()
            } else {
                result.append(character)
            }
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = path(context)
            return "missing required field \(parent.isEmpty ? "" : parent + ".")\(key.stringValue)"
        case .typeMismatch(let type, let context):
            return "invalid value for \(path(context)): expected \(type)"
        case .valueNotFound(let type, let context):
            return "null value for \(path(context)): expected \(type)"
        case .dataCorrupted(let context):
            return "invalid value for \(path(context)): \(context.debugDescription)"
        @unknown default:
            return "invalid request body"
        }
    }
}
