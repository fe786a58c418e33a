package import Foundation
package import HTTPTypes

// The framework-agnostic server runtime of the generated routes: package
// access, because only the in-package emulator (and the generator's golden
// reference) serve requests; apps never see it.

/// How a route's caller must be authorised (from the spec's security scheme).
package enum APIServerAuthorization: Sendable, Hashable {
    case apiKey, bearer, none
}

/// One operation as a server sees it: where it is and how to run it.
/// Generated from the spec (`…Service.routes`); servers only match and call.
package struct APIServerRoute: Sendable {
    package let operationID: String
    package let method: HTTPRequest.Method
    /// The emulator prefix, `/<production host>`.
    package let prefix: String
    /// The path template below the prefix, such as `/v2/projects/{project}/config`.
    package let path: String
    package let authorization: APIServerAuthorization
    /// Whether the spec also allows a form-encoded body.
    package let acceptsFormBody: Bool
    /// The spec's error schema for this operation (its `default` response),
    /// so that a server renders errors in the shape the spec gives them.
    package let errorBody: ObjectIdentifier?
    package let handler: @Sendable (APIServerRequest) async throws -> APIServerResponse

    /// Template segments of `prefix + path`.
    let segments: [Substring]

    package init(
        operationID: String, method: HTTPRequest.Method, prefix: String, path: String,
        authorization: APIServerAuthorization, acceptsFormBody: Bool = false, errorBody: ObjectIdentifier? = nil,
        handler: @escaping @Sendable (APIServerRequest) async throws -> APIServerResponse
    ) {
        self.acceptsFormBody = acceptsFormBody
        self.errorBody = errorBody
        self.operationID = operationID
        self.method = method
        self.prefix = prefix
        self.path = path
        self.authorization = authorization
        self.handler = handler
        self.segments = (prefix + path).split(separator: "/", omittingEmptySubsequences: true)
    }

    /// The path parameters when `segments` matches this route's template.
    func match(_ pathSegments: [Substring]) -> [String: String]? {
        guard pathSegments.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (template, actual) in zip(segments, pathSegments) {
            guard let open = template.firstIndex(of: "{"), let close = template[open...].firstIndex(of: "}") else {
                guard template == actual else { return nil }
                continue
            }
            // `{name}` or `{name}:verb` (a custom method on a resource):
            // the literal suffix must match, and the value is what precedes
            // it. A value never holds a raw colon, so `{tenant}` does not
            // swallow `t:verb` meant for another route.
            let suffix = template[template.index(after: close)...]
            guard template[..<open].isEmpty, actual.hasSuffix(suffix) else { return nil }
            let value = actual.dropLast(suffix.count)
            guard !value.isEmpty, !value.contains(":"), let decoded = String(value).removingPercentEncoding else { return nil }
            parameters[String(template[template.index(after: open)..<close])] = decoded
        }
        return parameters
    }
}

/// Finds the route of a request.
package struct APIServerRouter: Sendable {
    package enum Match: Sendable {
        case found(APIServerRoute, pathParameters: [String: String])
        /// The path exists with other methods.
        case methodNotAllowed
        case notFound
    }

    package let routes: [APIServerRoute]

    package init(routes: [APIServerRoute]) {
        self.routes = routes
    }

    package func match(method: HTTPRequest.Method, path: String) -> Match {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        var pathExists = false
        for route in routes {
            guard let parameters = route.match(segments) else { continue }
            if route.method == method { return .found(route, pathParameters: parameters) }
            pathExists = true
        }
        return pathExists ? .methodNotAllowed : .notFound
    }
}

