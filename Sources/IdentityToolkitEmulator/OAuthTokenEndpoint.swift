import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import IdentityToolkit
import _CryptoExtras

/// The emulator's stand-in for `https://oauth2.googleapis.com/token`
/// (RFC 7523 JWT bearer grant), for testing service-account credentials:
/// it verifies the assertion's RS256 signature with the public key it was
/// given for the issuer, checks the claims, and issues access tokens that the
/// admin routes accept besides `owner`.
final class OAuthTokenEndpoint: Sendable {
    static let path = "/oauth2.googleapis.com/token"
    static let scope = "https://www.googleapis.com/auth/cloud-platform"
    static let lifetime: TimeInterval = 3600

    private let keys: Locked<[String: _RSA.Signing.PublicKey]>
    private let tokens = Locked<[String: Date]>([:])
    private let clock: EmulatorClock

    init(serviceAccounts: [String: String], clock: EmulatorClock) throws {
        var keys: [String: _RSA.Signing.PublicKey] = [:]
        for (email, pem) in serviceAccounts {
            keys[email] = try _RSA.Signing.PublicKey(pemRepresentation: pem)
        }
        self.keys = Locked(keys)
        self.clock = clock
    }

    /// Trusts `pem` for assertions issued by `email`.
    func register(email: String, publicKeyPEM pem: String) throws {
        let key = try _RSA.Signing.PublicKey(pemRepresentation: pem)
        keys.withLock { $0[email] = key }
    }

    /// Whether `token` is an unexpired access token this endpoint issued.
    func isValid(_ token: String) -> Bool {
        guard let expiry = tokens.current[token] else { return false }
        return clock.now < expiry
    }

    struct Failure: Error {
        var error: String
        var description: String
    }

    private struct Claims: Decodable {
        var iss: String
        var scope: String?
        var aud: String
        var iat: Int64
        var exp: Int64
    }

    /// RFC 6749 §5.1 (`expires_in` is a number).
    private struct Success: Encodable {
        var access_token: String
        var token_type = "Bearer"
        var expires_in: Int
    }

    /// RFC 6749 §5.2.
    private struct ErrorBody: Encodable {
        var error: String
        var error_description: String
    }

    /// Handles a form body `grant_type=…&assertion=…`; answers the RFC 6749 JSON.
    func respond(body: Data) -> (status: Int, json: Data) {
        let encoder = JSONEncoder()
        do {
            let token = try exchange(body: body)
            return (200, (try? encoder.encode(Success(access_token: token, expires_in: Int(Self.lifetime)))) ?? Data())
        } catch let failure as Failure {
            return (400, (try? encoder.encode(ErrorBody(error: failure.error, error_description: failure.description))) ?? Data())
        } catch {
            return (400, (try? encoder.encode(ErrorBody(error: "invalid_request", error_description: "malformed request"))) ?? Data())
        }
    }

    private func exchange(body: Data) throws -> String {
        guard let form = try? APIServerRequest.formFields(body) else {
            throw Failure(error: "invalid_request", description: "the body is not a form")
        }
        guard form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer" else {
            throw Failure(error: "unsupported_grant_type", description: "expected urn:ietf:params:oauth:grant-type:jwt-bearer")
        }
        guard let assertion = form["assertion"] else { throw Failure(error: "invalid_request", description: "missing assertion") }
        guard let jwt = JWTCompactForm(assertion),
            let header = try? JSONDecoder().decode([String: String].self, from: jwt.header),
            let claims = try? JSONDecoder().decode(Claims.self, from: jwt.payload)
        else {
            throw Failure(error: "invalid_grant", description: "the assertion is not a JWT")
        }
        guard header["alg"] == "RS256" else { throw Failure(error: "invalid_grant", description: "the assertion must be signed with RS256") }
        guard let key = keys.current[claims.iss] else { throw Failure(error: "invalid_grant", description: "unknown issuer \(claims.iss)") }
        guard key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: jwt.signature), for: jwt.signingInput, padding: .insecurePKCS1v1_5) else {
            throw Failure(error: "invalid_grant", description: "Invalid JWT Signature.")
        }
        guard claims.scope?.split(separator: " ").contains(Substring(Self.scope)) == true else {
            throw Failure(error: "invalid_scope", description: "the assertion must ask for \(Self.scope)")
        }
        guard claims.aud.hasSuffix(Self.path) || claims.aud == "https://oauth2.googleapis.com/token" else {
            throw Failure(error: "invalid_grant", description: "the audience must be the token endpoint")
        }
        let now = Int64(clock.now.timeIntervalSince1970)
        // Times from outside: compared, and subtracted only with overflow reported.
        let lifetime = claims.exp.subtractingReportingOverflow(claims.iat)
        guard claims.iat <= now + 60, claims.exp > now, !lifetime.overflow, (1...3600).contains(lifetime.partialValue) else {
            throw Failure(error: "invalid_grant", description: "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.")
        }
        let token = "emulator-" + Data.randomToken(bytes: 24)
        tokens.withLock { $0[token] = clock.now.addingTimeInterval(Self.lifetime) }
        return token
    }
}
