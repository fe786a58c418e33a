import Foundation
import HTTPTypes
import Hummingbird
import IdentityAdmin
import IdentityAdminHummingbird
import IdentityOTP
import IdentityOTPFormats
import Logging
import MultiFactorAuth

/// The example web app: sign-up, sign-in with a password and a TOTP code,
/// enrollment with a QR code, and a session kept in a Firebase session cookie.
///
/// The flow, page by page:
/// - `GET/POST /signup`: creates the account, sends the verification email,
///   and (locally) shows the link the emulator lists.
/// - `GET/POST /login`: signs in with the password. With a second factor
///   enrolled, the server writes down the ``MultiFactorResolver``'s snapshot
///   in the browser's state and asks for a code at `/login/totp`, which any
///   instance may serve.
/// - After sign-in the server exchanges the user's ID token for a session
///   cookie (`createSessionCookie`) and sets it HttpOnly, SameSite=Lax.
/// - The signed-in pages (`/account`, `/enroll`, `/unenroll`,
///   `/recovery-codes`) sit behind the SDK's `FirebaseAuthenticator`, which
///   verifies the cookie with revocation checked and puts its claims in the
///   request context; a refusal becomes a redirect to the sign-in page that
///   says why. The account page also requires, when the user has a second
///   factor, that the sign-in used it.
/// - `GET/POST /enroll`, `POST /unenroll`: manage the factors with the
///   user's own client, which Identity Platform requires a recent sign-in for.
/// - `GET/POST /logout`: clears the cookie and revokes the user's sessions.
///
/// Nothing lives in one process: each browser's state (``BrowserState``)
/// is sealed in its cookie or kept in a shared store, and the attempt
/// counts are in a shared ``TOTPAttemptStore``, so several instances behind
/// a round-robin balancer, restarted one at a time, serve every step.
public struct TOTPLoginApp: Sendable {
    /// The session cookie's name. Firebase Hosting forwards only a cookie
    /// called `__session` to a backend, so apps behind it use this name.
    public static let sessionCookieName = "__session"
    /// How long a sign-in lasts (Identity Platform allows 5 minutes to 2 weeks).
    public static let sessionLifetime: Duration = .seconds(60 * 60)
    /// An unchanged browser state is written again after this long, so that
    /// its expiry moves while the person keeps using the app.
    static let stateRefreshInterval: TimeInterval = 15 * 60

    let backend: IdentityBackend
    let storage: any BrowserStateStorage
    let limits: AttemptLimits
    /// The lost-authenticator path and the recovery codes.
    let recovery: AccountRecovery
    let issuer: String
    let cookies: CookiePolicy
    let trustForwardedFor: Bool
    let logger: Logger
    /// Each account's recent security events, for the account page.
    let securityEvents: any SecurityEventLog
    /// Where "was this you?" notifications wait for a mail worker.
    let outbox: any NotificationOutbox
    /// Where every request's security events go: the app's log, the event
    /// log and the notifier (``SecurityEventsMiddleware`` binds it).
    let securityEventSink: any SecurityEventSink
    /// Every account must have a second factor by then (nil: none must).
    let enrollmentDeadline: Date?
    /// What the app's `beforeSignIn` blocking function decides (nil: it serves none).
    let signInRules: SignInRules?
    /// The blocking function's handler, once the app knows its URL (``serveBlockingFunction(at:replayStore:)``).
    let blockingFunction = BlockingFunctionSlot()

    /// The path of the app's `beforeSignIn` blocking function.
    public static let beforeSignInPath = "/blocking/before-sign-in"

