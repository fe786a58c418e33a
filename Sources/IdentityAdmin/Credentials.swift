import Crypto
import Foundation
import HTTPTypes
import IdentityToolkit
import _CryptoExtras

/// Supplies OAuth2 access tokens for the admin API.
public protocol AdminCredential: Sendable {
    /// A current access token.
    func accessToken() async throws -> String
}

/// A fixed access token (from `gcloud auth print-access-token`, say).
public struct StaticAccessTokenCredential: AdminCredential, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    private let token: String
    public init(token: String) { self.token = token }
    public func accessToken() async throws -> String { token }

    /// Never shows the token.
    public var description: String { "StaticAccessTokenCredential(token: <redacted>)" }
    /// The same as ``description``.
    public var debugDescription: String { description }
    /// What `dump` and debuggers show: the token redacted.
    public var customMirror: Mirror { Mirror(self, children: ["token": RedactedValue(token)], displayStyle: .struct) }
}

/// The emulator's admin credential: `Authorization: Bearer owner`.
public struct EmulatorOwnerCredential: AdminCredential {
    public init() {}
    public func accessToken() async throws -> String { "owner" }
}

/// Why a credential gave no token. Messages never include the private key
/// or a token.
public enum AdminCredentialError: Error, Sendable, Hashable, CustomStringConvertible {
    case unreadableKeyFile(path: String, reason: String)
    case malformedKeyFile(reason: String)
    case missingEnvironmentVariable(String)
    case tokenEndpoint(status: Int, error: String?, description: String?)
    case tokenEndpointUnreachable(reason: String)
    case malformedTokenResponse

    public var description: String {
        switch self {
        case .unreadableKeyFile(let path, let reason): return "cannot read the service account key file \(path): \(reason)"
        case .malformedKeyFile(let reason): return "malformed service account key: \(reason)"
        case .missingEnvironmentVariable(let name): return "\(name) is not set"
        case .tokenEndpoint(let status, let error, let description):
            return "the token endpoint refused the assertion (HTTP \(status)\(error.map { ", \($0)" } ?? "")\(description.map { ": \($0)" } ?? ""))"
        case .tokenEndpointUnreachable(let reason): return "the token endpoint is unreachable: \(reason)"
        case .malformedTokenResponse: return "the token endpoint's response has no access token"
        }
    }
}

/// A Google service account key file (`"type": "service_account"`): signs
/// an RS256 JWT assertion and exchanges it at the token endpoint
/// (RFC 7523). The token is cached until five minutes before it expires;
/// concurrent callers share one fetch.
public final class ServiceAccountCredential: AdminCredential, CustomStringConvertible, CustomReflectable {
    /// The key file's fields that matter here.
    public struct Key: Decodable, Sendable {
        public var type: String
        public var projectID: String?
        public var privateKeyID: String?
        public var clientEmail: String
        public var tokenURI: String?

        enum CodingKeys: String, CodingKey {
            case type
            case projectID = "project_id"
            case privateKeyID = "private_key_id"
            case clientEmail = "client_email"
            case tokenURI = "token_uri"
        }
    }

    /// The scope of the Identity Toolkit admin API.
    public static let scope = "https://www.googleapis.com/auth/cloud-platform"
    public static let defaultTokenEndpoint = "https://oauth2.googleapis.com/token"

    public let key: Key
    /// Where the assertion is exchanged (the key file's `token_uri` by default).
    public let tokenEndpoint: String
    private let privateKey: _RSA.Signing.PrivateKey
    private let transport: any HTTPTransport
    private let now: @Sendable () -> Date
    private let cache = TokenCache()

    /// The account and the token endpoint; never the key or a token.
    public var description: String { "ServiceAccountCredential(\(key.clientEmail), token endpoint: \(tokenEndpoint))" }

    /// What `dump` and debuggers show: no private key, no cached token.
    public var customMirror: Mirror {
        Mirror(self, children: ["clientEmail": key.clientEmail, "tokenEndpoint": tokenEndpoint, "privateKey": RedactedValue("present")],
               displayStyle: .class)
    }