/// A request as a generated route handler reads it.
package struct APIServerRequest: Sendable {
    package var method: HTTPRequest.Method
    package var headerFields: HTTPFields
    /// The query parameters (the first value of each name).
    package var query: [String: String]
    package var body: Data
    package var pathParameters: [String: String]
    /// The spec's operation id.
    package var operationID: String
    /// Whether a form-encoded body is read as a form (else every body is JSON).
    package var acceptsFormBody: Bool

    package init(method: HTTPRequest.Method, headerFields: HTTPFields, query: [String: String], body: Data,
                pathParameters: [String: String] = [:], operationID: String = "", acceptsFormBody: Bool = false) {
        self.acceptsFormBody = acceptsFormBody
        self.method = method
        self.headerFields = headerFields
        self.query = query
        self.body = body
        self.pathParameters = pathParameters
        self.operationID = operationID
    }

    package func pathParameter(_ name: String) throws -> String {
        guard let value = pathParameters[name] else { throw APIServerError.undecodableRequest("missing path parameter \(name)") }
        return value
    }

    package func queryParameter(_ name: String) -> String? { query[name] }

    package func requiredQueryParameter(_ name: String) throws -> String {
        guard let value = query[name] else { throw APIServerError.undecodableRequest("missing query parameter \(name)") }
        return value
    }

    /// An integer query parameter, nil when absent; `INVALID_ARGUMENT` when
    /// it is not a decimal number of that size.
    package func queryParameter<Value: FixedWidthInteger & Sendable>(_ name: String, as type: Value.Type) throws -> Value? {
        guard let text = query[name] else { return nil }
        guard let value = Value(text, radix: 10) else {
            throw APIServerError.undecodableRequest("query parameter \(name) must be an integer of \(Value.bitWidth) bits")
        }
        return value
    }

    /// A required integer query parameter.
    package func requiredQueryParameter<Value: FixedWidthInteger & Sendable>(_ name: String, as type: Value.Type) throws -> Value {
        guard let value = try queryParameter(name, as: type) else { throw APIServerError.undecodableRequest("missing query parameter \(name)") }
        return value
    }

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

    /// The deepest nesting and the most objects and arrays a request body
    /// may hold: far beyond any request of the API, and small enough that
    /// decoding stays cheap.
    package static let maximumNesting = 32
    package static let maximumContainers = 2_000

    /// Refuses a JSON text nested deeper than ``maximumNesting`` or holding
    /// more than ``maximumContainers`` objects and arrays, in one pass over
    /// the bytes and before any parser allocates for it.
    package static func checkStructure(_ body: Data) throws {
        var depth = 0
        var containers = 0
        try scanJSON(body) { byte, position in
            guard position == .structure else { return true }
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                containers += 1
                if depth > maximumNesting {
                    throw APIServerError.undecodableRequest("the body is nested deeper than \(maximumNesting) levels")
                }
                if containers > maximumContainers {
                    throw APIServerError.undecodableRequest("the body holds more than \(maximumContainers) objects and arrays")
                }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
            default:
                break
            }
            return true
        }
    }

    /// Where a byte of a JSON text stands.
    enum JSONBytePosition {
        /// Outside every string.
        case structure
        /// A string's opening or closing quote.
        case stringOpen, stringClose
        /// Inside a string (escape sequences included).
        case stringContent
    }

    /// Visits every byte of a JSON text with its position, honouring
    /// escapes; stops when `visit` returns false. The one home for telling
    /// strings from structure in a single pass.
    static func scanJSON(_ body: Data, _ visit: (UInt8, JSONBytePosition) throws -> Bool) rethrows {
        var inString = false
        var escaped = false
        for byte in body {
            let position: JSONBytePosition
            if inString {
                if escaped {
                    escaped = false
                    position = .stringContent
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                    position = .stringContent
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    position = .stringClose
                } else {
                    position = .stringContent
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
                position = .stringOpen
            } else {
                position = .structure
            }
            guard try visit(byte, position) else { return }
        }
    }

    /// The fields of an `application/x-www-form-urlencoded` body (the first
    /// value of each name), decoded once, with `+` as a space as the WHATWG
    /// URL standard's form parsing has it.
    package static func formFields(_ body: Data) throws -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (text: Substring) in text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding }
            guard let name = decode(parts[0]), let value = decode(parts.count > 1 ? parts[1] : "") else {
                throw APIServerError.undecodableRequest("malformed form body")
            }
            if fields[name] == nil { fields[name] = value }
        }
        return fields
    }

    /// Whether `body` parses as JSON at all (only asked on the error path).
    static func isJSONObject(_ body: Data) -> Bool {
        (try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])) is [String: Any]
    }

    /// Whether a JSON text has an object key containing `_` (a key: a string
    /// followed by `:`). One pass over the bytes, honouring escapes.
    static func hasKeyWithUnderscore(_ body: Data) -> Bool {
        var sawUnderscore = false
        var afterString = false
        var found = false
        scanJSON(body) { byte, position in
            switch position {
            case .stringOpen:
                sawUnderscore = false
            case .stringContent:
                if byte == UInt8(ascii: "_") { sawUnderscore = true }
            case .stringClose:
                afterString = true
            case .structure:
                switch byte {
                case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                    break
                case UInt8(ascii: ":"):
                    if afterString && sawUnderscore { found = true }
                    afterString = false
                default:
                    afterString = false
                }
            }
            return !found
        }
        return found
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

/// A response body with its status.
package struct APIServerResponse: Sendable {
    package var status: Int
    package var body: Data
    /// The body's media type.
    package var contentType: String

    package init(status: Int = 200, body: Data, contentType: String = "application/json; charset=utf-8") {
        self.status = status
        self.body = body
        self.contentType = contentType
    }

    /// `value` encoded as JSON (nil optionals omitted, as the generated coders do).
    package static func json(_ value: some Encodable) throws -> APIServerResponse {
        APIServerResponse(body: try JSONEncoder().encode(value))
    }

    /// An HTML page (a `text/html` response of the spec).
    package static func html(_ page: String) -> APIServerResponse {
        APIServerResponse(body: Data(page.utf8), contentType: "text/html; charset=utf-8")
    }
}

/// An error a service reports; servers render it in the API's error shape.
package struct APIServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status.
    package var status: Int
    /// The short code, such as `INVALID_CODE`.
    package var shortCode: String
    /// Text after the short code, if any.
    package var detail: String?
    /// The `errors[].reason`, such as `invalid`.
    package var reason: String

    /// An error of the server's vocabulary: servers throw the cases
    /// generated from `Spec/errors.yaml` (`serverErrors`), which call this;
    /// hand-written server code never spells a short code.
    package init(status: Int, code shortCode: String, detail: String? = nil, reason: String = "invalid") {
        self.status = status
        self.shortCode = shortCode
        self.detail = detail
        self.reason = reason
    }

    /// The same error answered with another status, for a code a server
    /// sends in two places (a tenant named by a request, 400; the tenant
    /// resource itself, 404).
    package func with(status: Int, reason: String) -> APIServerError {
        APIServerError(status: status, code: shortCode, detail: detail, reason: reason)
    }

    /// `SHORT_CODE` or `SHORT_CODE : detail`, as the API writes `error.message`.
    package var message: String { detail.map { "\(shortCode) : \($0)" } ?? shortCode }

    package var description: String { "HTTP \(status) \(message)" }

    /// 400 `INVALID_ARGUMENT : detail`: a request this runtime cannot decode
    /// into the operation's types (the one error the runtime itself raises;
    /// `Spec/errors.yaml` lists the code for the servers built on it).
    package static func undecodableRequest(_ detail: String) -> APIServerError {
        APIServerError(status: 400, code: "INVALID_ARGUMENT", detail: detail)
    }
}
