import Foundation
public import HTTPTypes
import IdentitySupport
import Logging

/// Builds, sends and decodes the requests of a generated client.
///
/// Hand-written and spec-agnostic: the generated methods pass it the method,
/// path, query, body and the types to decode; JSON keys and paths live only
/// in the spec and the generated code.
@_spi(Generated) public struct APIRequestExecutor: Sendable {
    /// The production base URL, such as `https://identitytoolkit.googleapis.com`.
    public let productionBaseURL: String
    /// How requests are authorised.
    public let credential: RequestCredential
    /// Transport, emulator, limits and logging.
    public let configuration: ClientConfiguration

    /// The production URL's parts, parsed once.
    let production: (scheme: String, host: String, authority: String, path: String)?
    /// Whether the API exists only in the emulator, at its root (the spec's
    /// `x-emulator-only`), rather than below `/<production host>`.
    let servedAtEmulatorRoot: Bool

    /// Creates an executor.
    /// - Parameters:
    ///   - productionBaseURL: The spec's server URL; ``ClientConfiguration/baseURL`` overrides it.
    ///   - credential: How requests are authorised.
    ///   - configuration: Transport, emulator, limits and logging.
    ///   - servedAtEmulatorRoot: Whether an emulator serves this API at its root.
    public init(
        productionBaseURL: String, credential: RequestCredential, configuration: ClientConfiguration,
        servedAtEmulatorRoot: Bool = false
    ) {
        self.productionBaseURL = productionBaseURL
        self.credential = credential
        self.configuration = configuration
        self.servedAtEmulatorRoot = servedAtEmulatorRoot
        if let components = URLComponents(string: configuration.baseURL ?? productionBaseURL),
            let host = components.host, let scheme = components.scheme
        {
            production = (scheme, host, host + (components.port.map { ":\($0)" } ?? ""), components.percentEncodedPath)
        } else {
            production = nil
        }
    }

    /// Sends a request without a body and decodes the response.
    public func send<Response: Decodable & Sendable>(
        _ method: HTTPRequest.Method, path: String, query: [(String, String?)],
        response: Response.Type, errorBody: (any ServerErrorBody.Type)?
    ) async throws -> Response {
        try await perform(method, path: path, query: query, body: nil, response: response, errorBody: errorBody).0
    }

    /// Sends a request without a body; returns the decoded response and its
    /// header fields (for operations whose spec declares response headers,
    /// such as a key endpoint's `Cache-Control`).
    public func sendReturningHeaders<Response: Decodable & Sendable>(
        _ method: HTTPRequest.Method, path: String, query: [(String, String?)],
        response: Response.Type, errorBody: (any ServerErrorBody.Type)?
    ) async throws -> (Response, HTTPFields) {
        try await perform(method, path: path, query: query, body: nil, response: response, errorBody: errorBody)
    }

    /// Sends a request without a body and returns the response's text (an
    /// operation whose success response is an HTML page); errors are read
    /// as for every other operation.
    public func sendReturningText(
        _ method: HTTPRequest.Method, path: String, query: [(String, String?)], errorBody: (any ServerErrorBody.Type)?
    ) async throws -> String {
        try await perform(method, path: path, query: query, body: nil, accept: "text/html", errorBody: errorBody) {
            data in
            String(decoding: data, as: UTF8.self)
        }.0
    }

    /// Sends a form (`application/x-www-form-urlencoded`) and returns the
    /// response's text (an operation whose success response is an HTML
    /// page, such as a form's answer); errors are read as for every other operation.
    public func sendReturningText<Body: Encodable & Sendable>(
        _ method: HTTPRequest.Method, path: String, query: [(String, String?)], formBody: Body,
        errorBody: (any ServerErrorBody.Type)?
    ) async throws -> String {
        let data = try FormBody.encode(formBody)
        return try await perform(
            method, path: path, query: query, body: data, contentType: Self.formContentType, accept: "text/html",
            errorBody: errorBody
        ) { String(decoding: $0, as: UTF8.self) }.0
    }

    /// Sends a request with a JSON body and decodes the response.
    public func send<Body: Encodable & Sendable, Response: Decodable & Sendable>(
        _ method: HTTPRequest.Method, path: String, query: [(String, String?)], body: Body,
        response: Response.Type, errorBody: (any ServerErrorBody.Type)?
    ) async throws -> Response {
        let data: Data
        do {
            data = try CanonicalJSON.encoder.encode(body)
        } catch {
            throw IdentityToolkitError.invalidRequest("cannot encode \(Body.self) as JSON")
        }
        return try await perform(method, path: path, query: query, body: data, response: response, errorBody: errorBody)
            .0
    }

    /// Sends a request with a form-encoded body (`application/x-www-form-urlencoded`,
    /// as the spec says for an OAuth2 token request) and decodes the JSON response.
    public func send<Body: Encodable & Sendable, Response: Decodable & Sendable>(
        _ method: HTTPRequest.Method, path: String, query: [(String, String?)], formBody: Body,
        response: Response.Type, errorBody: (any ServerErrorBody.Type)?
    ) async throws -> Response {
        // FormBody reports a body it cannot encode as IdentityToolkitError.invalidRequest.
        let data = try FormBody.encode(formBody)
        return try await perform(
            method, path: path, query: query, body: data, contentType: Self.formContentType, response: response,
            errorBody: errorBody
        ).0
    }

    private func perform<Response: Decodable & Sendable>(
        _ method: HTTPRequest.Method, path: String, query: [(String, String?)], body: Data?,
        contentType: String = jsonContentType,
        response: Response.Type, errorBody: (any ServerErrorBody.Type)?
    ) async throws -> (Response, HTTPFields) {
        try await perform(method, path: path, query: query, body: body, contentType: contentType, errorBody: errorBody)
        { data in
            try JSONDecoder().decode(Response.self, from: data.isEmpty ? Data("{}".utf8) : data)
        }
    }