    /// - Parameters:
    ///   - backend: The Identity Platform project (an emulator here).
    ///   - state: Where each browser's state lives between requests; every
    ///     instance behind a balancer needs the same (shared keys or store).
    ///   - attempts: Where the app counts wrong passwords and codes; shared
    ///     by every instance, or each instance grants the limit again.
    ///   - recoveryCodes: Where the users' recovery-code verifiers are kept (shared too).
    ///   - issuer: The name authenticator apps show beside the account.
    ///   - publicURL: Where browsers reach the app. An `https` address marks
    ///     the cookies `Secure` (and names the browser cookie `__Host-…`).
    ///   - trustForwardedFor: Take the client's address from the last
    ///     `X-Forwarded-For` entry: set it only behind a proxy that adds it.
    ///   - logger: Where the app notes sign-ins and failures (never a password, code, secret or token).
    ///   - securityEvents: Each account's security events (shared by the instances: PostgreSQL's audit table).
    ///   - outbox: Where "was this you?" notifications wait (shared too).
    ///   - enrollmentDeadline: From then on every account needs a second
    ///     factor (`FirebaseSignInPolicy.SecondFactor.required(enrollBy:)`);
    ///     before it the account page says enrolment is due. Nil: optional.
    ///   - signInRules: The rules of the app's `beforeSignIn` blocking
    ///     function (TOTP required in a tenant, the `role` claim); nil: the
    ///     app serves no blocking function.
    public init(
        backend: IdentityBackend, state: BrowserStateConfiguration, attempts: any TOTPAttemptStore,
        recoveryCodes: any RecoveryCodeStore, issuer: String = "TOTP Login example", publicURL: URL? = nil,
        trustForwardedFor: Bool = false,
        logger: Logger = Logger(label: "TOTPLogin"),
        securityEvents: any SecurityEventLog = AppendOnlySecurityEventLog(),
        outbox: any NotificationOutbox = InMemoryNotificationOutbox(), enrollmentDeadline: Date? = nil,
        signInRules: SignInRules? = nil
    ) {
        self.backend = backend
        self.storage = state.storage
        self.limits = AttemptLimits(store: attempts, logger: logger)
        self.recovery = AccountRecovery(
            admin: backend.admin, redeemer: RecoveryCodeRedeemer(store: recoveryCodes, attemptStore: attempts),
            logger: logger)
        self.issuer = issuer
        self.cookies = CookiePolicy(secure: publicURL?.scheme == "https")
        self.trustForwardedFor = trustForwardedFor
        self.logger = logger
        self.securityEvents = securityEvents
        self.outbox = outbox
        self.enrollmentDeadline = enrollmentDeadline
        self.signInRules = signInRules
        securityEventSink = MultiplexSecurityEventSink([
            LoggingSecurityEventSink(logger: logger), securityEvents,
            SecurityNotifier(admin: backend.projectAdmin, outbox: outbox, logger: logger),
        ])
    }

    /// Serves the `beforeSignIn` blocking function from now on, for events
    /// addressed to `url` (the route's address as Identity Platform calls
    /// it); event ids are remembered in `replayStore` (shared by a fleet).
    /// Without ``signInRules`` it does nothing.
    public func serveBlockingFunction(at url: String, replayStore: any TOTPReplayStore) {
        guard let signInRules else { return }
        // The project's admin: Identity Platform calls one function for every tenant.
        blockingFunction.install(
            BlockingFunctionHandler(
                auth: backend.projectAdmin, functionURL: url,
                replayStore: replayStore, logger: logger, beforeSignIn: { try await signInRules.decide($0) }))
    }

    /// One line for the start-up log: where the browsers' state lives.
    public var stateSummary: String { storage.summary }

