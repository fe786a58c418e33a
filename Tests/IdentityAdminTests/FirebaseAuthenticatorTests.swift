import AdminTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdAuth
import HummingbirdTesting
import IdentityAdmin
import IdentityAdminHummingbird
import IdentityOTP
import IdentityToolkit
import IdentityToolkitTestSupport
import Logging
import Testing

/// The Hummingbird middleware against the emulator's real tokens: every
/// refusal has its status and reason, and nothing of a credential reaches
/// an answer or a log.
@Suite struct FirebaseAuthenticatorTests {
    typealias Context = BasicAuthRequestContext<DecodedIDToken>

    /// An app whose `/me` answers the verified uid and second factor, behind
    /// the middleware with `options`; its logs go to `records`.
    static func app(_ auth: BaseAuth, _ options: FirebaseAuthenticator<Context>.Options, records: LogRecords)
        -> some ApplicationProtocol
    {
        let router = Router(context: Context.self)
        router.add(middleware: FirebaseAuthenticator(auth, options: options))
        router.get("me") { _, context in
            guard let token = context.identity else { return "anonymous" }
            return "\(token.uid) \(token.signInSecondFactor ?? "none")"
        }
        var logger = Logger(label: "app") { _ in CapturingLogHandler(records: records) }
        logger.logLevel = .trace
        return Application(router: router, logger: logger)
    }

