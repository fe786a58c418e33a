package import Foundation
package import HTTPTypes

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
    /// Whether the server found the caller's bearer credentials valid
    /// (read once per request, before the route runs).
    package var hasBearerAuthorization: Bool
    /// Whether a body member sent as `null` is refused as Google's Auth
    /// emulator refuses it (`Invalid JSON payload received. /a/b must be
    /// array`) rather than read as absent, as proto3 JSON reads it.
    package var refusesNullMembers = false

    package init(
        method: HTTPRequest.Method, headerFields: HTTPFields, query: [String: String], body: Data,
        pathParameters: [String: String] = [:], operationID: String = "", acceptsFormBody: Bool = false,
        hasBearerAuthorization: Bool = false
    ) {
        self.acceptsFormBody = acceptsFormBody
        self.hasBearerAuthorization = hasBearerAuthorization
        self.method = method
        self.headerFields = headerFields
        self.query = query
        self.body = body
        self.pathParameters = pathParameters
        self.operationID = operationID
    }

    package func pathParameter(_ name: String) throws -> String {
        guard let value = pathParameters[name] else {
            throw APIServerError.undecodableRequest("missing path parameter \(name)")
        }
        return value
    }

    package func queryParameter(_ name: String) -> String? { query[name] }

    package func requiredQueryParameter(_ name: String) throws -> String {
        guard let value = query[name] else {
            throw APIServerError.undecodableRequest("missing query parameter \(name)")
        }
        return value
    }

    /// An integer query parameter, nil when absent; `INVALID_ARGUMENT` when
    /// it is not a decimal number of that size.
    package func queryParameter<Value: FixedWidthInteger & Sendable>(_ name: String, as type: Value.Type) throws
        -> Value?
    {
        guard let text = query[name] else { return nil }
        guard let value = Value(text, radix: 10) else {
            throw APIServerError.undecodableRequest(
                "query parameter \(name) must be an integer of \(Value.bitWidth) bits")
        }
        return value
    }

    /// A required integer query parameter.
    package func requiredQueryParameter<Value: FixedWidthInteger & Sendable>(_ name: String, as type: Value.Type) throws
        -> Value
    {
        guard let value = try queryParameter(name, as: type) else {
            throw APIServerError.undecodableRequest("missing query parameter \(name)")
        }
        return value
    }
}
