import Foundation

/// Every error a generated client throws (besides `CancellationError`).
///
/// Descriptions never include request or response bodies, tokens or keys.
///
/// A struct over a private enum (as async-http-client's `HTTPClientError`),
/// so that a later release can add a kind of failure without breaking a
/// `switch`. Read ``code`` and the matching property:
///
/// ```swift
/// catch let error as IdentityToolkitError where error.code == .server {
///     print(error.serverError?.shortCode ?? "")   // "INVALID_CODE"
/// }
/// ```
public struct IdentityToolkitError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure, without its details.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        fileprivate enum Base: String, Sendable, Hashable {
            case server, transport, undecodableResponse, invalidRequest, accessTokenUnavailable
        }

        fileprivate let base: Base

        /// The server answered with an error status (``IdentityToolkitError/serverError``).
        public static let server = Code(base: .server)
        /// No response: connection failure, timeout, oversized response (``IdentityToolkitError/underlyingError``).
        public static let transport = Code(base: .transport)
        /// A response arrived but its body could not be decoded.
        public static let undecodableResponse = Code(base: .undecodableResponse)
        /// The request could not be built (bad emulator host, unencodable body).
        public static let invalidRequest = Code(base: .invalidRequest)
        /// The bearer token provider failed (``IdentityToolkitError/underlyingError``).
        public static let accessTokenUnavailable = Code(base: .accessTokenUnavailable)

        /// The kind's name, such as `server`.
        public var description: String { base.rawValue }

        /// Matches any error of this kind: `catch IdentityToolkitError.Code.transport`.
        public static func ~= (pattern: Code, error: any Error) -> Bool {
            (error as? IdentityToolkitError)?.code == pattern
        }
    }

    private enum Storage: Sendable {
        case server(ServerError)
        case transport(any Error)
        case undecodableResponse(status: Int, underlying: any Error)
        case invalidRequest(String)
        case accessTokenUnavailable(any Error)
    }

    private let storage: Storage

    private init(_ storage: Storage) {
        self.storage = storage
    }

    /// The server answered with an error status and a well-formed error body.
    public static func server(_ error: ServerError) -> Self { Self(.server(error)) }
    /// No response: connection failure, timeout, oversized response.
    public static func transport(_ error: any Error) -> Self { Self(.transport(error)) }
    /// A response arrived but its body could not be decoded.
    public static func undecodableResponse(status: Int, underlying: any Error) -> Self {
        Self(.undecodableResponse(status: status, underlying: underlying))
    }
    /// The request could not be built (bad emulator host, unencodable body).
    public static func invalidRequest(_ reason: String) -> Self { Self(.invalidRequest(reason)) }
    /// The bearer token provider failed.
    public static func accessTokenUnavailable(_ error: any Error) -> Self { Self(.accessTokenUnavailable(error)) }

    /// The kind of failure.
    public var code: Code {
        switch storage {
        case .server: return .server
        case .transport: return .transport
        case .undecodableResponse: return .undecodableResponse
        case .invalidRequest: return .invalidRequest
        case .accessTokenUnavailable: return .accessTokenUnavailable
        }
    }

    /// The server's error (status, short code, detail, reasons) of a ``Code/server`` failure.
    public var serverError: ServerError? {
        if case .server(let error) = storage { return error }
        return nil
    }

    /// What failed underneath a ``Code/transport``, ``Code/undecodableResponse``
    /// or ``Code/accessTokenUnavailable`` failure.
    public var underlyingError: (any Error)? {
        switch storage {
        case .transport(let error), .undecodableResponse(_, let error), .accessTokenUnavailable(let error): return error
        case .server, .invalidRequest: return nil
        }
    }

    /// The HTTP status of a ``Code/server`` or ``Code/undecodableResponse`` failure.
    public var status: Int? {
        switch storage {
        case .server(let error): return error.status
        case .undecodableResponse(let status, _): return status
        case .transport, .invalidRequest, .accessTokenUnavailable: return nil
        }
    }

    /// What failed: the status and server code, or the transport's reason; never a body or a token.
    public var description: String {
        switch storage {
        case .server(let error): return "server error: \(error)"
        case .transport(let error): return "transport failure: \(error)"
        case .undecodableResponse(let status, let error): return "undecodable response (HTTP \(status)): \(error)"
        case .invalidRequest(let reason): return "invalid request: \(reason)"
        case .accessTokenUnavailable(let error): return "no access token: \(error)"
        }
    }
}

/// An error reported by the server:
/// `{"error": {"code": 400, "message": "SHORT_CODE : detail", "errors": [{"reason": …}]}}`.
public struct ServerError: Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status code.
    public var status: Int
    /// The short code before the first colon, such as `INVALID_CODE`.
    public var shortCode: String
    /// The text after the first colon, if any.
    public var detail: String?
    /// The `errors[].reason` values, such as `keyInvalid`.
    public var reasons: [String]

    /// Splits `message` at its first colon into short code and detail.
    public init(status: Int, message: String, reasons: [String] = []) {
        self.status = status
        self.reasons = reasons
        if let colon = message.firstIndex(of: ":") {
            shortCode = message[..<colon].trimmingCharacters(in: .whitespaces)
            let rest = message[message.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            detail = rest.isEmpty ? nil : rest
        } else {
            shortCode = message.trimmingCharacters(in: .whitespaces)
            detail = nil
        }
    }

    /// `HTTP 400 SHORT_CODE : detail (reasons: …)`.
    public var description: String {
        "HTTP \(status) \(shortCode)" + (detail.map { " : \($0)" } ?? "")
            + (reasons.isEmpty ? "" : " (reasons: \(reasons.joined(separator: ", ")))")
    }
}

/// A generated error-body type: the spec's `x-error-body` says where the
/// message and reasons are, and the generator conforms the type to this.
@_spi(Generated) public protocol ServerErrorBody: Decodable, Sendable {
    /// `SHORT_CODE` or `SHORT_CODE : detail`.
    var serverMessage: String? { get }
    /// The machine-readable reasons.
    var serverReasons: [String] { get }
}

/// The response of an operation whose spec declares no body.
@_spi(Generated) public struct EmptyResponse: Codable, Hashable, Sendable {
    /// The empty response.
    public init() {}
    /// Accepts any body: the operation's answer carries nothing to read.
    public init(from decoder: any Decoder) throws {}
    /// Encodes `{}`, the body Google's APIs send for an empty response.
    public func encode(to encoder: any Encoder) throws {
        _ = encoder.container(keyedBy: AnyCodingKey.self)
    }
}
