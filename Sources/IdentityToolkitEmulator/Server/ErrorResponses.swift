#if Emulator
import Foundation
import HTTPTypes
import Hummingbird
import IdentitySupport
import IdentityToolkit
import NIOCore

/// Errors in the shapes the spec gives them: a route's own declared error
/// body, else Google's API error (requests no route took).
enum ErrorResponses {
    static func json(status: Int, _ body: Data) -> Response {
        Response(
            status: HTTPResponse.Status(code: status), headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// An error in the body a route's operation declares.
    static func render(_ error: APIServerError, in shape: any APIServerErrorBody.Type) -> Response {
        json(status: error.status, (try? CanonicalJSON.encoder.encode(shape.init(serverError: error))) ?? Data())
    }

    /// Google's API error shape.
    static func render(_ error: APIServerError) -> Response {
        json(status: error.status, (try? CanonicalJSON.encoder.encode(ErrorResponse(serverError: error))) ?? Data())
    }

    /// 404 for a request no route takes.
    static func unknownRoute(_ request: Request) -> APIServerError {
        .notFound("no such operation: \(request.method.rawValue) \(LogSafeText.escaping(request.uri.path))")
    }

    /// The canonical status (google.rpc.Code) of an HTTP status.
    static func canonicalStatus(_ status: Int) -> String {
        switch status {
        case 400, 413: return "INVALID_ARGUMENT"
        case 408: return "DEADLINE_EXCEEDED"
        case 401: return "UNAUTHENTICATED"
        case 403: return "PERMISSION_DENIED"
        case 404: return "NOT_FOUND"
        case 405, 501: return "UNIMPLEMENTED"
        default: return "INTERNAL"
        }
    }
}

/// Google's API error, as every operation of Identity Toolkit declares it.
extension ErrorResponse: APIServerErrorBody {
    init(serverError error: APIServerError) {
        self.init(
            error: ErrorStatus(
                code: Int32(error.status), message: error.message,
                status: ErrorResponses.canonicalStatus(error.status),
                errors: [ErrorDetail(message: error.message, domain: "global", reason: error.reason)]
            ))
    }
}

/// RFC 6749 §5.2, as the OAuth2 token endpoint declares it: a request it
/// cannot read is `invalid_request`.
extension OAuthErrorResponse: APIServerErrorBody {
    init(serverError error: APIServerError) {
        let code =
            error.shortCode == APIServerError.invalidArgument.shortCode
            ? APIServerError.invalidRequest.shortCode : error.shortCode
        self.init(error: code, errorDescription: error.detail)
    }
}
#endif
