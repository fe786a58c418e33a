public import Foundation
public import HTTPTypes
public import Logging

/// Settings shared by the generated clients: where requests go, how they are
/// sent, and how long they may take.
public struct ClientConfiguration: Sendable {
    /// The environment variable that points every client at a local emulator,
    /// as Firebase's SDKs read it (`host:port`).
    public static let emulatorEnvironmentVariable = "FIREBASE_AUTH_EMULATOR_HOST"

    /// Sends the requests. ``URLSessionTransport`` by default; servers use
    /// `AsyncHTTPClientTransport` from the `IdentityToolkitAsyncHTTPClient` product.
    public var transport: any HTTPTransport

    /// `host:port` of an emulator; when set, requests go to
    /// `http://host:port/<production host>/<path>` instead of production.
    public var emulatorHost: String?

    /// Where requests go instead of the API's production base URL (such as
    /// a service account key file's `token_uri`, or a proxy); nil for production.
    /// An ``emulatorHost`` still takes precedence.
    public var baseURL: String?

    /// How long one request may take, from sending to the last response byte.
    public var requestTimeout: Duration

    /// The largest response body accepted; a larger one fails with
    /// ``TransportError/responseTooLarge(limit:)``.
    public var maxResponseBytes: Int

    /// Extra headers for every request, such as `X-Client-Version` or `X-Firebase-Locale`.
    public var headers: HTTPFields

    /// Where requests are logged (method, path, status and duration at
    /// `debug`; never a body, a query string or a token).
    public var logger: Logger

    /// Creates a configuration.
    /// - Parameters:
    ///   - transport: Sends the requests.
    ///   - emulatorHost: `host:port` of an emulator; defaults to `FIREBASE_AUTH_EMULATOR_HOST`.
    ///   - baseURL: Where requests go instead of production, such as `https://proxy.example.com`.
    ///   - requestTimeout: How long one request may take.
    ///   - maxResponseBytes: The largest response body accepted.
    ///   - headers: Extra headers for every request.
    ///   - logger: Where requests are logged.
    public init(
        transport: any HTTPTransport = URLSessionTransport.shared,
        emulatorHost: String? = ClientConfiguration.environmentEmulatorHost(),
        baseURL: String? = nil,
        requestTimeout: Duration = .seconds(30),
        maxResponseBytes: Int = 4 << 20,
        headers: HTTPFields = [:],
        logger: Logger = Logger(label: "IdentityToolkit")
    ) {
        self.transport = transport
        self.emulatorHost = emulatorHost
        self.baseURL = baseURL
        self.requestTimeout = requestTimeout
        self.maxResponseBytes = maxResponseBytes
        self.headers = headers
        self.logger = logger
    }

    /// The emulator host named by `FIREBASE_AUTH_EMULATOR_HOST`, if any.
    public static func environmentEmulatorHost(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String? {
        guard let value = environment[emulatorEnvironmentVariable], !value.isEmpty else { return nil }
        return value
    }
}

/// How a client authorises its requests; chosen by the generated client's
/// initializer from the spec's security scheme.
@_spi(Generated) public enum RequestCredential: Sendable {
    /// An API key in the query parameter `name`.
    case apiKeyQuery(name: String, value: String)
    /// An `Authorization: Bearer` token, fetched before each request.
    case bearer(@Sendable () async throws -> String)
    /// Nothing.
    case none
}
