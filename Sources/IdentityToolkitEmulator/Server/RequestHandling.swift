import Foundation
import HTTPTypes
import Hummingbird
import IdentityToolkit
import Logging
import NIOCore
import IdentitySupport

/// One request, from bytes to the route's answer: the laptop-safety
/// checks, the body within its bounds, the route, its authorisation, and
/// errors in the shape the route's spec gives them.
struct RequestHandling: Sendable {
    let router: APIServerRouter
    let safety: LaptopSafety
    let authorization: AdminAuthorization
    let maxBodyBytes: Int
    let bodyReadTimeout: Duration
    let logger: Logger
    /// The paths of pages for people (``LaptopSafety``'s page rules).
    let pagePaths: Set<String>

    /// The answer to `request`, CORS headers (or a page's headers) included.
    func respond(to request: Request) async -> Response {
        if let refusal = safety.refusal(of: request) { return ErrorResponses.render(refusal) }
        guard pagePaths.contains(request.uri.path) else {
            if LaptopSafety.isPreflight(request) { return safety.preflightResponse(to: request) }
            var response = await route(request)
            safety.decorate(&response, for: request)
            return response
        }
        var response: Response
        if let refusal = safety.pageRefusal(of: request) {
            response = ErrorResponses.render(refusal)
        } else if LaptopSafety.isPreflight(request) {
            // No CORS grant: a page is read by its own origin only.
            response = ErrorResponses.render(APIServerError.permissionDenied("the emulator's pages are not for other origins"))
        } else {
            response = await route(request)
        }
        LaptopSafety.decoratePage(&response)
        return response
    }

    private func route(_ request: Request) async -> Response {
        let path = request.uri.path
        // Hummingbird has percent-decoded the query already: decoding again
        // would turn a literal "%20" into a space.
        var query: [String: String] = [:]
        for (name, value) in request.uri.queryParameters where query[String(name)] == nil {
            query[String(name)] = String(value)
        }
        let body: Data
        switch await readBody(of: request) {
        case .success(let data): body = data
        case .failure(let error): return ErrorResponses.render(error)
        }
        switch router.match(method: request.method, path: path) {
        case .notFound:
            return ErrorResponses.render(APIServerError.notFound("no such operation: \(request.method.rawValue) \(LogSafeText.escaping(path))"))
        case .methodNotAllowed:
            return ErrorResponses.render(APIServerError.methodNotAllowed("\(request.method.rawValue) is not allowed on \(LogSafeText.escaping(path))"))
        case .found(let route, let parameters):
            let isAdmin = authorization.isAdmin(request.headers[.authorization])
            if route.authorization == .bearer && !isAdmin {
                return ErrorResponses.render(APIServerError.unauthenticated(
                    "this call needs 'Authorization: Bearer \(EmulatorAdminToken.owner)' or a token from the token endpoint"))
            }
            // An end-user call names an API key, as production requires (an admin's need not).
            if route.authorization == .apiKey && !isAdmin && !AdminAuthorization.hasAPIKey(query: query, headers: request.headers) {
                return ErrorResponses.render(APIServerError.permissionDenied("The request is missing a valid API key."), for: route)
            }
            let apiRequest = APIServerRequest(method: request.method, headerFields: request.headers, query: query, body: body,
                                              pathParameters: parameters, operationID: route.operationID, acceptsFormBody: route.acceptsFormBody)
            do {
                let response = try await route.handler(apiRequest)
                return Response(status: HTTPResponse.Status(code: response.status), headers: [.contentType: response.contentType],
                                body: ResponseBody(byteBuffer: ByteBuffer(bytes: response.body)))
            } catch let error as APIServerError {
                return ErrorResponses.render(error, for: route)
            } catch {
                logger.error("unexpected failure in \(route.operationID): \(type(of: error))")
                return ErrorResponses.render(APIServerError.internalError, for: route)
            }
        }
    }

    /// The request body, within the size bound and the read deadline. At
    /// the deadline the caller answers 408 while the read is cancelled in
    /// the background (a stalled stream need not notice cancellation).
    private func readBody(of request: Request) async -> Result<Data, APIServerError> {
        let limit = maxBodyBytes
        let requestBody = request.body
        do {
            let buffer = try await Deadline.run(within: bodyReadTimeout) {
                try await requestBody.collect(upTo: limit)
            }
            return .success(Data(buffer: buffer))
        } catch is DeadlineExceeded {
            return .failure(APIServerError.invalidArgument("the request body did not arrive within \(bodyReadTimeout)").with(status: 408, reason: "invalid"))
        } catch {
            return .failure(APIServerError.invalidArgument("the request body is larger than \(limit) bytes").with(status: 413, reason: "invalid"))
        }
    }
}

/// Errors in the shapes the spec gives them.
enum ErrorResponses {
    static func json(status: Int, _ body: Data) -> Response {
        Response(status: HTTPResponse.Status(code: status), headers: [.contentType: "application/json; charset=utf-8"],
                 body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// An error in the shape the route's spec gives it: RFC 6749 §5.2 for
    /// the OAuth2 token endpoint (a request it cannot read is
    /// `invalid_request`), Google's API error otherwise.
    static func render(_ error: APIServerError, for route: APIServerRoute) -> Response {
        guard route.errorBody == ObjectIdentifier(OAuthErrorResponse.self) else { return render(error) }
        let code = error.shortCode == APIServerError.invalidArgument.shortCode ? APIServerError.invalidRequest.shortCode : error.shortCode
        let body = OAuthErrorResponse(error: code, errorDescription: error.detail)
        return json(status: error.status, (try? JSONEncoder().encode(body)) ?? Data())
    }

    /// The API's error shape, built from the spec's generated error types.
    static func render(_ error: APIServerError) -> Response {
        let body = ErrorResponse(error: ErrorStatus(
            code: Int32(error.status), message: error.message, status: canonicalStatus(error.status),
            errors: [ErrorDetail(message: error.message, domain: "global", reason: error.reason)]
        ))
        return json(status: error.status, (try? JSONEncoder().encode(body)) ?? Data())
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
