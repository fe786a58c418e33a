import Foundation
import IdentityToolkit
import IdentityToolkitAsyncHTTPClient
import IdentityToolkitTestSupport
import MultiFactorAuth
import Testing

/// The SDK against servers it does not control: every call ends within its
/// deadline with a clear `AuthErrorCode`, nothing is re-sent elsewhere,
/// nothing crashes.
@Suite struct HostileServerTests {
    /// The deadline of the cases that are not about deadlines. Their servers
    /// answer at once, but on two cores beside the whole parallel suite a
    /// 2 s deadline has run out before the answer was read.
    private static let patientDeadline: Duration = .seconds(30)

    /// The deadline of the cases whose server stalls: short, so that the
    /// test proves the call ends by it.
    private static let shortDeadline: Duration = .seconds(2)

    /// An `Auth` whose requests go to `server`.
    private func auth(
        _ server: HostileHTTPServer, transport: any HTTPTransport = AsyncHTTPClientTransport(),
        timeout: Duration = patientDeadline
    ) -> Auth {
        let options = FirebaseOptions(googleAppID: "1:1:ios:1", gcmSenderID: "1")
        options.apiKey = "hostile-tests"
        options.httpTransport = transport
        options.requestTimeout = timeout
        let name = "hostile-\(UUID().uuidString)"
        FirebaseApp.configure(name: name, options: options)
        let auth = Auth(app: FirebaseApp.app(name: name)!, sessionStore: ExpiringStateAuthSessionStore())
        auth.useEmulator(withHost: "127.0.0.1", port: server.port)
        return auth
    }

    /// Runs a sign-in against a server behaving as `behaviour`; returns the
    /// error and how long the call took.
    private func signIn(
        against behaviour: HostileHTTPServer.Behaviour, transport: any HTTPTransport = AsyncHTTPClientTransport(),
        timeout: Duration = patientDeadline
    )
        async throws -> (error: AuthErrorCode?, elapsed: Duration, server: HostileHTTPServer)
    {
        let server = try await HostileHTTPServer(behaviour)
        let started = ContinuousClock.now
        do {
            _ = try await auth(server, transport: transport, timeout: timeout).signIn(
                withEmail: "ada@example.com", password: "secret-password")
            return (nil, ContinuousClock.now - started, server)
        } catch let error as AuthErrorCode {
            return (error, ContinuousClock.now - started, server)
        }
    }