    /// The routes, for an `Application` or for HummingbirdTesting.
    /// - Parameter tracing: Whether each request is a server span (with the
    ///   bootstrapped tracer), its email-action code and continue URL redacted.
    public func router(tracing: Bool = false) -> Router<AppRequestContext> {
        let router = Router(context: AppRequestContext.self)
        if tracing {
            // First, so that the session check's verification and the REST calls are its children.
            router.add(
                middleware: TracingMiddleware(redactingQueryParameters: ["oobCode", "apiKey", "continueUrl", "next"]))
        }
        router.add(middleware: SecurityEventsMiddleware(app: self))
        // "/" reads the session cookie when there is one: signed in or not,
        // it sends the browser on (an invalid cookie to the sign-in page).
        router.group()
            .add(middleware: SessionRefusalRedirect(app: self))
            .add(middleware: FirebaseAuthenticator(backend.admin, options: Self.sessionCheck(required: false)))
            .get("/") { _, context in
                Outcome.redirect(context.identity == nil ? "/login" : "/account").response(self.cookies)
            }
        // Identity Platform's call (not a browser's): no cookie, no CSRF token; the event's signature is the check.
        router.post(RouterPath(stringLiteral: Self.beforeSignInPath)) { request, _ -> Response in
            guard let handler = self.blockingFunction.current else { return Response(status: .serviceUnavailable) }
            return try await handler.response(to: request)
        }
        router.get("/signup") { request, context in
            await self.page(request, context) { visit in .html(Pages.signUp(csrf: visit.state.csrfToken)) }
        }
        router.post("/signup") { request, context in
            await self.form(request, context) { form, visit in await self.signUp(form, &visit) }
        }
        router.get("/login") { request, context in
            await self.page(request, context) { visit in
                .html(
                    Pages.login(
                        csrf: visit.state.csrfToken,
                        notice: LoginNotice(rawValue: request.uri.queryParameters["reason"].map(String.init) ?? "")?
                            .text))
            }
        }
        router.post("/login") { request, context in
            await self.form(request, context) { form, visit in
                await self.logIn(form, from: self.clientAddress(request, context), &visit)
            }
        }
        router.get("/login/totp") { request, context in
            await self.page(request, context) { visit in
                guard let pending = visit.state.pendingSignIn else { return .redirect("/login") }
                return .html(
                    Pages.secondFactor(
                        csrf: visit.state.csrfToken, factorName: Self.totpHint(pending.resolver)?.displayName ?? "TOTP")
                )
            }
        }
        router.post("/login/totp") { request, context in
            await self.form(request, context) { form, visit in
                await self.secondFactor(form, from: self.clientAddress(request, context), &visit)
            }
        }
        router.get("/login/recovery") { request, context in
            await self.page(request, context) { visit in
                visit.state.pendingSignIn == nil
                    ? .redirect("/login") : .html(Pages.recoveryCode(csrf: visit.state.csrfToken))
            }
        }
        router.post("/login/recovery") { request, context in
            await self.form(request, context) { form, visit in
                await self.recover(form, from: self.clientAddress(request, context), &visit)
            }
        }
        router.get("/login/reset") { request, context in
            await self.page(request, context) { visit in .html(Pages.passwordReset(csrf: visit.state.csrfToken)) }
        }
        router.post("/login/reset") { request, context in
            await self.form(request, context) { form, visit in await self.sendPasswordReset(form, &visit) }
        }
        router.get(RouterPath(stringLiteral: Self.passwordResetPath)) { request, context in
            await self.page(request, context) { visit in
                self.showPasswordResetConfirmation(
                    code: request.uri.queryParameters["oobCode"].map(String.init) ?? "", &visit)
            }
        }
        router.post(RouterPath(stringLiteral: Self.passwordResetPath)) { request, context in
            await self.form(request, context) { form, visit in
                await self.confirmPasswordReset(form, from: self.clientAddress(request, context), &visit)
            }
        }
        // The signed-in pages: the middleware verifies the session cookie
        // before the handler runs (`requireIdentity()` reads its claims).
        let signedIn = router.group()
            .add(middleware: SessionRefusalRedirect(app: self))
            .add(middleware: FirebaseAuthenticator(backend.admin, options: Self.sessionCheck(required: true)))
        signedIn.post("/recovery-codes") { request, context in
            let token = try context.requireIdentity()
            return await self.form(request, context) { _, _ in await self.newRecoveryCodes(token) }
        }
        signedIn.get("/account") { request, context in
            let token = try context.requireIdentity()
            return await self.page(request, context) { visit in await self.account(token, request, visit) }
        }
        signedIn.get("/enroll") { request, context in
            let token = try context.requireIdentity()
            return await self.page(request, context) { visit in await self.showEnrollment(token, request, &visit) }
        }
        signedIn.post("/enroll") { request, context in
            let token = try context.requireIdentity()
            return await self.form(request, context) { form, visit in await self.enroll(form, token: token, &visit) }
        }
        signedIn.post("/unenroll") { request, context in
            let token = try context.requireIdentity()
            return await self.form(request, context) { form, visit in await self.unenroll(form, token: token, &visit) }
        }
        router.get("/logout") { request, context in
            await self.page(request, context) { visit in .html(Pages.logout(csrf: visit.state.csrfToken)) }
        }
        router.post("/logout") { request, context in
            await self.form(request, context) { _, visit in await self.logOut(request, &visit) }
        }
        router.post("/logout/retry") { request, context in
            await self.form(request, context) { _, visit in await self.retryRevocation(&visit) }
        }
        return router
    }
}