    /// The reason in a refusal's JSON body.
    static func reason(_ response: TestResponse) throws -> String? {
        let body = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: [String: String]]
        return body?["error"]?["reason"]
    }

    /// `token` with one character of its signature changed (still strict base64url).
    static func withAnotherSignature(_ token: String) -> String {
        var characters = Array(token)
        let middle = characters.count - 100
        characters[middle] = characters[middle] == "A" ? "B" : "A"
        return String(characters)
    }

    static func bearer(_ token: String) -> HTTPFields { [.authorization: "Bearer \(token)"] }

    /// Behind the middleware, security events carry the request's id and
    /// `User-Agent` (cut to a bound); a context the app set first is kept.
    @Test func securityEventsCarryTheRequestsFacts() async throws {
        try await EmulatorSetup.with(project: "demo-event-context") { setup in
            let tokens = try await MiddlewareTokens.make(setup)
            let router = Router(context: Context.self)
            let protected = router.group("api").add(middleware: FirebaseAuthenticator(setup.admin))
            protected.get("facts") { _, _ in
                let facts = SecurityEventContext.current
                return "\(facts?.requestID?.isEmpty == false) \(facts?.userAgent ?? "-")"
            }
            let appFirst = router.group("app")
                .add(middleware: SetsEventContext())
                .add(middleware: FirebaseAuthenticator(setup.admin))
            appFirst.get("facts") { _, _ in SecurityEventContext.current?.clientAddress ?? "-" }
            try await Application(router: router).test(.router) { client in
                var headers = Self.bearer(tokens.password)
                headers[.userAgent] = "tests-agent"
                let response = try await client.execute(uri: "/api/facts", method: .get, headers: headers)
                #expect(String(buffer: response.body) == "true tests-agent")
                headers[.userAgent] = String(repeating: "a", count: 5000)
                let long = try await client.execute(uri: "/api/facts", method: .get, headers: headers)
                #expect(
                    String(buffer: long.body) == "true "
                        + String(repeating: "a", count: SecurityEventContext.maximumLength)
                )
                let kept = try await client.execute(uri: "/app/facts", method: .get, headers: headers)
                #expect(String(buffer: kept.body) == "203.0.113.9")
            }
        }
    }

    /// An app's own middleware that vouches for the client's address.
    struct SetsEventContext: RouterMiddleware {
        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
            async throws -> Response
        {
            try await SecurityEventContext.withValue(SecurityEventContext(clientAddress: "203.0.113.9")) {
                try await next(request, context)
            }
        }
    }

    /// The package's lines for a request (the revocation check's REST call,
    /// a recovery refused in the handler) go to that request's logger, with
    /// the metadata Hummingbird put there, not to the admin's own logger.
    @Test func linesForARequestCarryItsMetadata() async throws {
        try await EmulatorSetup.with(project: "demo-request-logs") { setup in
            let tokens = try await MiddlewareTokens.make(setup)
            let records = LogRecords()
            let router = Router(context: Context.self)
            let recovery = AccountRecovery(
                admin: setup.admin,
                redeemer: RecoveryCodeRedeemer(
                    store: ExpiringStateRecoveryCodeStore(), attemptStore: ExpiringStateTOTPVerificationStore()))
            _ = try await recovery.issueCodes(for: tokens.uid)
            router.group("api")
                .add(middleware: FirebaseAuthenticator(setup.admin, options: .init(checkRevoked: true)))
                .get("recover") { _, context in
                    let token = try context.requireIdentity()
                    let proof = FirstFactorProof(uid: token.uid, checkedAt: Date())
                    return (try? await recovery.recover(proof, code: "AAAA-BBBB-CCCC")) == nil ? "refused" : "recovered"
                }
            var logger = Logger(label: "app") { _ in CapturingLogHandler(records: records) }
            logger.logLevel = .debug
            try await Application(router: router, logger: logger).test(.router) { client in
                let response = try await client.execute(
                    uri: "/api/recover", method: .get, headers: Self.bearer(tokens.password))
                #expect(String(buffer: response.body) == "refused")
            }
            let lines = records.lines
            let lookup = lines.first { $0.contains("sending request") && $0.contains("accounts:lookup") }
            let refused = lines.first { $0.contains("recovery code refused") }
            #expect(lookup?.contains("hb.request.id") == true, "\(lines)")
            #expect(refused?.contains("hb.request.id") == true, "\(lines)")
            #expect(!lines.joined().contains(tokens.password))
        }
    }

    /// A token of another project is refused with a debug line that names
    /// the project the server expects and the one the token names.
    @Test func aWrongAudienceRefusalLogsBothProjects() async throws {
        try await EmulatorSetup.with(project: "demo-audience") { setup in
            let tokens = try await MiddlewareTokens.make(setup)
            let otherProject = IdentityAdmin.emulator(
                projectID: "demo-elsewhere", hostAndPort: setup.hostAndPort, transport: setup.transport)
            let records = LogRecords()
            let router = Router(context: Context.self)
            router.group("api").add(middleware: FirebaseAuthenticator(otherProject)).get("me") { _, context in
                try context.requireIdentity().uid
            }
            var logger = Logger(label: "app") { _ in CapturingLogHandler(records: records) }
            logger.logLevel = .debug
            try await Application(router: router, logger: logger).test(.router) { client in
                let response = try await client.execute(uri: "/api/me", method: .get, headers: Self.bearer(tokens.totp))
                #expect(response.status == .unauthorized)
            }
            let refused = records.lines.first { $0.contains("request refused") }
            #expect(
                refused?.contains("wrongAudience") == true
                    && refused?.contains("\"expected_project\": demo-elsewhere") == true
                    && refused?.contains("\"received_project\": demo-audience") == true, "\(records.lines)")
            #expect(!records.lines.joined().contains(tokens.totp))
        }
    }

    @Test func refusalsHaveTheirStatusAndReasonAndNoCredential() async throws {
        try await EmulatorSetup.with(project: "demo-middleware") { setup in
            let tokens = try await MiddlewareTokens.make(setup)
            let garbage = "not.a-token.at-all"
            let records = LogRecords()
            let answers = LogRecords() // the refusals' bodies

            // The defaults: a bearer token, required; no revocation or second-factor check.
            try await Self.app(setup.admin, .init(), records: records).test(.router) { client in
                let missing = try await client.execute(uri: "/me", method: .get)
                #expect(missing.status == .unauthorized)
                #expect(try Self.reason(missing) == "missing")
                #expect(missing.headers[.wwwAuthenticate] == "Bearer")
                let otherScheme = try await client.execute(
                    uri: "/me", method: .get, headers: [.authorization: "Basic YTpi"])
                #expect(try Self.reason(otherScheme) == "missing")

                for (token, reason) in [
                    (garbage, "malformed"), (tokens.expired, "expired"),
                    (Self.withAnotherSignature(tokens.password), "badSignature"),
                ] {
                    let refused = try await client.execute(uri: "/me", method: .get, headers: Self.bearer(token))
                    #expect(refused.status == .unauthorized, "\(reason)")
                    #expect(try Self.reason(refused) == reason, "\(String(buffer: refused.body))")
                    #expect(refused.headers[.wwwAuthenticate] == "Bearer error=\"invalid_token\"")
                    #expect(refused.headers[.cacheControl] == "no-store")
                    answers.append(String(buffer: refused.body))
                }
                let accepted = try await client.execute(uri: "/me", method: .get, headers: Self.bearer(tokens.password))
                #expect(accepted.status == .ok)
                #expect(String(buffer: accepted.body) == "\(tokens.uid) none")
                let withTOTP = try await client.execute(uri: "/me", method: .get, headers: Self.bearer(tokens.totp))
                #expect(String(buffer: withTOTP.body) == "\(tokens.uid) totp")
            }

            // A second factor required: a password-only sign-in is valid but not
            // enough, and the answer is a step-up challenge (RFC 9470).
            try await Self.app(setup.admin, .init(requireSecondFactor: true), records: records).test(.router) {
                client in
                let passwordOnly = try await client.execute(
                    uri: "/me", method: .get, headers: Self.bearer(tokens.password))
                #expect(passwordOnly.status == .unauthorized)
                #expect(try Self.reason(passwordOnly) == "secondFactorRequired")
                #expect(
                    passwordOnly.headers[.wwwAuthenticate]
                        == #"Bearer error="insufficient_user_authentication", error_description="a sign-in with the second factor is required", acr_values="firebase_second_factor""#
                )
                answers.append(String(buffer: passwordOnly.body))
                let withTOTP = try await client.execute(uri: "/me", method: .get, headers: Self.bearer(tokens.totp))
                #expect(withTOTP.status == .ok)
            }

            // One tenant's users only: the project's user is forbidden.
            let tenantAuth = setup.admin.tenantManager().authForTenant("shop-1")
            try await Self.app(tenantAuth, .init(), records: records).test(.router) { client in
                let otherRealm = try await client.execute(uri: "/me", method: .get, headers: Self.bearer(tokens.totp))
                #expect(otherRealm.status == .forbidden)
                #expect(try Self.reason(otherRealm) == "tenantMismatch")
                answers.append(String(buffer: otherRealm.body))
            }

            // Revocation checked: after the admin ends the sessions the token is refused.
            try await Self.app(setup.admin, .init(checkRevoked: true), records: records).test(.router) { client in
                #expect(
                    try await client.execute(uri: "/me", method: .get, headers: Self.bearer(tokens.totp)).status == .ok)
                let signedInAt = try await setup.admin.verifyIDToken(tokens.totp).authTime
                try await setup.admin.revokeRefreshTokens(uid: tokens.uid, now: signedInAt.addingTimeInterval(1))
                let revoked = try await client.execute(uri: "/me", method: .get, headers: Self.bearer(tokens.totp))
                #expect(revoked.status == .unauthorized)
                #expect(try Self.reason(revoked) == "revoked")
                answers.append(String(buffer: revoked.body))
            }

            let secrets = [tokens.password, tokens.totp, tokens.expired, garbage]
            for text in answers.lines + records.lines {
                for secret in secrets { #expect(!text.contains(secret), "a credential in \(text.prefix(80))…") }
                // Nor any of a token's three parts.
                for part in secrets.flatMap({ $0.split(separator: ".") }) where part.count > 8 {
                    #expect(!text.contains(part))
                }
            }
            #expect(records.lines.contains { $0.contains("request refused") && $0.contains("secondFactorRequired") })
        }
    }

    @Test func sessionCookiesAndOptionalCredentials() async throws {
        try await EmulatorSetup.with(project: "demo-middleware-cookie") { setup in
            let tokens = try await MiddlewareTokens.make(setup)
            let cookie = try await setup.admin.createSessionCookie(tokens.totp, expiresIn: .seconds(3600))
            let records = LogRecords()

            try await Self.app(setup.admin, .init(credential: .sessionCookie(named: "__session")), records: records)
                .test(
                    .router
                ) { client in
                    let fromCookie = try await client.execute(
                        uri: "/me", method: .get, headers: [.cookie: "theme=dark; __session=\(cookie)"])
                    #expect(fromCookie.status == .ok)
                    #expect(String(buffer: fromCookie.body) == "\(tokens.uid) totp")
                    // An ID token is not a session cookie, and a bearer header is not read.
                    let idTokenAsCookie = try await client.execute(
                        uri: "/me", method: .get, headers: [.cookie: "__session=\(tokens.totp)"])
                    #expect(idTokenAsCookie.status == .unauthorized)
                    let bearerOnly = try await client.execute(
                        uri: "/me", method: .get, headers: Self.bearer(tokens.totp))
                    #expect(try Self.reason(bearerOnly) == "missing")
                    #expect(bearerOnly.headers[.wwwAuthenticate] == nil)
                }

            let either = FirebaseAuthenticator<Context>.Options(
                credential: .bearerTokenOrSessionCookie(), requireCredential: false)
            try await Self.app(setup.admin, either, records: records).test(.router) { client in
                #expect(String(buffer: try await client.execute(uri: "/me", method: .get).body) == "anonymous")
                let fromBearer = try await client.execute(
                    uri: "/me", method: .get, headers: Self.bearer(tokens.password))
                #expect(String(buffer: fromBearer.body) == "\(tokens.uid) none")
                let fromCookie = try await client.execute(
                    uri: "/me", method: .get, headers: [.cookie: "session=\(cookie)"])
                #expect(String(buffer: fromCookie.body) == "\(tokens.uid) totp")
                // A credential that is present and fails is refused even when none is required.
                let expired = try await client.execute(uri: "/me", method: .get, headers: Self.bearer(tokens.expired))
                #expect(expired.status == .unauthorized)
                #expect(try Self.reason(expired) == "expired")
            }
            for line in records.lines { #expect(!line.contains(cookie) && !line.contains(tokens.totp)) }
        }
    }

    /// RFC 6750 §2.1: the scheme in any case, then spaces, then one non-empty token.
    @Test(
        arguments: [
            ("Bearer abc.def", "abc.def"), ("bearer abc", "abc"), ("BEARER   abc", "abc"), ("Bearer", nil),
            ("Bearer ", nil),
            ("Bearerabc", nil), ("Basic abc", nil), ("Bearer a b", nil), ("", nil), ("Bearer\tabc", nil),
            ("Bearer abc ", nil), ("Bearer    ", nil), ("Beare abc", nil), ("Bëarer abc", nil),
            ("Bearer ab\u{e9}", "ab\u{e9}"),
        ] as [(String, String?)])
    func bearerTokensAreReadAsRFC6750Says(header: String, token: String?) {
        #expect(FirebaseRouteProtection.bearerToken(fromAuthorization: header) == token)
    }

}
