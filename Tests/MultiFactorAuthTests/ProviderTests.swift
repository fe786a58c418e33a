import Foundation
import HTTPTypes
import IdentityToolkit
import IdentityToolkitTestSupport
import MultiFactorAuth
import Testing

/// Answers each operation by the end of its path, as a scripted backend.
actor ScriptedTransport: HTTPTransport {
    private let answers: [String: String]
    init(_ answers: [String: String]) { self.answers = answers }

    func send(_ request: HTTPRequest, body: Data?, options: TransportOptions) async throws -> (HTTPResponse, Data) {
        let path = request.path?.split(separator: "?").first.map(String.init) ?? ""
        guard let answer = answers.first(where: { path.hasSuffix($0.key) })?.value else {
            return (HTTPResponse(status: .notFound), Data(#"{"error":{"code":404,"message":"NOT_FOUND"}}"#.utf8))
        }
        return (HTTPResponse(status: .ok), Data(answer.utf8))
    }
}

/// The first factor a sign-in reports is the server's word for it, not a constant.
@Suite struct ProviderTests {
    /// An unsigned ID token whose claims name `provider` as the first factor.
    static func idToken(provider: String) throws -> String {
        let now = Int(Date().timeIntervalSince1970)
        let claims: [String: Any] = [
            "iss": "https://securetoken.google.com/p", "aud": "p", "auth_time": now, "user_id": "u1", "sub": "u1",
            "iat": now, "exp": now + 3600,
            "firebase": [
                "identities": [String: [String]](), "sign_in_provider": provider, "sign_in_second_factor": "totp",
            ] as [String: Any],
        ]
        let header = Data(#"{"alg":"none"}"#.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
        let payload = try JSONSerialization.data(withJSONObject: claims).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(
                of: "=", with: "")
        return "\(header).\(payload).c2ln"
    }

    /// A second-factor sign-in completed through the resolver reports the
    /// first factor the server recorded (it used to say `password` always).
    @Test func theResolverReportsTheServersFirstFactor() async throws {
        let token = try Self.idToken(provider: "google.com")
        let transport = ScriptedTransport([
            "accounts:signInWithPassword":
                #"{"localId":"u1","mfaPendingCredential":"pending","mfaInfo":[{"mfaEnrollmentId":"e1","displayName":"App","enrolledAt":"2026-01-01T00:00:00Z","totpInfo":{}}]}"#,
            "mfaSignIn:finalize": #"{"idToken":"\#(token)","refreshToken":"r1"}"#,
            "accounts:lookup":
                #"{"users":[{"localId":"u1","email":"ada@example.com","providerUserInfo":[{"providerId":"google.com"}],"mfaInfo":[{"mfaEnrollmentId":"e1","displayName":"App","enrolledAt":"2026-01-01T00:00:00Z","totpInfo":{}}]}]}"#,
        ])
        let options = FirebaseOptions(googleAppID: "1:1:ios:1", gcmSenderID: "1")
        options.apiKey = "k"
        options.httpTransport = transport
        let name = "provider-\(UUID().uuidString)"
        FirebaseApp.configure(name: name, options: options)
        let auth = Auth(app: try #require(FirebaseApp.app(name: name)))
        do {
            _ = try await auth.signIn(withEmail: "ada@example.com", password: "secret-pw")
            Issue.record("expected secondFactorRequired")
        } catch let error as AuthErrorCode where error.code == .secondFactorRequired {
            let resolver = try #require(error.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as? MultiFactorResolver)
            let result = try await resolver.resolveSignIn(
                with: TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: "e1", oneTimePassword: "123456"))
            #expect(result.additionalUserInfo?.providerID == "google.com")
        }
    }
}
