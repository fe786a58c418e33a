import Foundation
import HTTPTypes
import HummingbirdTesting
import IdentitySupport
import IdentityToolkit
import NIOCore

/// The generated clients' transport over HummingbirdTesting's client: in
/// the `.router` framework each request goes straight to the emulator's
/// application, no socket. The request's path and query are sent; its
/// authority is the framework's (`localhost`).
struct TestClientTransport: HTTPTransport {
    let client: any TestClientProtocol

    func send(_ request: HTTPRequest, body: Data?, options: TransportOptions) async throws -> (HTTPResponse, Data) {
        let response: TestResponse
        do {
            response = try await Deadline.run(within: options.timeout) { [client] in
                try await client.executeRequest(
                    uri: request.path ?? "/", method: request.method, headers: request.headerFields,
                    body: body.map { ByteBuffer(bytes: $0) })
            }
        } catch is DeadlineExceeded {
            throw TransportError.timedOut
        }
        guard response.body.readableBytes <= options.maxResponseBytes else {
            throw TransportError.responseTooLarge(limit: options.maxResponseBytes)
        }
        return (response.head, Data(buffer: response.body))
    }
}
