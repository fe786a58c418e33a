#if Hummingbird
public import Hummingbird
public import IdentityAdmin
import Foundation

extension RouterMethods {
    /// Serves the blocking function `handler` at `path` (a POST, as
    /// Identity Platform calls it); bodies over `maximumBodySize` bytes are
    /// refused (413) before they are read whole.
    ///
    /// ```swift
    /// let beforeSignIn = BlockingFunctionHandler(auth: admin, functionURL: "https://auth.example.com/blocking/before-sign-in",
    ///                                            beforeSignIn: { event in .allow })
    /// router.post("blocking/before-sign-in", blockingFunction: beforeSignIn)
    /// ```
    @discardableResult
    public func post(
        _ path: RouterPath, blockingFunction handler: BlockingFunctionHandler, maximumBodySize: Int = 64 * 1024
    ) -> Self {
        post(path) { request, _ -> Response in
            try await handler.response(to: request, maximumBodySize: maximumBodySize)
        }
    }
}

extension BlockingFunctionHandler {
    /// The answer to one Hummingbird request, for a route of the app's own
    /// (one whose handler is made after the router, when the app knows the
    /// URL it is called at); `post(_:blockingFunction:maximumBodySize:)`
    /// uses it.
    /// - Throws: Hummingbird's 413 for a body over `maximumBodySize` bytes.
    public func response(to request: Request, maximumBodySize: Int = 64 * 1024) async throws -> Response {
        let body = try await request.body.collect(upTo: maximumBodySize)
        let answer = await respond(to: Data(buffer: body), contentType: request.headers[.contentType])
        return Response(
            status: HTTPResponse.Status(code: answer.status),
            headers: [.contentType: BlockingFunctionAnswer.contentType],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
    }
}
#endif
