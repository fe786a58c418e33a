import Crypto
public import Foundation
import HTTPTypes
import IdentitySupport
public import IdentityToolkit
import IdentityToolkitJWT
import _CryptoExtras

/// Supplies OAuth2 access tokens for the admin API.
public protocol AdminCredential: Sendable {
    /// A current access token.
    func accessToken() async throws -> String
}

/// A fixed access token (from `gcloud auth print-access-token`, say).
public struct StaticAccessTokenCredential: AdminCredential, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    private let token: String
    /// A credential that always answers `token`.
    public init(token: String) { self.token = token }
    /// The token given at creation.
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
    /// The emulator's owner credential.
    public init() {}
    /// `owner`, which the emulator accepts for every admin call.
    public func accessToken() async throws -> String { EmulatorAdminToken.owner.rawValue }
}

/// A Google service account key file (`"type": "service_account"`): signs
/// an RS256 JWT assertion and exchanges it at the token endpoint
/// (RFC 7523) through the generated `OAuth2TokenClient`; the key file, the
/// assertion and the exchange are the shapes `Spec/oauth2.yaml` gives them.
/// The token is cached until five minutes before it expires; concurrent
/// callers share one fetch.
public final class ServiceAccountCredential: AdminCredential, CustomStringConvertible, CustomReflectable {
    /// The key file's fields that matter here (`private_key` never shown).
    public typealias Key = ServiceAccountKey

    /// The scope of the Identity Toolkit admin API.
    public static let scope = OAuthScope.cloudPlatform.rawValue
    /// Google's token endpoint.
    public static let defaultTokenEndpoint = OAuth2TokenClient.productionBaseURL + tokenPath
    /// The `type` of a service account key file.
    private static let keyFileType = "service_account"
    /// The token operation's path below the endpoint's base URL.
    private static let tokenPath = "/token"

    /// The key file's fields (its private key is never shown in descriptions).
    public let key: Key
    /// Where the assertion is exchanged (the key file's `token_uri` by default).
    public let tokenEndpoint: String
    /// Signs the assertion, and custom tokens (``BaseAuth/createCustomToken(uid:developerClaims:now:)``).
    let signer: RS256Signer
    private let client: OAuth2TokenClient
    private let now: @Sendable () -> Date
    private let cache = TokenCache()

    /// The account and the token endpoint; never the key or a token.
    public var description: String { "ServiceAccountCredential(\(key.clientEmail), token endpoint: \(tokenEndpoint))" }

