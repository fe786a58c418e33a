import Foundation
public import HTTPTypes

/// Building a request: the production or emulator URL form, the credential
/// and the configured headers.
extension APIRequestExecutor {
    static let jsonContentType = "application/json"
    static let formContentType = "application/x-www-form-urlencoded"

    /// The request for `path` and `query`: production or emulator URL form,
    /// credential and configured headers applied.
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - path: The operation's path below the API's base URL.
    ///   - query: The query items; a nil value leaves its name out.
    ///   - hasBody: Whether a body follows (it sets `Content-Type`).
    ///   - contentType: The body's media type, when `hasBody`.
    public func makeRequest(
        _ method: HTTPRequest.Method, path: String, query: [(String, String?)], hasBody: Bool,
        contentType: String = "application/json"
    ) async throws -> HTTPRequest {
        let scheme: String
        let authority: String
        let prefix: String
        guard let production else {
            throw IdentityToolkitError.invalidRequest("the base URL is not a URL")
        }
        if let emulator = configuration.emulatorHost {
            guard HostAndPort(emulator) != nil else {
                throw IdentityToolkitError.invalidRequest("the emulator host must be HOST:PORT, such as 127.0.0.1:9099")
            }
            scheme = "http"
            authority = emulator
            prefix = servedAtEmulatorRoot ? production.path : "/" + production.host + production.path
        } else {
            scheme = production.scheme
            authority = production.authority
            prefix = production.path
        }
        var items = query.compactMap { name, value in value.map { (name, $0) } }
        var fields = configuration.headers
        switch credential {
        case .apiKeyQuery(let name, let value):
            items.append((name, value))
        case .bearer(let provider):
            let token: String
            do {
                token = try await provider()
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                throw IdentityToolkitError.accessTokenUnavailable(error)
            }
            fields[.authorization] = "Bearer \(token)"
        case .none:
            break
        }
        fields[.accept] = Self.jsonContentType
        if hasBody { fields[.contentType] = contentType }
        var fullPath = prefix + path
        if !items.isEmpty {
            fullPath += "?" + items.map { "\(Self.escapeQuery($0.0))=\(Self.escapeQuery($0.1))" }.joined(separator: "&")
        }
        return HTTPRequest(method: method, scheme: scheme, authority: authority, path: fullPath, headerFields: fields)
    }

    /// Query names and values take the same unreserved-only escaping as path segments.
    private static func escapeQuery(_ text: String) -> String {
        APIPath.escape(text)
    }
}