    @Test(arguments: [
        ("truncated JSON", HostileHTTPServer.Behaviour.json(200, #"{"localId": "u1", "idToken": "#)),
        ("wrong types", .json(200, #"{"localId": 5, "idToken": ["a"], "refreshToken": {}}"#)),
        ("a JSON array", .json(200, "[1, 2, 3]")),
        (
            "an expiresIn past Int64",
            .json(
                200,
                #"{"localId": "u1", "idToken": "a.b.c", "refreshToken": "r", "expiresIn": "99999999999999999999999"}"#)
        ),
    ])
    func malformedSuccessBodiesAreInternalErrors(name: String, behaviour: HostileHTTPServer.Behaviour) async throws {
        let (error, _, server) = try await signIn(against: behaviour)
        #expect(error?.code == .internalError, "\(name): \(String(describing: error))")
        #expect(error?.userInfo[NSUnderlyingErrorKey] != nil, "\(name): the reason is in userInfo")
        try await server.shutdown()
    }

    @Test func errorPagesAreReportedByTheirStatus() async throws {
        let html = HostileHTTPServer.Behaviour.respond(
            status: 503, headers: [("content-type", "text/html"), ("retry-after", "120")],
            body: Array("<html><body>Service Unavailable</body></html>".utf8))
        let (error, _, server) = try await signIn(against: html)
        #expect(error?.code == .internalError)
        #expect(error?.message.contains("HTTP_503") == true, "\(String(describing: error))")
        try await server.shutdown()

        let throttled = HostileHTTPServer.Behaviour.respond(
            status: 429, headers: [("retry-after", "9223372036854775807")], body: [])
        let (limited, _, other) = try await signIn(against: throttled)
        #expect(limited?.code == .tooManyRequests, "\(String(describing: limited))")
        try await other.shutdown()

        let api429 = HostileHTTPServer.Behaviour.json(
            429, #"{"error": {"code": 429, "message": "TOO_MANY_ATTEMPTS_TRY_LATER"}}"#,
            headers: [("retry-after", "-1")])
        let (apiLimited, _, third) = try await signIn(against: api429)
        #expect(apiLimited?.code == .tooManyRequests)
        try await third.shutdown()
    }

    @Test(arguments: [
        ("headers then nothing", HostileHTTPServer.Behaviour.stallAfterHeaders),
        ("a byte at a time", .trickle(interval: .milliseconds(50))),
        ("no answer", .silent),
    ])
    func stalledAnswersEndAtTheDeadline(name: String, behaviour: HostileHTTPServer.Behaviour) async throws {
        for transport in [AsyncHTTPClientTransport() as any HTTPTransport, URLSessionTransport.shared] {
            let (error, elapsed, server) = try await signIn(
                against: behaviour, transport: transport, timeout: Self.shortDeadline)
            #expect(error?.code == .networkError, "\(name) over \(type(of: transport)): \(String(describing: error))")
            // The deadline is 2 s (a silent server would otherwise hold the
            // call forever). The bound allows for the rest of the suite: on
            // two cores its parallel tests (dozens of emulators, each making
            // an RSA key) have delayed this wall-clock measure to 17 s.
            #expect(elapsed < .seconds(30), "\(name) over \(type(of: transport)) took \(elapsed)")
            try await server.shutdown()
        }
    }

    @Test func aHugeBodyIsRefusedAtTheBound() async throws {
        let huge = HostileHTTPServer.Behaviour.respond(
            status: 200, headers: [("content-type", "application/json")],
            body: Array(repeating: UInt8(ascii: " "), count: 5 << 20))
        for transport in [AsyncHTTPClientTransport() as any HTTPTransport, URLSessionTransport.shared] {
            let (error, _, server) = try await signIn(against: huge, transport: transport)
            #expect(error?.code == .networkError, "\(type(of: transport)): \(String(describing: error))")
            try await server.shutdown()
        }
    }

    @Test func redirectsAreNotFollowedAndNothingIsResent() async throws {
        let elsewhere = try await HostileHTTPServer(.json(200, "{}"))
        for status in [301, 302, 307, 308] {
            let redirect = HostileHTTPServer.Behaviour.respond(
                status: status,
                headers: [
                    ("location", "http://\(elsewhere.hostAndPort)/identitytoolkit.googleapis.com/v1/accounts:signUp")
                ], body: [])
            for transport in [AsyncHTTPClientTransport() as any HTTPTransport, URLSessionTransport.shared] {
                let server = try await HostileHTTPServer(redirect)
                do {
                    _ = try await auth(server, transport: transport).createUser(
                        withEmail: "ada@example.com", password: "secret-password")
                    Issue.record("the sign-up succeeded through a \(status)")
                } catch let error as AuthErrorCode {
                    #expect(error.code == .internalError, "\(status) over \(type(of: transport)): \(error)")
                    #expect(error.message.contains("HTTP_\(status)"))
                }
                #expect(server.requests.count == 1)
                try await server.shutdown()
            }
        }
        #expect(elsewhere.requests.isEmpty, "the body was re-sent to \(elsewhere.requests)")
        try await elsewhere.shutdown()
    }

    @Test(arguments: [
        (2_147_483_647, 30, "SHA1"), (6, -30, "SHA1"), (6, 0, "SHA1"), (5, 30, "SHA1"), (6, 30, "MD5"),
        (9, 86_401, "SHA1"),
    ])
    func absurdTOTPParametersAreRefused(digits: Int, period: Int, algorithm: String) async throws {
        // One body that every call of the story can read its part of.
        let body =
            #"{"localId": "u", "idToken": "a.b.c", "refreshToken": "r", "expiresIn": "3600", "#
            + #""users": [{"localId": "u", "email": "a@example.com", "emailVerified": true}], "#
            + #""totpSessionInfo": {"sharedSecretKey": "JBSWY3DPEHPK3PXP", "verificationCodeLength": \#(digits), "#
            + #""periodSec": \#(period), "hashingAlgorithm": "\#(algorithm)", "sessionInfo": "s"}}"#
        let server = try await HostileHTTPServer(.json(200, body))
        let user = try await auth(server).createUser(withEmail: "a@example.com", password: "secret-password").user
        do {
            _ = try await TOTPMultiFactorGenerator.generateSecret(with: try await user.multiFactor.session())
            Issue.record("accepted \(digits) digits, \(period) s, \(algorithm)")
        } catch let error as AuthErrorCode {
            #expect(error.code == .internalError)
            #expect(error.message.contains("unsupported TOTP parameters"), "\(error)")
        }
        try await server.shutdown()
    }

    @Test func tenThousandFactorsAndATokenFromTheYear10000() async throws {
        let factors = (0..<10_000).map {
            #"{"mfaEnrollmentId": "f\#($0)", "displayName": "n", "enrolledAt": "2024-01-01T00:00:00Z", "totpInfo": {}}"#
        }
        let pending = HostileHTTPServer.Behaviour.json(
            200, #"{"localId": "u", "mfaPendingCredential": "p", "mfaInfo": [\#(factors.joined(separator: ","))]}"#)
        // A megabyte of factors, parsed by a debug build beside the whole suite.
        let (error, _, server) = try await signIn(against: pending)
        #expect(error?.code == .secondFactorRequired)
        let resolver = error?.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as? MultiFactorResolver
        #expect(resolver?.hints.count == 10_000)
        try await server.shutdown()

        // exp = the first second of the year 10000.
        let payload = Data(#"{"sub":"u","exp":253402300800,"iat":0,"auth_time":0}"#.utf8).base64EncodedString()
            .replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-").replacingOccurrences(
                of: "/", with: "_")
        let far = HostileHTTPServer.Behaviour.json(
            200, #"{"localId": "u", "idToken": "e30.\#(payload).c2ln", "refreshToken": "r", "expiresIn": "3600"}"#)
        let signIn = try await self.signIn(against: far)
        // The sign-in's follow-up lookup gets the same body: no users, so the user is incomplete but nothing traps.
        #expect(
            signIn.error == nil || signIn.error?.code == .internalError || signIn.error?.code == .userNotFound,
            "\(String(describing: signIn.error))")
        try await signIn.server.shutdown()
    }
}
