import Foundation
package import HTTPTypes

// The framework-agnostic server side of the generated routes, package
// access: only the in-package emulator (and the generator's golden
// reference) serve requests; apps never see it. Generated code registers
// its routes on an `APIServerRouteRegistry`, as swift-openapi-generator's
// `registerHandlers(on:)` does on a `ServerTransport`, so that it needs no
// web framework; the emulator's registry is a Hummingbird router.

/// How a route's caller must be authorised (from the spec's security scheme).
package enum APIServerAuthorization: Sendable, Hashable {
    case apiKey, bearer, none
}

/// The error body an operation declares (its `default` response): a server
/// renders a route's errors in it. Generated types do not conform; the
/// server that serves them says how each shape carries an ``APIServerError``.
package protocol APIServerErrorBody: Encodable, Sendable {
    /// The body that reports `error`.
    init(serverError error: APIServerError)
}

/// One operation as a server sees it: where it is and how to run it.
/// Generated from the spec (`…Service.registerRoutes(on:)`).
package struct APIServerRoute: Sendable {
    package let operationID: String
    package let method: HTTPRequest.Method
    /// The emulator prefix, `/<production host>`, or empty for a route served at the root.
    package let prefix: String
    /// The path template below the prefix, such as `/v2/projects/{project}/config`.
    package let path: String
    package let authorization: APIServerAuthorization
    /// Whether the spec also allows a form-encoded body.
    package let acceptsFormBody: Bool
    /// The spec's error body for this operation, nil when it declares none.
    package let errorBody: (any APIServerErrorBody.Type)?
    package let handler: @Sendable (APIServerRequest) async throws -> APIServerResponse
    /// The names of the `{…}` parameters of `prefix + path`, in order.
    package let pathParameterNames: [String]

    package init(
        operationID: String, method: HTTPRequest.Method, prefix: String, path: String,
        authorization: APIServerAuthorization, acceptsFormBody: Bool = false,
        errorBody: (any APIServerErrorBody.Type)? = nil,
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
        self.pathParameterNames = (prefix + path).split(separator: "/").compactMap { segment in
            guard let open = segment.firstIndex(of: "{"), let close = segment[open...].firstIndex(of: "}") else {
                return nil
            }
            return String(segment[segment.index(after: open)..<close])
        }
    }

    /// The full path template, `prefix + path`.
    package var template: String { prefix + path }

    /// A path parameter's value as it arrived (percent-encoded), decoded;
    /// nil when it is empty, does not decode, or holds a raw colon (a value
    /// never does, so `{tenant}` does not take `t:verb`, meant for a custom
    /// method of another route).
    package static func pathParameterValue(_ raw: Substring) -> String? {
        guard !raw.isEmpty, !raw.contains(":"), let decoded = String(raw).removingPercentEncoding else { return nil }
        return decoded
    }
}

/// Where generated code registers its routes: a server's router.
package protocol APIServerRouteRegistry {
    /// Adds `route`; the registry matches its method and template and calls
    /// its handler with the path parameters decoded.
    func register(_ route: APIServerRoute)
}