    /// The exchange in a client span named `METHOD path` (the `Telemetry`
    /// trait), whose trace context travels in the request's header fields:
    /// attributes `http.request.method`, `server.address`, `url.path` (never
    /// the query, which may hold the API key) and `http.response.status_code`.
    private func perform<Response: Sendable>(
        _ method: HTTPRequest.Method, path: String, query: [(String, String?)], body: Data?,
        contentType: String = jsonContentType,
        accept: String = jsonContentType, errorBody: (any ServerErrorBody.Type)?, decode: (Data) throws -> Response
    ) async throws -> (Response, HTTPFields) {
        try await Telemetry.withSpan("\(method.rawValue) \(path)", kind: .client) {
            span async throws -> (Response, HTTPFields) in
            var request = try await makeRequest(
                method, path: path, query: query, hasBody: body != nil, contentType: contentType)
            request.headerFields[.accept] = accept
            for (name, value) in Telemetry.propagationFields() {
                if let name = HTTPField.Name(name) { request.headerFields[name] = value }
            }
            if span.isRecording {
                span.set("http.request.method", method.rawValue)
                span.set("server.address", request.authority ?? "")
                span.set("url.path", path)
            }
            do {
                let answer = try await exchange(
                    request, method: method, path: path, body: body, errorBody: errorBody, decode: decode)
                span.set("http.response.status_code", answer.status)
                return (answer.response, answer.fields)
            } catch let error as IdentityToolkitError {
                if let status = error.status { span.set("http.response.status_code", status) }
                span.fail(error.code.description)
                throw error
            }
        }
    }

    /// The exchange: the request, the deadline, the status, then `decode`
    /// for a success or the spec's error body for a failure.
    private func exchange<Response: Sendable>(
        _ request: HTTPRequest, method: HTTPRequest.Method, path: String, body: Data?,
        errorBody: (any ServerErrorBody.Type)?, decode: (Data) throws -> Response
    ) async throws -> (response: Response, fields: HTTPFields, status: Int) {
        // The serving request's logger, so that these lines carry its metadata.
        let logger = RequestLogger.or(configuration.logger)
        // Checked first, so that no metadata is built when no debug line is wanted.
        let logsRequests = logger.logLevel <= .debug
        // The path alone: the query may hold the API key.
        let metadata: Logger.Metadata =
            logsRequests ? ["http.method": "\(method.rawValue)", "http.path": "\(path)"] : [:]
        if logsRequests { logger.debug("sending request", metadata: metadata) }
        let started = ContinuousClock.now
        let (httpResponse, data): (HTTPResponse, Data)
        do {
            try Task.checkCancellation()
            let transport = configuration.transport
            let options = TransportOptions(
                timeout: configuration.requestTimeout, maxResponseBytes: configuration.maxResponseBytes)
            // The whole exchange, to the last response byte, within the
            // timeout: enforced here, whatever the transport does.
            (httpResponse, data) = try await Deadline.run(within: configuration.requestTimeout) {
                try await transport.send(request, body: body, options: options)
            }
            if data.count > configuration.maxResponseBytes {
                throw TransportError.responseTooLarge(limit: configuration.maxResponseBytes)
            }
        } catch is CancellationError {
            throw CancellationError()
        } catch is DeadlineExceeded {
            if logsRequests { logger.debug("request timed out", metadata: metadata) }
            throw IdentityToolkitError.transport(TransportError.timedOut)
        } catch {
            if logsRequests {
                logger.debug(
                    "request failed without a response", metadata: metadata.merging(["error": "\(error)"]) { $1 })
            }
            throw IdentityToolkitError.transport(error)
        }
        let status = httpResponse.status.code
        if logsRequests {
            var finished = metadata
            finished["http.status"] = "\(status)"
            finished["duration_ms"] = "\((ContinuousClock.now - started).timeInterval * 1000)"
            logger.debug("received response", metadata: finished)
        }

        // Google's APIs never redirect; a transport that does not follow
        // redirects hands the 3xx over, and it is refused here.
        if (300..<400).contains(status) {
            throw IdentityToolkitError.server(
                ServerError(
                    status: status,
                    message: "HTTP_\(status) : the server answered with a redirect, which is not followed"))
        }
        let decoder = JSONDecoder()
        if (200..<300).contains(status) {
            do {
                return (try decode(data), httpResponse.headerFields, status)
            } catch {
                throw IdentityToolkitError.undecodableResponse(status: status, underlying: error)
            }
        }
        guard let errorBody else {
            throw IdentityToolkitError.server(ServerError(status: status, message: "HTTP_\(status)"))
        }
        let decoded: any ServerErrorBody
        do {
            decoded = try decoder.decode(errorBody, from: data)
        } catch {
            // Not the API's error shape (a proxy's HTML page, an empty 503):
            // still an error status, reported as the status it is.
            throw IdentityToolkitError.server(
                ServerError(status: status, message: "HTTP_\(status) : \(Self.describeForeignBody(httpResponse))"))
        }
        throw IdentityToolkitError.server(
            ServerError(
                status: status, message: decoded.serverMessage ?? "HTTP_\(status)", reasons: decoded.serverReasons)
        )
    }

    /// What an error body that is not the API's JSON is, without its text
    /// (which may echo the request): its content type.
    private static func describeForeignBody(_ response: HTTPResponse) -> String {
        let contentType = response.headerFields[.contentType].map { String($0.prefix(80)) } ?? "no content type"
        return "the error body is not the API's JSON error (\(contentType))"
    }
}
