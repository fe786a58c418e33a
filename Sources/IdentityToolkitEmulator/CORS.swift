import HTTPTypes
import Hummingbird

/// Cross-origin access, so that a web app served from another origin (a
/// Firebase JS app after `connectAuthEmulator`) can call the emulator, as
/// Google's emulator allows: every response names the caller's origin, and
/// a preflight `OPTIONS` on any path is answered with what it asks for.
enum CORS {
    static let allowOrigin = HTTPField.Name("Access-Control-Allow-Origin")!
    static let allowMethods = HTTPField.Name("Access-Control-Allow-Methods")!
    static let allowHeaders = HTTPField.Name("Access-Control-Allow-Headers")!
    static let maxAge = HTTPField.Name("Access-Control-Max-Age")!
    static let exposeHeaders = HTTPField.Name("Access-Control-Expose-Headers")!
    static let requestHeaders = HTTPField.Name("Access-Control-Request-Headers")!
    static let origin = HTTPField.Name("Origin")!

    /// The methods the API uses.
    static let methods = "GET, POST, PUT, PATCH, DELETE, OPTIONS"
    /// Headers a browser may send when the preflight does not list them.
    static let defaultRequestHeaders = "Authorization, Content-Type, X-Client-Version, X-Firebase-Client, X-Firebase-GMPID, X-Firebase-Locale"

    /// Whether `request` is a CORS preflight (any `OPTIONS` request is
    /// answered as one: no operation of the API uses `OPTIONS`).
    static func isPreflight(_ request: Request) -> Bool { request.method == .options }

    /// 204 with the methods and the headers the preflight asked for.
    static func preflightResponse(to request: Request) -> Response {
        var headers: HTTPFields = [allowMethods: methods, maxAge: "86400"]
        headers[allowHeaders] = request.headers[requestHeaders].flatMap { $0.isEmpty ? nil : $0 } ?? defaultRequestHeaders
        var response = Response(status: .noContent, headers: headers)
        decorate(&response, for: request)
        return response
    }

    /// Names the request's origin (`*` without one) as allowed, varying by it.
    static func decorate(_ response: inout Response, for request: Request) {
        if let origin = request.headers[origin], !origin.isEmpty {
            response.headers[allowOrigin] = origin
            response.headers[.vary] = "Origin"
        } else {
            response.headers[allowOrigin] = "*"
        }
        response.headers[exposeHeaders] = "Cache-Control, Content-Type"
    }
}
