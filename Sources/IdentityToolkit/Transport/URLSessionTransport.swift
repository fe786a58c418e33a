public import Foundation
public import HTTPTypes
import HTTPTypesFoundation
import IdentitySupport

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// A transport over `URLSession` (FoundationNetworking on Linux), for apps
/// and tools; servers use `AsyncHTTPClientTransport` from the
/// `IdentityToolkitAsyncHTTPClient` product (connection pooling on SwiftNIO).
///
/// The transport owns its session and is that session's delegate, so that:
/// - the size bound holds while the response arrives: a `Content-Length`
///   above ``TransportOptions/maxResponseBytes`` is refused before any of
///   the body is read, and a body without one is cut off at the bound;
/// - redirects are never followed: Google's APIs do not send them, and
///   following one would re-send the request body (passwords, tokens) to
///   wherever it points. A 3xx answer is handed back and fails the call.
public final class URLSessionTransport: HTTPTransport {
    /// A transport over an ephemeral session.
    public static let shared = URLSessionTransport()

    private let session: URLSession
    private let delegate: StreamingDelegate

    /// A transport over a new session with `configuration` (its own
    /// delegate refuses redirects and bounds responses).
    public init(configuration: URLSessionConfiguration = .ephemeral) {
        let delegate = StreamingDelegate()
        self.delegate = delegate
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    /// Sends `request` through the session, within `options`' timeout and size limit.
    ///
    /// The timeout is one deadline over the whole exchange (connecting,
    /// the status line, the headers and the last byte of the body):
    /// `URLRequest.timeoutInterval` alone is an idle timeout that restarts
    /// with every byte, so a peer that sends one byte every few seconds
    /// would hold the caller for as long as it likes.
    public func send(_ request: HTTPRequest, body: Data?, options: TransportOptions) async throws -> (
        HTTPResponse, Data
    ) {
        guard var urlRequest = URLRequest(httpRequest: request) else {
            throw TransportError.invalidRequest("the request has no valid URL")
        }
        urlRequest.httpBody = body
        urlRequest.timeoutInterval = options.timeout.timeInterval
        try Task.checkCancellation()
        let exchangeRequest = urlRequest
        do {
            return try await Deadline.run(within: options.timeout) {
                try await self.exchange(exchangeRequest, limit: options.maxResponseBytes)
            }
        } catch is DeadlineExceeded {
            throw TransportError.timedOut
        }
    }

    /// One exchange on the session, cancelled with the calling task.
    private func exchange(_ urlRequest: URLRequest, limit: Int) async throws -> (HTTPResponse, Data) {
        let task = session.dataTask(with: urlRequest)
        let (data, response): (Data, URLResponse) = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                delegate.register(task, limit: limit, continuation: continuation)
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
        guard let httpResponse = (response as? HTTPURLResponse)?.httpResponse else {
            throw TransportError.connectionFailed("the response is not HTTP")
        }
        return (httpResponse, data)
    }
}

/// The session's delegate: collects each task's body within its bound and
/// resumes its continuation exactly once; refuses every redirect.
private final class StreamingDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private struct Exchange {
        var continuation: CheckedContinuation<(Data, URLResponse), any Error>
        var limit: Int
        var data = Data()
        var response: URLResponse?
        /// Set when the bound was crossed: the task is cancelled and this is the outcome.
        var failure: (any Error)?
    }

    private let exchanges = Locked<[Int: Exchange]>([:])

    func register(_ task: URLSessionTask, limit: Int, continuation: CheckedContinuation<(Data, URLResponse), any Error>)
    {
        exchanges.withLock { $0[task.taskIdentifier] = Exchange(continuation: continuation, limit: limit) }
    }

    /// Marks the exchange failed and cancels its task; the completion callback resumes the caller.
    private func refuse(_ task: URLSessionTask, _ error: any Error) {
        exchanges.withLock { $0[task.taskIdentifier]?.failure = error }
        task.cancel()
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let limit = exchanges.withLock { exchanges -> Int? in
            exchanges[dataTask.taskIdentifier]?.response = response
            return exchanges[dataTask.taskIdentifier]?.limit
        }
        // The declared length is known before any of the body is read.
        if let limit, response.expectedContentLength > Int64(limit) {
            // FoundationNetworking finishes a task refused with `.cancel`
            // only at its timeout; cancelling the task ends it at once.
            completionHandler(.cancel)
            refuse(dataTask, TransportError.responseTooLarge(limit: limit))
            return
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let overLimit = exchanges.withLock { exchanges -> Int? in
            guard var exchange = exchanges[dataTask.taskIdentifier], exchange.failure == nil else { return nil }
            guard exchange.data.count + data.count <= exchange.limit else { return exchange.limit }
            exchange.data.append(data)
            exchanges[dataTask.taskIdentifier] = exchange
            return nil
        }
        // No declared length, or a wrong one: reading stops at the bound.
        if let overLimit { refuse(dataTask, TransportError.responseTooLarge(limit: overLimit)) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let exchange = exchanges.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let failure = exchange.failure {
            exchange.continuation.resume(throwing: failure)
        } else if let error {
            exchange.continuation.resume(throwing: Self.translate(error))
        } else if let response = exchange.response {
            exchange.continuation.resume(returning: (exchange.data, response))
        } else {
            exchange.continuation.resume(throwing: TransportError.connectionFailed("no response"))
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    private static func translate(_ error: any Error) -> any Error {
        guard let urlError = error as? URLError else { return error }
        switch urlError.code {
        case .cancelled: return CancellationError()
        case .timedOut: return TransportError.timedOut
        default: return TransportError.connectionFailed("URLError \(urlError.code.rawValue)")
        }
    }
}
