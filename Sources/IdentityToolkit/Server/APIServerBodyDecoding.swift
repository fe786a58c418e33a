import Foundation
import HTTPTypes

/// A request body decoded into an operation's type, as proto3 JSON
/// parsers read it.
extension APIServerRequest {
    /// Decodes the body as JSON, or as a form when it is form-encoded and the
    /// operation allows forms, in one pass over the strict parser's tree
    /// (``StrictJSONReading/protoJSONRequest(snakeCaseWireNames:)``): each
    /// field decoded once, under the lowerCamelCase name or the original
    /// snake_case one, and a required field that is absent decoded empty
    /// (`""`, `[]` or `{}`), as production, for the operation to check it
    /// in its own order and name it with its own code.
    /// - Parameter snakeCaseWireNames: The snake_case wire names of the
    ///   schema and of those inside it (the generated routes list them from
    ///   the spec); every other field's wire name is lowerCamelCase.
    package func decodeBody<Body: Decodable>(_ type: Body.Type, snakeCaseWireNames: Set<String> = []) throws -> Body {
        let isForm =
            acceptsFormBody
            && headerFields[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true
        let root: JSONNode
        if isForm {
            // Sorted, so that a form reads the same way every time.
            root = .object(
                Self.formFields(body).sorted { $0.key < $1.key }.map { (name: $0.key, value: .string($0.value)) })
        } else {
            try Self.checkStructure(body)
            do {
                root = try StrictJSONDecoder.parse(body.isEmpty ? Data("{}".utf8) : body)
            } catch {
                throw APIServerError.undecodableRequest("the body is not valid JSON")
            }
        }
        guard case .object = root else { throw APIServerError.undecodableRequest("the body must be a JSON object") }
        do {
            return try StrictJSONDecoder.decode(
                Body.self, from: root,
                reading: .protoJSONRequest(
                    snakeCaseWireNames: snakeCaseWireNames, refusesNullMembers: refusesNullMembers))
        } catch DecodingError.valueNotFound(let type, let context) where refusesNullMembers {
            let pointer = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(
                separator: "/")
            throw APIServerError.invalidJSONPayload("/\(pointer) must be \(Self.jsonTypeName(of: type))")
        } catch let error as DecodingError {
            throw APIServerError.undecodableRequest(Self.describe(error))
        }
    }

    /// A body's top-level member as sent (nil when absent, or when the body
    /// is not a JSON object): for a rule that must tell an empty value from
    /// an absent one, which a decoded request cannot.
    package func jsonBodyMember(_ name: String) -> JSONNode? {
        guard !body.isEmpty, (try? Self.checkStructure(body)) != nil,
            case .object(let members)? = try? StrictJSONDecoder.parse(body)
        else { return nil }
        return members.first { $0.name == name }?.value
    }

    /// The JSON Schema type name of a decoded Swift type, as a schema
    /// validator words a refusal (`array`, `string`, …).
    static func jsonTypeName(of type: Any.Type) -> String {
        switch type {
        case is String.Type: return "string"
        case is Bool.Type: return "boolean"
        case is any BinaryInteger.Type: return "integer"
        case is any BinaryFloatingPoint.Type: return "number"
        case is any ExpressibleByArrayLiteral.Type: return "array"
        case is any RawRepresentable.Type: return "string"
        default: return "object"
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
