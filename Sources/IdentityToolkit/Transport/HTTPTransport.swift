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

/// Failures before a complete response arrived. A struct over a private
/// enum (as async-http-client's `HTTPClientError`), so that a transport can
/// report a new kind of failure without breaking a `switch`: compare with
/// `==`, or match by ``Code``.
public struct TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure without its details.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        fileprivate enum Base: String, Sendable, Hashable {
            case timedOut, responseTooLarge, invalidRequest, connectionFailed
        }
        fileprivate let base: Base

        /// The request took longer than its timeout.
        public static let timedOut = Code(base: .timedOut)
        /// The response body was larger than the bound.
        public static let responseTooLarge = Code(base: .responseTooLarge)
        /// The request could not be expressed for this transport.
        public static let invalidRequest = Code(base: .invalidRequest)
        /// The connection failed.
        public static let connectionFailed = Code(base: .connectionFailed)

        /// The kind's name, such as `timedOut`.
        public var description: String { base.rawValue }

        /// Matches any failure of this kind: `catch TransportError.Code.connectionFailed`.
        public static func ~= (pattern: Code, error: any Error) -> Bool {
            (error as? TransportError)?.code == pattern
        }
    }

    private enum Storage: Sendable, Hashable {
        case timedOut
        case responseTooLarge(limit: Int)
        case invalidRequest(String)
        case connectionFailed(String)
    }

    private let storage: Storage

    private init(_ storage: Storage) { self.storage = storage }

    /// The request took longer than its timeout.
    public static let timedOut = Self(.timedOut)
    /// The response body was larger than the bound.
    public static func responseTooLarge(limit: Int) -> Self { Self(.responseTooLarge(limit: limit)) }
    /// The request could not be expressed for this transport.
    public static func invalidRequest(_ reason: String) -> Self { Self(.invalidRequest(reason)) }
    /// The connection failed; the text says how (no URL, no body).
    public static func connectionFailed(_ reason: String) -> Self { Self(.connectionFailed(reason)) }

    /// The kind of failure.
    public var code: Code {
        switch storage {
        case .timedOut: return .timedOut
        case .responseTooLarge: return .responseTooLarge
        case .invalidRequest: return .invalidRequest
        case .connectionFailed: return .connectionFailed
        }
    }

    /// Matches an error equal to `pattern`: `catch TransportError.timedOut`.
    public static func ~= (pattern: Self, error: any Error) -> Bool {
        (error as? Self) == pattern
    }

    /// What failed, without the URL or the body.
    public var description: String {
        switch storage {
        case .timedOut: return "the request timed out"
        case .responseTooLarge(let limit): return "the response is larger than \(limit) bytes"
        case .invalidRequest(let reason): return "invalid request: \(reason)"
        case .connectionFailed(let reason): return "connection failed: \(reason)"
        }
    }
}
