import Foundation
import HTTPTypes
import Hummingbird
import IdentitySupport
import IdentityToolkit
import Logging
import NIOCore
import NIOEmbedded
import Synchronization

@testable import IdentityToolkitEmulator

/// Hands each request to the emulator's router in this process: the
/// middleware, the route, the rule and the error rendering run as they do
/// behind a socket, without one (as HummingbirdTesting's `.router` mode
/// does). The tests whose point is the socket (body deadlines, shutdown,
/// real clients) use the running server instead.
struct InProcessTransport: HTTPTransport {
    let emulator: IdentityToolkitEmulator

    func send(_ request: HTTPRequest, body: Data?, options: TransportOptions) async throws -> (HTTPResponse, Data) {
        do {
            return try await Deadline.run(within: options.timeout) {
                try await respond(to: request, body: body, options: options)
            }
        } catch is DeadlineExceeded {
            throw TransportError.timedOut
        }
    }

    private func respond(to request: HTTPRequest, body: Data?, options: TransportOptions) async throws -> (
        HTTPResponse, Data
    ) {
        // The request keeps the authority its URL gave (the running
        // server's), so that the laptop-safety checks see what a client sends.
        var head = request
        var headers = head.headerFields
        if let body { headers[.contentLength] = String(body.count) }
        head.headerFields = headers
        let hummingbirdRequest = Request(head: head, body: RequestBody(buffer: ByteBuffer(bytes: body ?? Data())))
        let context = EmulatorRequestContext(
            source: ApplicationRequestContextSource(
                channel: NIOAsyncTestingChannel(), logger: Logger(label: "in-process")))
        let response = try await emulator.responder.respond(to: hummingbirdRequest, context: context)
        let collector = BodyCollector()
        try await response.body.write(collector)
        let data = collector.bytes.withLock { $0 }
        guard data.count <= options.maxResponseBytes else {
            throw TransportError.responseTooLarge(limit: options.maxResponseBytes)
        }
        return (response.head, data)
    }

    /// Keeps what a response body writes.
    private final class BodyCollector: ResponseBodyWriter, Sendable {
        let bytes = Mutex(Data())

        func write(_ buffer: ByteBuffer) async throws {
            bytes.withLock { $0.append(contentsOf: buffer.readableBytesView) }
        }

        func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }
}