    /// Reads a key file.
    public convenience init(keyFile path: String, tokenEndpoint: String? = nil, transport: any HTTPTransport = URLSessionTransport.shared,
                            now: @escaping @Sendable () -> Date = Date.init) throws {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw AdminCredentialError.unreadableKeyFile(path: path, reason: (error as NSError).localizedDescription)
        }
        try self.init(json: data, tokenEndpoint: tokenEndpoint, transport: transport, now: now)
    }

    /// Reads a key from its JSON.
    public init(json: Data, tokenEndpoint: String? = nil, transport: any HTTPTransport = URLSessionTransport.shared,
                now: @escaping @Sendable () -> Date = Date.init) throws {
        struct PrivatePart: Decodable {
            var privateKey: String
            enum CodingKeys: String, CodingKey { case privateKey = "private_key" }
        }
        do {
            key = try JSONDecoder().decode(Key.self, from: json)
        } catch {
            throw AdminCredentialError.malformedKeyFile(reason: "expected JSON with type, client_email and private_key")
        }
        guard key.type == "service_account" else {
            throw AdminCredentialError.malformedKeyFile(reason: "type is \"\(key.type)\", not \"service_account\"")
        }
        let pem: String
        do {
            pem = try JSONDecoder().decode(PrivatePart.self, from: json).privateKey
        } catch {
            throw AdminCredentialError.malformedKeyFile(reason: "private_key is missing")
        }
        do {
            privateKey = try _RSA.Signing.PrivateKey(pemRepresentation: pem)
        } catch {
            throw AdminCredentialError.malformedKeyFile(reason: "private_key is not an RSA private key in PEM form")
        }
        self.tokenEndpoint = tokenEndpoint ?? key.tokenURI ?? Self.defaultTokenEndpoint
        self.transport = transport
        self.now = now
    }

    /// The key file named by `GOOGLE_APPLICATION_CREDENTIALS`.
    public static func applicationDefault(
        environment: [String: String] = ProcessInfo.processInfo.environment, tokenEndpoint: String? = nil,
        transport: any HTTPTransport = URLSessionTransport.shared
    ) throws -> ServiceAccountCredential {
        guard let path = environment["GOOGLE_APPLICATION_CREDENTIALS"], !path.isEmpty else {
            throw AdminCredentialError.missingEnvironmentVariable("GOOGLE_APPLICATION_CREDENTIALS")
        }
        return try ServiceAccountCredential(keyFile: path, tokenEndpoint: tokenEndpoint, transport: transport)
    }

    public func accessToken() async throws -> String {
        try await cache.token(now: now) { try await self.fetch() }
    }

    /// The signed JWT assertion (RFC 7523 §2.1); package-visible for tests.
    package func assertion() throws -> String {
        let issuedAt = Int64(now().timeIntervalSince1970)
        var header = ["alg": "RS256", "typ": "JWT"]
        if let id = key.privateKeyID { header["kid"] = id }
        let claims: [String: JSONScalar] = [
            "iss": .string(key.clientEmail), "scope": .string(Self.scope), "aud": .string(tokenEndpoint),
            "iat": .integer(issuedAt), "exp": .integer(issuedAt + 3600),
        ]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let input = try encoder.encode(header).base64URLEncoded + "." + encoder.encode(claims).base64URLEncoded
        let signature = try privateKey.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5)
        return input + "." + signature.rawRepresentation.base64URLEncoded
    }

    private struct TokenResponse: Decodable {
        var accessToken: String?
        var expiresIn: Int?
        var error: String?
        var errorDescription: String?

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case expiresIn = "expires_in"
            case error
            case errorDescription = "error_description"
        }
    }

    private func fetch() async throws -> (String, Date) {
        guard let url = URL(string: tokenEndpoint) else { throw AdminCredentialError.tokenEndpointUnreachable(reason: "the endpoint is not a URL") }
        var request = HTTPRequest(method: .post, scheme: nil, authority: nil, path: nil)
        request.url = url
        request.headerFields[.contentType] = "application/x-www-form-urlencoded"
        request.headerFields[.accept] = "application/json"
        let body = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(try assertion())"
        let (response, data): (HTTPResponse, Data)
        do {
            (response, data) = try await transport.send(request, body: Data(body.utf8), options: TransportOptions(timeout: .seconds(30), maxResponseBytes: 1 << 20))
        } catch {
            throw AdminCredentialError.tokenEndpointUnreachable(reason: "\(error)")
        }
        let decoded = try? JSONDecoder().decode(TokenResponse.self, from: data)
        guard response.status.kind == .successful else {
            throw AdminCredentialError.tokenEndpoint(status: response.status.code, error: decoded?.error, description: decoded?.errorDescription)
        }
        guard let token = decoded?.accessToken else { throw AdminCredentialError.malformedTokenResponse }
        return (token, now().addingTimeInterval(TimeInterval(decoded?.expiresIn ?? 3600)))
    }
}

/// Holds an access token until five minutes before it expires; concurrent
/// callers await one fetch.
final class TokenCache: Sendable {
    private struct Token {
        var value: String
        var expires: Date
    }

    private let token = Locked<Token?>(nil)
    private let fetching = SharedFetch<String>()

    func token(now: @Sendable () -> Date, fetch: @escaping @Sendable () async throws -> (String, Date)) async throws -> String {
        if let token = token.current, token.expires.timeIntervalSince(now()) > 300 { return token.value }
        return try await fetching.value { [token] in
            let (value, expires) = try await fetch()
            token.withLock { $0 = Token(value: value, expires: expires) }
            return value
        }
    }
}

/// A JSON scalar for the JWT claims.
enum JSONScalar: Encodable {
    case string(String)
    case integer(Int64)

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        }
    }
}
