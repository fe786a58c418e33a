import Foundation

/// Every error a generated client throws (besides `CancellationError`).
///
/// Descriptions never include request or response bodies, tokens or keys.
public enum IdentityToolkitError: Error, Sendable, CustomStringConvertible {
    /// The server answered with an error status and a well-formed error body.
    case server(ServerError)
    /// No response: connection failure, timeout, oversized response.
    case transport(any Error)
    /// A response arrived but its body could not be decoded.
    case undecodableResponse(status: Int, underlying: any Error)
    /// The request could not be built (bad emulator host, unencodable body).
    case invalidRequest(String)
    /// The bearer token provider failed.
    case accessTokenUnavailable(any Error)

    /// What failed: the status and server code, or the transport's reason; never a body or a token.
    public var description: String {
        switch self {
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
public protocol ServerErrorBody: Decodable, Sendable {
    /// `SHORT_CODE` or `SHORT_CODE : detail`.
    var serverMessage: String? { get }
    /// The machine-readable reasons.
    var serverReasons: [String] { get }
}

/// The response of an operation whose spec declares no body.
public struct EmptyResponse: Codable, Hashable, Sendable {
    /// The empty response.
    public init() {}
    /// Accepts any body: the operation's answer carries nothing to read.
    public init(from decoder: any Decoder) throws {}
    /// Encodes `{}`, the body Google's APIs send for an empty response.
    public func encode(to encoder: any Encoder) throws {
        _ = encoder.container(keyedBy: AnyCodingKey.self)
    }
}
