package import Foundation
import IdentitySupport

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

    /// `value` encoded as canonical JSON (nil optionals omitted, as the
    /// generated coders do): the same value is the same bytes every time,
    /// and a URL reads `https://`, as Google's servers write it.
    package static func json(_ value: some Encodable) throws -> APIServerResponse {
        APIServerResponse(body: try CanonicalJSON.encoder.encode(value))
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
    /// A message that stands alone, without the short code before it
    /// (``invalidJSONPayload(_:)``).
    package var wholeMessage: String?

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
    /// A ``wholeMessage`` is written as it is.
    package var message: String { wholeMessage ?? detail.map { "\(shortCode) : \($0)" } ?? shortCode }

    package var description: String { "HTTP \(status) \(message)" }

    /// 400 `INVALID_ARGUMENT : detail`: a request this runtime cannot decode
    /// into the operation's types (the one error the runtime itself raises;
    /// `Spec/errors.yaml` lists the code for the servers built on it).
    package static func undecodableRequest(_ detail: String) -> APIServerError {
        APIServerError(status: 400, code: "INVALID_ARGUMENT", detail: detail)
    }

    /// 400 `INVALID_ARGUMENT` whose message is Google's wording of a body
    /// its schema refuses, alone: `Invalid JSON payload received. /mfa/enrollments
    /// must be array` (what Google's Auth emulator answers a `null` with).
    package static func invalidJSONPayload(_ problem: String) -> APIServerError {
        var error = APIServerError(status: 400, code: "INVALID_ARGUMENT")
        error.wholeMessage = "Invalid JSON payload received. \(problem)"
        return error
    }
}