    /// What `dump` and debuggers show: no private key, no cached token.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "clientEmail": key.clientEmail, "tokenEndpoint": tokenEndpoint, "privateKey": RedactedValue("present"),
            ],
            displayStyle: .class)
    }

    /// Reads a key file (at most 1 MiB; a service account's key file is
    /// about 2.3 KB, and a path to an endless stream is refused, not read).
    public convenience init(
        keyFile path: String, tokenEndpoint: String? = nil, transport: any HTTPTransport = URLSessionTransport.shared,
        now: @escaping @Sendable () -> Date = Date.init
    ) throws {
        let read: Data?
        do {
            read = try BoundedRead.contents(ofFile: path, atMost: 1 << 20)
        } catch {
            throw AdminValidationError(
                field: path,
                message: "cannot be read as a service account key file: \((error as NSError).localizedDescription)")
        }
        guard let data = read else {
            throw AdminValidationError(
                field: path, message: "holds more than 1 MiB: it is not a service account key file")
        }
        try self.init(json: data, tokenEndpoint: tokenEndpoint, transport: transport, now: now)
    }

    /// Reads a key from its JSON.
    public init(
        json: Data, tokenEndpoint: String? = nil, transport: any HTTPTransport = URLSessionTransport.shared,
        now: @escaping @Sendable () -> Date = Date.init
    ) throws {
        let kind: CredentialFileKind
        do {
            kind = try JSONDecoder().decode(CredentialFileKind.self, from: json)
            guard kind.type == Self.keyFileType else {
                throw AdminValidationError(
                    field: "keyFile", message: "has type \"\(kind.type)\", not \"\(Self.keyFileType)\"")
            }
            key = try JSONDecoder().decode(Key.self, from: json)
        } catch let error as AdminValidationError {
            throw error
        } catch {
            throw AdminValidationError(
                field: "keyFile",
                message: "is not a service account key: expected JSON with type, client_email and private_key")
        }
        do {
            signer = try RS256Signer(
                key: _RSA.Signing.PrivateKey(pemRepresentation: key.privateKey), keyID: key.privateKeyID)
        } catch {
            throw AdminValidationError(
                field: "keyFile", message: "has a private_key that is not an RSA private key in PEM form")
        }
        let endpoint = tokenEndpoint ?? key.tokenURI ?? Self.defaultTokenEndpoint
        guard endpoint.hasSuffix(Self.tokenPath), URL(string: endpoint)?.host != nil else {
            throw AdminValidationError(
                field: "tokenEndpoint", message: "must be an absolute URL ending in \(Self.tokenPath)")
        }
        self.tokenEndpoint = endpoint
        // The endpoint may be anywhere (an emulator, a proxy): its base URL
        // replaces the production one, and no emulator host applies.
        client = OAuth2TokenClient(
            configuration: ClientConfiguration(
                transport: transport, emulatorHost: nil, baseURL: String(endpoint.dropLast(Self.tokenPath.count)),
                requestTimeout: .seconds(30), maxResponseBytes: 1 << 20))
        self.now = now
    }

    /// The key file named by `GOOGLE_APPLICATION_CREDENTIALS`, read now.
    /// ``ApplicationDefaultCredential`` reads it only when a token is first
    /// needed, so that an app in emulator mode needs no key at all.
    public static func applicationDefault(
        environment: [String: String] = ProcessInfo.processInfo.environment, tokenEndpoint: String? = nil,
        transport: any HTTPTransport = URLSessionTransport.shared
    ) throws -> ServiceAccountCredential {
        let name = ApplicationDefaultCredential.environmentVariable
        guard let path = environment[name], !path.isEmpty else {
            throw AdminValidationError.missingEnvironmentVariable(name)
        }
        return try ServiceAccountCredential(keyFile: path, tokenEndpoint: tokenEndpoint, transport: transport)
    }

    /// A cached access token, exchanged again shortly before it expires; concurrent callers share one exchange.
    public func accessToken() async throws -> String {
        try await cache.token(now: now) { try await self.fetch() }
    }

    /// The signed JWT assertion (RFC 7523 §2.1); package-visible for tests.
    package func assertion() throws -> String {
        let issuedAt = Int64(now().timeIntervalSince1970)
        return try signer.sign(
            JWTBearerClaims(
                iss: key.clientEmail, scope: Self.scope, aud: tokenEndpoint, iat: issuedAt, exp: issuedAt + 3600))
    }

    private func fetch() async throws -> (String, Date) {
        let response: AccessTokenResponse
        do {
            response = try await client.requestAccessToken(
                AccessTokenRequest(grantType: OAuthGrantType.jwtBearer.rawValue, assertion: try assertion()))
        } catch let error as IdentityToolkitError {
            if let server = error.serverError {
                throw AdminError(
                    .tokenEndpointRefused,
                    detail: "HTTP \(server.status), \(server.shortCode)" + (server.detail.map { ": \($0)" } ?? ""),
                    underlying: error)
            }
            if error.code == .undecodableResponse { throw AdminError(.malformedTokenResponse, underlying: error) }
            throw AdminError(.tokenEndpointUnreachable, detail: "\(error)", underlying: error)
        }
        return (response.accessToken, now().addingTimeInterval(TimeInterval(response.expiresIn ?? 3600)))
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

    func token(now: @Sendable () -> Date, fetch: @escaping @Sendable () async throws -> (String, Date)) async throws
        -> String
    {
        if let token = token.current, token.expires.timeIntervalSince(now()) > 300 { return token.value }
        return try await fetching.value { [token] in
            let (value, expires) = try await fetch()
            token.withLock { $0 = Token(value: value, expires: expires) }
            return value
        }
    }
}

/// firebase-admin's application default credential: the service account
/// whose key file `GOOGLE_APPLICATION_CREDENTIALS` names, read when a token
/// or a custom token's signature is first needed, then kept.
///
/// In emulator mode (``IdentityAdmin/emulator(projectID:hostAndPort:transport:)``,
/// or `FIREBASE_AUTH_EMULATOR_HOST` set) the admin never asks a credential
/// for anything, so the same line serves production and the emulator:
///
/// ```swift
/// let admin = IdentityAdmin(projectID: "my-project", credential: ApplicationDefaultCredential())
/// ```
public final class ApplicationDefaultCredential: AdminCredential, Sendable {
    /// The environment variable that names the key file.
    public static let environmentVariable = "GOOGLE_APPLICATION_CREDENTIALS"

    private let environment: [String: String]
    private let tokenEndpoint: String?
    private let transport: any HTTPTransport
    private let resolved = Locked<ServiceAccountCredential?>(nil)

    /// A credential that reads `GOOGLE_APPLICATION_CREDENTIALS` from
    /// `environment` when first used.
    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment, tokenEndpoint: String? = nil,
        transport: any HTTPTransport = URLSessionTransport.shared
    ) {
        self.environment = environment
        self.tokenEndpoint = tokenEndpoint
        self.transport = transport
    }

    /// The service account, read from its key file on the first call.
    /// - Throws: ``AdminValidationError`` naming what to do when the
    ///   variable is unset or the file is not a service account key.
    public func serviceAccount() throws -> ServiceAccountCredential {
        if let account = resolved.current { return account }
        let account = try ServiceAccountCredential.applicationDefault(
            environment: environment, tokenEndpoint: tokenEndpoint, transport: transport)
        return resolved.withLock { stored in
            if let stored { return stored }
            stored = account
            return account
        }
    }

    /// The service account's access token (read from the key file first, once).
    public func accessToken() async throws -> String {
        try await serviceAccount().accessToken()
    }
}
