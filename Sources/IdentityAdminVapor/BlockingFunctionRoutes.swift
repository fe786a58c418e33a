#if Vapor
public import IdentityAdmin
public import Vapor

extension RoutesBuilder {
    /// Serves the blocking function `handler` at `path` (a POST, as
    /// Identity Platform calls it); bodies over 64 KB are refused (413).
    ///
    /// ```swift
    /// let beforeSignIn = BlockingFunctionHandler(auth: admin, functionURL: "https://auth.example.com/blocking/before-sign-in",
    ///                                            beforeSignIn: { event in .allow })
    /// app.post("blocking", "before-sign-in", blockingFunction: beforeSignIn)
    /// ```
    @discardableResult
    public func post(_ path: PathComponent..., blockingFunction handler: BlockingFunctionHandler) -> Route {
        on(.POST, path, body: .collect(maxSize: "64kb")) { request async -> Response in
            let body = request.body.data.map { Data(buffer: $0) } ?? Data()
            let answer = await handler.respond(to: body, contentType: request.headers.first(name: .contentType))
            var headers = HTTPHeaders()
            headers.replaceOrAdd(name: .contentType, value: BlockingFunctionAnswer.contentType)
            return Response(
                status: HTTPResponseStatus(statusCode: answer.status), headers: headers,
                body: Response.Body(data: answer.body))
        }
    }
}
#endif
