#if Emulator
import Foundation
public import HTTPTypes
public import HummingbirdTesting
import IdentitySupport
public import IdentityToolkit
public import IdentityToolkitEmulator
import NIOCore

/// The generated clients' transport over HummingbirdTesting's client: in
/// the `.router` framework each request goes straight to the emulator's
/// application, no socket. The request's path and query are sent; its
/// authority is the framework's (`localhost`).
public struct TestClientTransport: HTTPTransport {
    let client: any TestClientProtocol

    public init(client: any TestClientProtocol) { self.client = client }

    public func send(_ request: HTTPRequest, body: Data?, options: TransportOptions) async throws -> (
        HTTPResponse, Data
    ) {
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

extension IdentityToolkitEmulator {
    /// Runs `body` with a transport that hands each request to this
    /// emulator's application in process (HummingbirdTesting's `.router`
    /// framework: no socket; the middleware, routes and rules run as behind
    /// one). Clients built on it may name any emulator host: no request
    /// leaves the process.
    public func inProcess<Value: Sendable>(_ body: @Sendable (TestClientTransport) async throws -> Value)
        async throws -> Value
    {
        try await buildApplication().test(.router) { client in try await body(TestClientTransport(client: client)) }
    }

    /// The host clients of ``inProcess(_:)`` name (nothing listens there).
    public static let inProcessHost = "127.0.0.1"
    /// The port clients of ``inProcess(_:)`` name: the default port, where nothing need listen.
    public static let inProcessPort = EmulatorConfiguration.defaultPort
    /// The `HOST:PORT` clients of ``inProcess(_:)`` name.
    public static let inProcessHostAndPort = "\(inProcessHost):\(inProcessPort)"
}
#endif
