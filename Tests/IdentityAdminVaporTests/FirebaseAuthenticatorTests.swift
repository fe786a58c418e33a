import AdminTestSupport
import Foundation
import IdentityAdmin
import IdentityAdminVapor
import IdentityOTP
import IdentityToolkitTestSupport
import Logging
import Testing
import Vapor
import VaporTesting

/// What the tests' log handler received: a request's logger is the app's
/// logger with the request's id, so the app's logger is replaced (no
/// process-wide bootstrap: the other suites share this process).
final class LogLines: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    func append(_ line: String) { lock.withLock { stored.append(line) } }
    var lines: [String] { lock.withLock { stored } }
    static let shared = LogLines()

    /// A logger at trace level writing here.
    static func logger() -> Logger {
        var logger = Logger(label: "app") { Capture(label: $0) }
        logger.logLevel = .trace
        return logger
    }

    struct Capture: LogHandler {
        let label: String
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            LogLines.shared.append(
                "\(event.level) \(event.message) \(all.map { "\($0)=\($1)" }.sorted().joined(separator: " "))")
        }
    }
}

/// The Vapor middleware against the emulator's real tokens: every refusal
/// has its status and reason, and nothing of a credential reaches an
/// answer or a log.
@Suite(.serialized) struct FirebaseAuthenticatorTests {
    /// An app whose `/me` answers the verified uid and second factor, behind the middleware with `options`.
    static func withApp(
        _ auth: BaseAuth, _ options: FirebaseAuthenticator.Options, _ test: (Application) async throws -> Void
    ) async throws {
        let app = try await Application.make(.testing)
        app.logger = LogLines.logger()
        let protected = app.grouped(FirebaseAuthenticator(auth, options: options))
        protected.get("me") { req -> String in
            guard let user = req.auth.get(FirebaseUser.self) else { return "anonymous" }
            return "\(user.uid) \(user.token.signInSecondFactor ?? "none")"
        }
        do {
            try await test(app)
        } catch {
            try await app.asyncShutdown()
            throw error
        }
        try await app.asyncShutdown()
    }

