public import Foundation
public import HTTPTypes

/// Sends one HTTP request and returns the whole response.
///
/// Implementations honour task cancellation (throwing `CancellationError`),
/// the timeout and the response size bound in `options`, and report failures
/// with no response as ``TransportError`` or their own error types.
public protocol HTTPTransport: Sendable {
    /// Sends `request` with `body` and returns the response and its body.
    func send(_ request: HTTPRequest, body: Data?, options: TransportOptions) async throws -> (HTTPResponse, Data)
}

/// Limits for one request.
public struct TransportOptions: Sendable, Hashable {
    /// How long the request may take, to the last response byte.
    public var timeout: Duration
    /// The largest response body accepted.
    public var maxResponseBytes: Int

    /// Options with both limits given.
    public init(timeout: Duration, maxResponseBytes: Int) {
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
    }
}

/// Failures before a complete response arrived.
public enum TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The request took longer than its timeout.
    case timedOut
    /// The response body was larger than the bound.
    case responseTooLarge(limit: Int)
    /// The request could not be expressed for this transport.
    case invalidRequest(String)
    /// The connection failed; the text says how (no URL, no body).
    case connectionFailed(String)

    /// What failed, without the URL or the body.
    public var description: String {
        switch self {
        case .timedOut: return "the request timed out"
        case .responseTooLarge(let limit): return "the response is larger than \(limit) bytes"
        case .invalidRequest(let reason): return "invalid request: \(reason)"
        case .connectionFailed(let reason): return "connection failed: \(reason)"
        }
    }
}

extension Duration {
    /// The duration in seconds, as `TimeInterval`.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
