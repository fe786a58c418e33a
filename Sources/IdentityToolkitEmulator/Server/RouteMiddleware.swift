#if Emulator
import Foundation
import HTTPTypes
import Hummingbird
import IdentitySupport
import IdentityToolkit
import Logging
import NIOCore

/// An ``APIServerError`` in the body its route declares (else Google's API
/// error), as Hummingbird renders any `HTTPResponseError`.
struct RouteFailure: HTTPResponseError {
    let error: APIServerError
    /// The route's declared error body, nil for Google's API error.
    let shape: (any APIServerErrorBody.Type)?

    var status: HTTPResponse.Status { HTTPResponse.Status(code: error.status) }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        shape.map { ErrorResponses.render(error, in: $0) } ?? ErrorResponses.render(error)
    }
}

/// Turns what a route's middleware and rule throw into its answer, as
/// swift-openapi-runtime's `ErrorHandlingMiddleware` does: an
/// ``APIServerError`` in the route's error body, anything else a logged
/// 500 (its type only: an error's text may carry what the request held).
struct RouteErrorMiddleware: RouterMiddleware {
    let route: APIServerRoute
    let logger: Logger

    func handle(
        _ request: Request, context: EmulatorRequestContext,
        next: (Request, EmulatorRequestContext) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let failure as RouteFailure {
            return try failure.response(from: request, context: context)
        } catch let error as APIServerError {
            return try RouteFailure(error: error, shape: route.errorBody).response(from: request, context: context)
        } catch {
            logger.error("unexpected failure in \(route.operationID): \(type(of: error))")
            return try RouteFailure(error: .internalError, shape: route.errorBody).response(
                from: request, context: context)
        }
    }
}

/// The caller check, before a byte of the body is read: an admin route
/// needs an admin's credential (``CredentialsMiddleware`` read it), or is a
/// harness's helper call; an end-user route names an API key, as
/// production requires (an admin's call need not).
struct CallerCheckMiddleware: RouterMiddleware {
    let route: APIServerRoute

    func handle(
        _ request: Request, context: EmulatorRequestContext,
        next: (Request, EmulatorRequestContext) async throws -> Response
    ) async throws -> Response {
        switch route.authorization {
        case .bearer where !context.isAdmin:
            guard
                AdminAuthorization.isHarnessCall(
                    method: request.method, routeTemplate: route.template, headers: request.headers)
            else {
                // Google's shape, whatever the route declares: no caller got this far.
                throw RouteFailure(
                    error: .unauthenticated(
                        "this call needs 'Authorization: Bearer \(EmulatorAdminToken.owner)' or a token from the token endpoint"
                    ), shape: nil)
            }
        case .apiKey where !context.isAdmin:
            let query = RouteResponder.query(of: request)
            guard AdminAuthorization.hasAPIKey(key: query[AdminAuthorization.apiKeyQuery], headers: request.headers)
            else {
                throw APIServerError.permissionDenied("The request is missing a valid API key.")
            }
            var context = context
            context.query = query
            return try await next(request, context)
        default:
            break
        }
        return try await next(request, context)
    }
}

/// An injected fault (``FaultInjector``) answers in the route's place, delays
/// it, or spoils its `Cache-Control`.
struct FaultMiddleware: RouterMiddleware {
    let route: APIServerRoute
    let faults: FaultInjector

    func handle(
        _ request: Request, context: EmulatorRequestContext,
        next: (Request, EmulatorRequestContext) async throws -> Response
    ) async throws -> Response {
        guard let fault = faults.take(for: route.operationID) else { return try await next(request, context) }
        if let answer = try await FaultInjector.apply(fault) { return answer }
        var response = try await next(request, context)
        if fault.kind == .malformedCacheControl {
            response.headers[.cacheControl] = FaultInjector.malformedCacheControl
        }
        return response
    }
}

/// Reads the request body within the size bound and the read deadline
/// into the context, so the route gets it whole, read once (413 past the
/// bound, 408 past the deadline).
/// At the deadline the read is cancelled in the background (a stalled
/// stream need not notice cancellation).
struct BodyLimitMiddleware: RouterMiddleware {
    let maxBodyBytes: Int
    let readTimeout: Duration

    func handle(
        _ request: Request, context: EmulatorRequestContext,
        next: (Request, EmulatorRequestContext) async throws -> Response
    ) async throws -> Response {
        let limit = maxBodyBytes
        let body = request.body
        let buffer: ByteBuffer
        do {
            buffer = try await Deadline.run(within: readTimeout) { try await body.collect(upTo: limit) }
        } catch is DeadlineExceeded {
            throw APIServerError.invalidArgument("the request body did not arrive within \(readTimeout)").with(
                status: 408, reason: "invalid")
        } catch {
            throw APIServerError.invalidArgument("the request body is larger than \(limit) bytes").with(
                status: 413, reason: "invalid")
        }
        var context = context
        context.body = buffer
        return try await next(request, context)
    }
}
#endif
