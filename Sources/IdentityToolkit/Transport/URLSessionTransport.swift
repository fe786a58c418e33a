public import Foundation
public import HTTPTypes
import HTTPTypesFoundation

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// A transport over `URLSession` (FoundationNetworking on Linux).
///
/// URLSession buffers the whole body before returning, so the size bound is
/// checked against `Content-Length` up front and the body afterwards; use
/// `AsyncHTTPClientTransport` on servers for a bound enforced while reading.
///
/// Redirects are never followed by ``shared``: Google's APIs do not send
/// them, and following one would re-send the request body (passwords,
/// tokens) to wherever it points. A 3xx answer fails the call.
public final class URLSessionTransport: HTTPTransport {
    /// A transport over an ephemeral session that follows no redirect.
    public static let shared = URLSessionTransport(session: URLSession(
        configuration: .ephemeral, delegate: RedirectRefusingDelegate(), delegateQueue: nil))

    private let session: URLSession

    /// Creates a transport over `session`. Give the session a delegate that
    /// refuses redirects (as ``shared`` has), or it follows them.
    public init(session: URLSession) {
        self.session = session
    }

    /// Sends `request` through the session, within `options`' timeout and size limit.
    public func send(_ request: HTTPRequest, body: Data?, options: TransportOptions) async throws -> (HTTPResponse, Data) {
        guard var urlRequest = URLRequest(httpRequest: request) else {
            throw TransportError.invalidRequest("the request has no valid URL")
        }
        urlRequest.httpBody = body
        urlRequest.timeoutInterval = options.timeout.timeInterval
        try Task.checkCancellation()
        let box = DataTaskBox()
        let (data, response): (Data, URLResponse) = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = session.dataTask(with: urlRequest) { data, response, error in
                    if let error {
                        continuation.resume(throwing: Self.translate(error))
                    } else if let response {
                        continuation.resume(returning: (data ?? Data(), response))
                    } else {
                        continuation.resume(throwing: TransportError.connectionFailed("no response"))
                    }
                }
                box.start(task)
            }
        } onCancel: {
            box.cancel()
        }
        guard let httpResponse = (response as? HTTPURLResponse)?.httpResponse else {
            throw TransportError.connectionFailed("the response is not HTTP")
        }
        if data.count > options.maxResponseBytes {
            throw TransportError.responseTooLarge(limit: options.maxResponseBytes)
        }
        return (httpResponse, data)
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

/// Refuses every redirect: the 3xx response is handed back as it is.
final class RedirectRefusingDelegate: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}

/// Holds a data task so that cancellation, which may arrive before the task
/// exists, reaches it.
private final class DataTaskBox: Sendable {
    private struct State {
        var task: URLSessionDataTask?
        var cancelled = false
    }

    private let state = Locked(State())

    func start(_ task: URLSessionDataTask) {
        let cancelled = state.withLock { state -> Bool in
            state.task = task
            return state.cancelled
        }
        task.resume()
        if cancelled { task.cancel() }
    }

    func cancel() {
        let task = state.withLock { state -> URLSessionDataTask? in
            state.cancelled = true
            return state.task
        }
        task?.cancel()
    }
}
