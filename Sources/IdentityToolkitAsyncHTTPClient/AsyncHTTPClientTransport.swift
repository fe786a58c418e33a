#if AsyncHTTPClient
public import AsyncHTTPClient
public import Foundation
public import HTTPTypes
public import IdentityToolkit
import IdentitySupport
import NIOCore
import NIOHTTP1

/// A transport over AsyncHTTPClient: the default for servers. The response
/// size bound is enforced while the body streams in.
///
/// Redirects are never followed: Google's APIs do not send them, and
/// following one would re-send the request body (passwords, tokens) to
/// wherever the redirect points. A 3xx answer reaches the client as it is
/// and fails the call.
public struct AsyncHTTPClientTransport: HTTPTransport {
    private let client: HTTPClient

    /// The process-wide client of ``init(client:)``'s default: like
    /// `HTTPClient.shared` (retrying connection establishment), but with
    /// redirects disallowed. It lives as long as the process.
    public static let sharedClient = HTTPClient(
        eventLoopGroupProvider: .singleton,
        configuration: {
            var configuration = HTTPClient.Configuration()
            configuration.redirectConfiguration = .disallow
            return configuration
        }())

    /// Creates a transport over `client` (by default ``sharedClient``, which
    /// follows no redirect). A client of your own should disallow redirects
    /// too (`HTTPClient.Configuration.redirectConfiguration = .disallow`).
    public init(client: HTTPClient = AsyncHTTPClientTransport.sharedClient) {
        self.client = client
    }

    /// A transport whose requests fail as soon as a connection cannot be
    /// established, for command-line tools and a local emulator.
    ///
    /// `HTTPClient.shared` retries connection establishment with backoff until
    /// the request's deadline, which rides out flaky networks on a server but
    /// makes a stopped emulator look like a 30-second hang. This transport's
    /// client does not retry; like `HTTPClient.shared`, it lives as long as
    /// the process.
    public static let failingFast = AsyncHTTPClientTransport(
        client: HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: {
                var configuration = HTTPClient.Configuration()
                configuration.connectionPool.retryConnectionEstablishment = false
                configuration.redirectConfiguration = .disallow
                return configuration
            }()
        ))

    /// Sends `request` through the client, within `options`' timeout and size limit.
    ///
    /// The timeout is one deadline over the whole exchange: AsyncHTTPClient's
    /// own deadline does not cover a body that trickles in after the
    /// headers, so the transport enforces it too.
    public func send(_ request: HTTPRequest, body: Data?, options: TransportOptions) async throws -> (
        HTTPResponse, Data
    ) {
        do {
            return try await Deadline.run(within: options.timeout) {
                try await self.exchange(request, body: body, options: options)
            }
        } catch is DeadlineExceeded {
            throw TransportError.timedOut
        }
    }

    private func exchange(_ request: HTTPRequest, body: Data?, options: TransportOptions) async throws -> (
        HTTPResponse, Data
    ) {
        guard let url = request.url else {
            throw TransportError.invalidRequest("the request has no valid URL")
        }
        var outgoing = HTTPClientRequest(url: url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
        for field in request.headerFields {
            outgoing.headers.add(name: field.name.rawName, value: field.value)
        }
        if let body {
            outgoing.body = .bytes(ByteBuffer(bytes: body))
        }
        let (seconds, attoseconds) = options.timeout.components
        let timeout = TimeAmount.nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        let deadline = NIODeadline.now() + timeout
        do {
            let response = try await client.execute(outgoing, deadline: deadline)
            let buffer = try await response.body.collect(upTo: options.maxResponseBytes)
            var fields = HTTPFields()
            for (name, value) in response.headers {
                if let fieldName = HTTPField.Name(name) { fields.append(HTTPField(name: fieldName, value: value)) }
            }
            let status = HTTPResponse.Status(
                code: Int(response.status.code), reasonPhrase: response.status.reasonPhrase)
            return (HTTPResponse(status: status, headerFields: fields), Data(buffer.readableBytesView))
        } catch is NIOTooManyBytesError {
            throw TransportError.responseTooLarge(limit: options.maxResponseBytes)
        } catch let error as HTTPClientError {
            if error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
                throw TransportError.timedOut
            }
            if error == .cancelled { throw CancellationError() }
            throw TransportError.connectionFailed(String(describing: error))
        }
    }
}
#endif