    /// The reason in a refusal's JSON body.
    static func reason(_ response: TestingHTTPResponse) -> String? {
        let body =
            try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))
            as? [String: [String: String]]
        return body?["error"]?["reason"]
    }

    static func bearer(_ token: String) -> HTTPHeaders { ["Authorization": "Bearer \(token)"] }

    /// `token` with one character of its signature changed (still strict base64url).
    static func withAnotherSignature(_ token: String) -> String {
        var characters = Array(token)
        let middle = characters.count - 100
        characters[middle] = characters[middle] == "A" ? "B" : "A"
        return String(characters)
    }

    @Test func refusalsHaveTheirStatusAndReasonAndNoCredential() async throws {
        try await EmulatorSetup.with(project: "demo-vapor") { setup in
            let tokens = try await MiddlewareTokens.make(setup)
            let garbage = "not.a-token.at-all"
            var answers: [String] = []

            try await Self.withApp(setup.admin, .init()) { app in
                try await app.testing().test(.GET, "me") { response in
                    #expect(response.status == .unauthorized)
                    #expect(Self.reason(response) == "missing")
                    #expect(response.headers.first(name: .wwwAuthenticate) == "Bearer")
                }
                try await app.testing().test(.GET, "me", headers: ["Authorization": "Basic YTpi"]) { response in
                    #expect(Self.reason(response) == "missing")
                }
                for (token, reason) in [
                    (garbage, "malformed"), (tokens.expired, "expired"),
                    (Self.withAnotherSignature(tokens.password), "badSignature"),
                ] {
                    try await app.testing().test(.GET, "me", headers: Self.bearer(token)) { response in
                        #expect(response.status == .unauthorized, "\(reason)")
                        #expect(Self.reason(response) == reason)
                        #expect(response.headers.first(name: .wwwAuthenticate) == "Bearer error=\"invalid_token\"")
                        #expect(response.headers.first(name: .cacheControl) == "no-store")
                        #expect(response.headers.contentType == .json)
                        answers.append(response.body.string)
                    }
                }
                try await app.testing().test(.GET, "me", headers: Self.bearer(tokens.totp)) { response in
                    #expect(response.status == .ok)
                    #expect(response.body.string == "\(tokens.uid) totp")
                }
            }

            // A second factor required: a password-only sign-in is valid but not
            // enough, and the answer is a step-up challenge (RFC 9470).
            try await Self.withApp(setup.admin, .init(requireSecondFactor: true)) { app in
                try await app.testing().test(.GET, "me", headers: Self.bearer(tokens.password)) { response in
                    #expect(response.status == .unauthorized)
                    #expect(Self.reason(response) == "secondFactorRequired")
                    #expect(
                        response.headers.first(name: .wwwAuthenticate)
                            == #"Bearer error="insufficient_user_authentication", error_description="a sign-in with the second factor is required", acr_values="firebase_second_factor""#
                    )
                    answers.append(response.body.string)
                }
            }

            // One tenant's users only: the project's user is forbidden.
            try await Self.withApp(setup.admin.tenantManager().authForTenant("shop-1"), .init()) { app in
                try await app.testing().test(.GET, "me", headers: Self.bearer(tokens.totp)) { response in
                    #expect(response.status == .forbidden)
                    #expect(Self.reason(response) == "tenantMismatch")
                }
            }

            // Revocation checked: after the admin ends the sessions the token is refused.
            try await Self.withApp(setup.admin, .init(checkRevoked: true)) { app in
                try await app.testing().test(.GET, "me", headers: Self.bearer(tokens.totp)) { response in
                    #expect(response.status == .ok)
                }
                let signedInAt = try await setup.admin.verifyIDToken(tokens.totp).authTime
                try await setup.admin.revokeRefreshTokens(uid: tokens.uid, now: signedInAt.addingTimeInterval(1))
                try await app.testing().test(.GET, "me", headers: Self.bearer(tokens.totp)) { response in
                    #expect(response.status == .unauthorized)
                    #expect(Self.reason(response) == "revoked")
                    answers.append(response.body.string)
                }
            }

            let secrets = [tokens.password, tokens.totp, tokens.expired, garbage]
            let logged = LogLines.shared.lines
            for text in answers + logged {
                for part in secrets + secrets.flatMap({ $0.split(separator: ".").map(String.init) })
                where part.count > 8 {
                    #expect(!text.contains(part), "a credential in \(text.prefix(80))…")
                }
            }
            #expect(logged.contains { $0.contains("request refused") && $0.contains("secondFactorRequired") })
        }
    }

    @Test func sessionCookiesAndOptionalCredentials() async throws {
        try await EmulatorSetup.with(project: "demo-vapor-cookie") { setup in
            let tokens = try await MiddlewareTokens.make(setup)
            let cookie = try await setup.admin.createSessionCookie(tokens.totp, expiresIn: .seconds(3600))

            try await Self.withApp(setup.admin, .init(credential: .sessionCookie(named: "__session"))) { app in
                try await app.testing().test(.GET, "me", headers: ["Cookie": "theme=dark; __session=\(cookie)"]) {
                    response in
                    #expect(response.status == .ok)
                    #expect(response.body.string == "\(tokens.uid) totp")
                }
                // An ID token is not a session cookie, and a bearer header is not read.
                try await app.testing().test(.GET, "me", headers: ["Cookie": "__session=\(tokens.totp)"]) { response in
                    #expect(response.status == .unauthorized)
                }
                try await app.testing().test(.GET, "me", headers: Self.bearer(tokens.totp)) { response in
                    #expect(Self.reason(response) == "missing")
                    #expect(response.headers.first(name: .wwwAuthenticate) == nil)
                }
            }

            let either = FirebaseAuthenticator.Options(
                credential: .bearerTokenOrSessionCookie(), requireCredential: false)
            try await Self.withApp(setup.admin, either) { app in
                try await app.testing().test(.GET, "me") { response in
                    #expect(response.body.string == "anonymous")
                }
                try await app.testing().test(.GET, "me", headers: ["Cookie": "session=\(cookie)"]) { response in
                    #expect(response.body.string == "\(tokens.uid) totp")
                }
                // A credential that is present and fails is refused even when none is required.
                try await app.testing().test(.GET, "me", headers: Self.bearer(tokens.expired)) { response in
                    #expect(response.status == .unauthorized)
                    #expect(Self.reason(response) == "expired")
                }
            }
        }
    }

    /// A handler's security events carry the request's id, the peer's
    /// address and its `User-Agent` through `req.securityEventContext`.
    @Test func securityEventsCarryTheRequestsFacts() async throws {
        try await EmulatorSetup.with(project: "demo-vapor-event-context") { setup in
            let tokens = try await MiddlewareTokens.make(setup)
            let app = try await Application.make(.testing)
            app.grouped(FirebaseAuthenticator(setup.admin)).get("facts") { req -> String in
                // Vapor runs the handler in a task of its own: the handler passes the request's facts on.
                await SecurityEventContext.withValue(req.securityEventContext) {
                    let facts = SecurityEventContext.current
                    return "\(facts?.requestID?.isEmpty == false) \(facts?.userAgent ?? "-")"
                }
            }
            do {
                var headers = Self.bearer(tokens.password)
                headers.replaceOrAdd(name: .userAgent, value: "tests-agent")
                try await app.testing().test(.GET, "facts", headers: headers) {
                    #expect($0.body.string == "true tests-agent")
                }
            } catch {
                try await app.asyncShutdown()
                throw error
            }
            try await app.asyncShutdown()
        }
    }

    /// The package's lines for a request (the revocation check's REST call,
    /// a recovery refused in the handler) go to `req.logger`, with the
    /// request's id, not to the admin's own logger.
    @Test func linesForARequestCarryItsMetadata() async throws {
        try await EmulatorSetup.with(project: "demo-vapor-request-logs") { setup in
            let tokens = try await MiddlewareTokens.make(setup)
            let app = try await Application.make(.testing)
            app.logger = LogLines.logger()
            let recovery = AccountRecovery(
                admin: setup.admin,
                redeemer: RecoveryCodeRedeemer(
                    store: ExpiringStateRecoveryCodeStore(),
                    attemptStore: ExpiringStateTOTPVerificationStore()))
            _ = try await recovery.issueCodes(for: tokens.uid)
            app.grouped(FirebaseAuthenticator(setup.admin, options: .init(checkRevoked: true))).get("recover") {
                req -> String in
                let user = try req.auth.require(FirebaseUser.self)
                let proof = FirstFactorProof(uid: user.uid, checkedAt: Date())
                return (try? await recovery.recover(proof, code: "AAAA-BBBB-CCCC")) == nil ? "refused" : "recovered"
            }
            do {
                try await app.testing().test(.GET, "recover", headers: Self.bearer(tokens.password)) {
                    #expect($0.body.string == "refused")
                }
            } catch {
                try await app.asyncShutdown()
                throw error
            }
            try await app.asyncShutdown()
            let lines = LogLines.shared.lines
            let refused = lines.first { $0.contains("recovery code refused") && $0.contains("uid=\(tokens.uid)") }
            #expect(refused?.contains("request-id=") == true, "\(lines)")
            let lookup = lines.first {
                $0.contains("sending request") && $0.contains("accounts:lookup") && $0.contains("request-id=")
            }
            #expect(lookup != nil, "\(lines)")
        }
    }

    /// The article's snippet, as written: public routes answer, the API
    /// refuses a request without a token and serves a TOTP sign-in.
    @Test func theArticleSnippetProtectsItsRoutes() async throws {
        try await EmulatorSetup.with(project: "demo-vapor-snippet") { setup in
            let tokens = try await MiddlewareTokens.make(setup)
            let app = try await Application.make(.testing)
            routes(app, admin: setup.admin)
            do {
                try await app.testing().test(.GET, "health") { #expect($0.body.string == "ok") }
                try await app.testing().test(.GET, "api/me") { #expect($0.status == .unauthorized) }
                try await app.testing().test(.GET, "api/me", headers: Self.bearer(tokens.password)) {
                    #expect($0.status == .unauthorized)
                }
                try await app.testing().test(.GET, "api/me", headers: Self.bearer(tokens.totp)) { response in
                    #expect(response.body.string == "\(tokens.uid) signed in with totp")
                }
            } catch {
                try await app.asyncShutdown()
                throw error
            }
            try await app.asyncShutdown()
        }
    }

    /// The article shows the compiled Vapor snippet verbatim.
    @Test func theArticleShowsTheCompiledSnippet() throws {
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        #expect(
            try DocSnippet.shows(
                here.appendingPathComponent("ProtectingRoutesSnippet.swift"),
                in: "Sources/IdentityAdmin/IdentityAdmin.docc/ProtectingRoutes.md"))
    }
}
