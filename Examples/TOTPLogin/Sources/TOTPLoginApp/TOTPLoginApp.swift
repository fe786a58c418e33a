import Foundation
import HTTPTypes
import Hummingbird
import IdentityAdmin
import IdentityAdminHummingbird
import Logging
import MultiFactorAuth
import IdentityOTP
import IdentityOTPFormats

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
    public init(backend: IdentityBackend, state: BrowserStateConfiguration, attempts: any TOTPAttemptStore,
                recoveryCodes: any RecoveryCodeStore, issuer: String = "TOTP Login example", publicURL: URL? = nil, trustForwardedFor: Bool = false,
                logger: Logger = Logger(label: "TOTPLogin"), securityEvents: any SecurityEventLog = InMemorySecurityEventLog(),
                outbox: any NotificationOutbox = InMemoryNotificationOutbox(), enrollmentDeadline: Date? = nil,
                signInRules: SignInRules? = nil) {
        self.backend = backend
        self.storage = state.storage
        self.limits = AttemptLimits(store: attempts, logger: logger)
        self.recovery = AccountRecovery(admin: backend.admin, redeemer: RecoveryCodeRedeemer(store: recoveryCodes, attemptStore: attempts),
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
            LoggingSecurityEventSink(logger: logger), securityEvents, SecurityNotifier(admin: backend.projectAdmin, outbox: outbox, logger: logger),
        ])
    }

    /// Serves the `beforeSignIn` blocking function from now on, for events
    /// addressed to `url` (the route's address as Identity Platform calls
    /// it); event ids are remembered in `replayStore` (shared by a fleet).
    /// Without ``signInRules`` it does nothing.
    public func serveBlockingFunction(at url: String, replayStore: any TOTPReplayStore) {
        guard let signInRules else { return }
        // The project's admin: Identity Platform calls one function for every tenant.
        blockingFunction.install(BlockingFunctionHandler(auth: backend.projectAdmin, functionURL: url,
                                                         replayStore: replayStore, logger: logger, beforeSignIn: { try await signInRules.decide($0) }))
    }

    /// One line for the start-up log: where the browsers' state lives.
    public var stateSummary: String { storage.summary }

    /// The routes, for an `Application` or for HummingbirdTesting.
    public func router() -> Router<AppRequestContext> {
        let router = Router(context: AppRequestContext.self)
        router.add(middleware: SecurityEventsMiddleware(app: self))
        // "/" reads the session cookie when there is one: signed in or not,
        // it sends the browser on (an invalid cookie to the sign-in page).
        router.group()
            .add(middleware: SessionRefusalRedirect(app: self))
            .add(middleware: FirebaseAuthenticator(backend.admin, options: Self.sessionCheck(required: false)))
            .get("/") { _, context in Outcome.redirect(context.identity == nil ? "/login" : "/account").response(self.cookies) }
        // Identity Platform's call (not a browser's): no cookie, no CSRF token; the event's signature is the check.
        router.post(RouterPath(stringLiteral: Self.beforeSignInPath)) { request, _ -> Response in
            guard let handler = self.blockingFunction.current else { return Response(status: .serviceUnavailable) }
            return try await handler.response(to: request)
        }
        router.get("/signup") { request, context in await self.page(request, context) { visit in .html(Pages.signUp(csrf: visit.state.csrfToken)) } }
        router.post("/signup") { request, context in await self.form(request, context) { form, visit in await self.signUp(form, &visit) } }
        router.get("/login") { request, context in
            await self.page(request, context) { visit in
                .html(Pages.login(csrf: visit.state.csrfToken, notice: LoginNotice(rawValue: request.uri.queryParameters["reason"].map(String.init) ?? "")?.text))
            }
        }
        router.post("/login") { request, context in await self.form(request, context) { form, visit in await self.logIn(form, from: self.clientAddress(request, context), &visit) } }
        router.get("/login/totp") { request, context in
            await self.page(request, context) { visit in
                guard let pending = visit.state.pendingSignIn else { return .redirect("/login") }
                return .html(Pages.secondFactor(csrf: visit.state.csrfToken, factorName: Self.totpHint(pending.resolver)?.displayName ?? "TOTP"))
            }
        }
        router.post("/login/totp") { request, context in await self.form(request, context) { form, visit in await self.secondFactor(form, from: self.clientAddress(request, context), &visit) } }
        router.get("/login/recovery") { request, context in
            await self.page(request, context) { visit in
                visit.state.pendingSignIn == nil ? .redirect("/login") : .html(Pages.recoveryCode(csrf: visit.state.csrfToken))
            }
        }
        router.post("/login/recovery") { request, context in
            await self.form(request, context) { form, visit in await self.recover(form, from: self.clientAddress(request, context), &visit) }
        }
        router.get("/login/reset") { request, context in await self.page(request, context) { visit in .html(Pages.passwordReset(csrf: visit.state.csrfToken)) } }
        router.post("/login/reset") { request, context in await self.form(request, context) { form, visit in await self.sendPasswordReset(form, &visit) } }
        router.get(RouterPath(stringLiteral: Self.passwordResetPath)) { request, context in
            await self.page(request, context) { visit in
                self.showPasswordResetConfirmation(code: request.uri.queryParameters["oobCode"].map(String.init) ?? "", &visit)
            }
        }
        router.post(RouterPath(stringLiteral: Self.passwordResetPath)) { request, context in
            await self.form(request, context) { form, visit in await self.confirmPasswordReset(form, from: self.clientAddress(request, context), &visit) }
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
        router.get("/logout") { request, context in await self.page(request, context) { visit in .html(Pages.logout(csrf: visit.state.csrfToken)) } }
        router.post("/logout") { request, context in await self.form(request, context) { _, visit in await self.logOut(request, &visit) } }
        router.post("/logout/retry") { request, context in await self.form(request, context) { _, visit in await self.retryRevocation(&visit) } }
        return router
    }

    // MARK: Pages

    func signUp(_ form: FormFields, _ visit: inout Visit) async -> Outcome {
        let email = form["email"]
        let auth = backend.newAuth()
        do {
            let user = try await auth.createUser(withEmail: email, password: form["password"]).user
            try await user.sendEmailVerification()
            logger.info("signed up", metadata: ["uid": "\(user.uid)"])
            let link = try await backend.verificationLink(for: email)
            return .html(Pages.verifyEmail(email: email, link: link))
        } catch let error as AuthErrorCode {
            return .html(Pages.signUp(csrf: visit.state.csrfToken, email: email, error: Self.sentence(error)), status: .badRequest)
        } catch {
            return failure(error, during: "sign-up")
        }
    }

    func logIn(_ form: FormFields, from address: String?, _ visit: inout Visit) async -> Outcome {
        // A new attempt ends any sign-in in flight on this browser (another user's included).
        visit.state.pendingSignIn = nil
        let email = form["email"]
        let account = AttemptLimits.accountKey(email: email)
        if case .refused(let refusal) = await limits.admit(.password, account: account, address: address) {
            return limits.page(for: refusal, .password)
        }
        let auth = backend.newAuth()
        do {
            let result = try await auth.signIn(withEmail: email, password: form["password"])
            await limits.succeeded(.password, account: account, address: address)
            visit.rotate()
            return await signedIn(result.user, auth: auth, &visit)
        } catch let error as AuthErrorCode where error.code == .secondFactorRequired {
            // The password was right: its count starts again.
            await limits.succeeded(.password, account: account, address: address)
            guard let resolver = error.userInfo[AuthErrors.userInfoMultiFactorResolverKey] as? MultiFactorResolver,
                  Self.totpHint(resolver.snapshot) != nil else {
                return errorPage(error, title: "This app cannot complete your sign-in",
                                 explanation: "Your account's second factor is not an authenticator app.", next: ("/login", "Back to sign-in"))
            }
            visit.rotate()
            visit.state.pendingSignIn = BrowserState.PendingSignIn(resolver: resolver.snapshot, accountKey: account, email: email,
                                                                   passwordCheckedAt: Date())
            return .redirect("/login/totp")
        } catch let error as AuthErrorCode {
            return .html(Pages.login(csrf: visit.state.csrfToken, email: email, error: Self.sentence(error)), status: .unauthorized)
        } catch {
            return failure(error, during: "sign-in")
        }
    }

    func secondFactor(_ form: FormFields, from address: String?, _ visit: inout Visit) async -> Outcome {
        guard let pending = visit.state.pendingSignIn, let hint = Self.totpHint(pending.resolver) else { return .redirect("/login") }
        let resolver: MultiFactorResolver
        do { resolver = try MultiFactorResolver(restoring: pending.resolver, auth: backend.newAuth()) } catch {
            // Written by an app of another name: a configuration change.
            visit.state.pendingSignIn = nil
            return .redirect("/login?reason=\(LoginNotice.expired.rawValue)")
        }
        if case .refused(let refusal) = await limits.admit(.code, account: pending.accountKey, address: address) {
            visit.state.pendingSignIn = nil
            return limits.page(for: refusal, .code)
        }
        let assertion = TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: hint.uid, oneTimePassword: form["code"])
        do {
            let result = try await resolver.resolveSignIn(with: assertion)
            await limits.succeeded(.code, account: pending.accountKey, address: address)
            visit.state.pendingSignIn = nil
            visit.rotate()
            return await signedIn(result.user, auth: resolver.auth, &visit)
        } catch let error as AuthErrorCode {
            switch error.code {
            case .invalidVerificationCode:
                // Identity Platform checked the code; the app records the refusal.
                if let uid = try? await backend.admin.getUser(email: pending.email).uid {
                    await SecurityEventSystem.record(SecurityEvent(.codeRefused, user: backend.admin.userKey(uid), factorID: hint.uid, factorKind: SecurityEvent.totpFactorKind))
                }
                // The challenge stays open: the person may type the next code.
                return .html(Pages.secondFactor(csrf: visit.state.csrfToken, factorName: hint.displayName ?? "TOTP",
                                                error: "\(Self.sentence(error)) (\(error.code.userInfoName))"), status: .unauthorized)
            case .invalidMultiFactorSession, .sessionExpired:
                visit.state.pendingSignIn = nil
                return errorPage(error, title: "Your sign-in expired",
                                 explanation: "The code was not entered in time; sign in with your password again.", next: ("/login", "Sign in again"))
            case .tooManyRequests:
                visit.state.pendingSignIn = nil
                return errorPage(error, title: "Too many attempts",
                                 explanation: "Too many wrong codes for this sign-in. Wait a moment, then sign in again.", next: ("/login", "Sign in again"))
            default:
                return errorPage(error, title: "Sign-in failed", explanation: Self.sentence(error), next: ("/login", "Sign in again"))
            }
        } catch {
            return failure(error, during: "the second factor")
        }
    }

    /// The lost-authenticator path: after the password step, a recovery
    /// code withdraws the TOTP factors, ends the other sessions and signs
    /// the user in with a custom token; the next page is the enrollment.
    func recover(_ form: FormFields, from address: String?, _ visit: inout Visit) async -> Outcome {
        guard let pending = visit.state.pendingSignIn else { return .redirect("/login") }
        let recovered: AccountRecovery.Recovered
        do {
            let uid = try await backend.admin.getUser(email: pending.email).uid
            recovered = try await recovery.recover(FirstFactorProof(uid: uid, checkedAt: pending.passwordCheckedAt), code: form["code"])
        } catch let error as AccountRecoveryError {
            switch error.code {
            case .invalidCode:
                // A wrong code ends this sign-in: the next try starts with the password again.
                visit.state.pendingSignIn = nil
                return .html(Pages.error(status: 401, title: "That is not one of your recovery codes",
                                         explanation: "That is not one of your unused recovery codes. Sign in with your password again to try another.",
                                         firebaseCode: nil, next: ("/login", "Sign in again"), id: "recovery-code-refused"),
                             status: .unauthorized)
            case .firstFactorTooOld:
                visit.state.pendingSignIn = nil
                return .redirect("/login?reason=\(LoginNotice.expired.rawValue)")
            case .noCodes:
                return .html(Pages.recoveryCode(csrf: visit.state.csrfToken, error: "Your account has no recovery codes: contact support."),
                             status: .unauthorized)
            case .tooManyAttempts:
                visit.state.pendingSignIn = nil
                return limits.refusal
            case .codeStoreUnavailable: return Self.unavailable(next: "/login/recovery")
            default: return failure(error, during: "the recovery")
            }
        } catch {
            return failure(error, during: "the recovery")
        }
        // The account proved itself another way: every count of it starts
        // again, the codes' final lock included, or the new authenticator
        // would be refused.
        await limits.accountProven(pending.accountKey, address: address)
        let auth = backend.newAuth()
        do {
            let result = try await auth.signIn(withCustomToken: recovered.customToken)
            visit.state.pendingSignIn = nil
            visit.rotate()
            return await signedIn(result.user, auth: auth, then: "/enroll?reason=recovered", &visit)
        } catch let error as AuthErrorCode {
            return errorPage(error, title: "Sign-in failed", explanation: Self.sentence(error), next: ("/login", "Sign in again"))
        } catch {
            return failure(error, during: "the recovery sign-in")
        }
    }

    /// A user's first recovery codes, when they have none; nil when they
    /// have some, or the store failed (logged: the enrollment itself stands,
    /// and the account page offers codes again).
    func firstRecoveryCodes(for uid: String) async -> RecoveryCodes? {
        do {
            guard try await (recovery.remainingCodes(for: uid) ?? 0) == 0 else { return nil }
            return try await recovery.issueCodes(for: uid)
        } catch {
            logger.error("could not issue recovery codes", metadata: ["uid": "\(uid)", "error": "\(type(of: error))"])
            return nil
        }
    }

    /// A new set of recovery codes, only for a session whose sign-in used
    /// the authenticator in the last five minutes (a stolen session cookie
    /// alone cannot replace the codes).
    func newRecoveryCodes(_ token: DecodedIDToken) async -> Outcome {
        do {
            _ = try await backend.admin.enforce(Self.recentSecondFactorSignIn, on: token)
        } catch {
            return .redirect("/login?reason=\(LoginNotice.recentSignInRequired.rawValue)", clearingSession: true)
        }
        do {
            let codes = try await recovery.issueCodes(for: token.uid)
            return .html(Pages.recoveryCodes(codes.codes, next: "/account"))
        } catch {
            return failure(error, during: "making recovery codes")
        }
    }

    /// New recovery codes need a sign-in with the second factor of the last
    /// five minutes (a stolen session cookie alone cannot replace the codes).
    static let recentSecondFactorSignIn = FirebaseSignInPolicy(secondFactor: .required(), maximumAuthenticationAge: .seconds(300))

    func account(_ token: DecodedIDToken, _ request: Request, _ visit: Visit) async -> Outcome {
        var enrollmentDue: Date?
        if let enrollmentDeadline {
            // The enrolment campaign: without a factor, the account page is
            // open until the deadline (with a reminder), then only /enroll is.
            do {
                enrollmentDue = try await backend.admin.enforce(FirebaseSignInPolicy(secondFactor: .required(enrollBy: enrollmentDeadline)),
                                                                on: token).secondFactorEnrollmentDue
            } catch let error {
                switch error.code {
                case .secondFactorEnrollmentRequired: return .redirect("/enroll?reason=\(EnrollNotice.required.rawValue)")
                case .secondFactorRequired:
                    return .redirect("/login?reason=\(LoginNotice.secondFactorRequired.rawValue)", clearingSession: true)
                default: return failure(error, during: "checking the sign-in policy")
                }
            }
        }
        do {
            let user = try await backend.admin.getUser(uid: token.uid)
            // The policy `.ifEnrolled`, decided on the user this page loads
            // anyway: fresh, where the policy's cached account state may be
            // up to 10 s behind a factor withdrawn on another instance.
            if !user.multiFactor.enrolledFactors.isEmpty {
                do { try token.requireSecondFactor() } catch {
                    return .redirect("/login?reason=\(LoginNotice.secondFactorRequired.rawValue)", clearingSession: true)
                }
            }
            let factors = user.multiFactor.enrolledFactors.map {
                Pages.Factor(uid: $0.uid, displayName: $0.displayName ?? "(no name)", factorID: $0.factorID, enrolled: $0.enrollmentTime)
            }
            var notice = AccountNotice(rawValue: request.uri.queryParameters["done"].map(String.init) ?? "")?.text
            if let seconds = request.uri.queryParameters["clock"].flatMap({ Int($0) }), abs(seconds) <= 3600, seconds != 0 {
                notice = (notice.map { $0 + " " } ?? "") + "Your phone's clock seems about \(abs(seconds)) seconds \(seconds > 0 ? "fast" : "slow"): set it to the network's time, or its codes will stop working as it drifts further."
            }
            let remaining = try await recovery.remainingCodes(for: user.uid)
            let activity = try await securityEvents.recentEvents(for: backend.admin.userKey(user.uid), limit: 10)
            return .html(Pages.account(csrf: visit.state.csrfToken, email: user.email ?? token.email ?? token.uid,
                                       secondFactor: token.signInSecondFactor, factors: factors, remainingCodes: remaining, notice: notice,
                                       enrollmentDue: enrollmentDue, activity: activity,
                                       role: token.claims[SignInRules.roleClaim]?.stringValue))
        } catch {
            return failure(error, during: "loading the account")
        }
    }

    func showEnrollment(_ token: DecodedIDToken, _ request: Request, _ visit: inout Visit) async -> Outcome {
        let client: SignedInClient
        switch signedInClient(token, visit.state) {
        case .valid(let signedIn): client = signedIn
        case .refused(let answer): return answer
        }
        defer { visit.state.user = client.auth.currentSession() }
        do {
            let session = try await client.user.multiFactor.session()
            let secret = try await TOTPMultiFactorGenerator.generateSecret(with: session)
            visit.state.pendingSecret = secret.snapshot
            let reason = EnrollNotice(rawValue: request.uri.queryParameters["reason"].map(String.init) ?? "")
            return enrollmentPage(secret, account: client.user.email ?? client.user.uid, csrf: visit.state.csrfToken, notice: reason?.text)
        } catch let error as AuthErrorCode {
            return enrollmentError(error)
        } catch {
            return failure(error, during: "starting the enrollment")
        }
    }

    func enroll(_ form: FormFields, token: DecodedIDToken, _ visit: inout Visit) async -> Outcome {
        let client: SignedInClient
        switch signedInClient(token, visit.state) {
        case .valid(let signedIn): client = signedIn
        case .refused(let answer): return answer
        }
        defer { visit.state.user = client.auth.currentSession() }
        guard let snapshot = visit.state.pendingSecret, let secret = try? TOTPSecret(restoring: snapshot) else {
            visit.state.pendingSecret = nil
            return .redirect("/enroll")
        }
        let user = client.user
        let displayName = form["displayName"].trimmingCharacters(in: .whitespacesAndNewlines)
        // The one time the app holds the key: it sees where the phone's code falls.
        let drift = Self.clockDrift(of: form["code"], secret: secret, account: user.email ?? user.uid)
        do {
            let assertion = TOTPMultiFactorGenerator.assertionForEnrollment(with: secret, oneTimePassword: form["code"])
            try await user.multiFactor.enroll(with: assertion, displayName: displayName.isEmpty ? nil : displayName)
            // The account's factors changed: the sign-in policy looks them up again here.
            backend.admin.forgetCachedAccountState(uid: user.uid)
            visit.state.pendingSecret = nil
            visit.rotate()
            logger.info("enrolled a TOTP factor", metadata: ["uid": "\(user.uid)"])
            let factor = user.multiFactor.enrolledFactors.last { $0.factorID == TOTPMultiFactorID }
            await SecurityEventSystem.record(SecurityEvent(.factorEnrolled, user: backend.admin.userKey(user.uid), initiatedBy: .user,
                                                           factorID: factor?.uid, factorKind: SecurityEvent.totpFactorKind))
            var done = "/account?done=\(AccountNotice.enrolled.rawValue)"
            if let drift {
                var noticed = SecurityEvent(.clockDriftNoticed, user: backend.admin.userKey(user.uid), factorID: factor?.uid, factorKind: SecurityEvent.totpFactorKind)
                noticed.clockOffsetSeconds = drift.seconds
                await SecurityEventSystem.record(noticed)
                done += "&clock=\(drift.seconds)"
            }
            // The enrollment's new ID token records the TOTP sign-in; the
            // session cookie is made anew from it.
            var outcome = await renewedSession(user, then: done)
            // The first authenticator comes with recovery codes, shown once.
            if outcome.session != nil, let codes = await firstRecoveryCodes(for: user.uid) {
                outcome.kind = .html(Pages.recoveryCodes(codes.codes, next: done))
                outcome.status = .ok
            }
            return outcome
        } catch let error as AuthErrorCode where error.code == .invalidVerificationCode {
            var page = enrollmentPage(secret, account: user.email ?? user.uid, csrf: visit.state.csrfToken, displayName: displayName,
                                      error: "\(Self.sentence(error)) (\(error.code.userInfoName))")
            page.status = .badRequest
            return page
        } catch let error as AuthErrorCode {
            visit.state.pendingSecret = nil
            return enrollmentError(error)
        } catch {
            return failure(error, during: "the enrollment")
        }
    }

    func unenroll(_ form: FormFields, token: DecodedIDToken, _ visit: inout Visit) async -> Outcome {
        let client: SignedInClient
        switch signedInClient(token, visit.state) {
        case .valid(let signedIn): client = signedIn
        case .refused(let answer): return answer
        }
        defer { visit.state.user = client.auth.currentSession() }
        do {
            let withdrawn = client.user.multiFactor.enrolledFactors.first { $0.uid == form["factorUID"] }
            do {
                try await client.user.multiFactor.unenroll(withFactorUID: form["factorUID"])
            } catch let error as AuthErrorCode where error.code == .invalidUserToken {
                // Withdrawn, and every session ended with it (below).
                await recordWithdrawal(of: withdrawn, uid: client.user.uid)
                throw error
            }
            await recordWithdrawal(of: withdrawn, uid: client.user.uid)
            backend.admin.forgetCachedAccountState(uid: client.user.uid)
            logger.info("removed a factor", metadata: ["uid": "\(client.user.uid)"])
            return await renewedSession(client.user, then: "/account?done=\(AccountNotice.unenrolled.rawValue)")
        } catch let error as AuthErrorCode where error.code == .invalidUserToken {
            // Removing the newest of several factors ends every session.
            visit.signOut()
            return .redirect("/login?reason=\(LoginNotice.sessionsEnded.rawValue)", clearingSession: true)
        } catch let error as AuthErrorCode {
            return enrollmentError(error)
        } catch {
            return failure(error, during: "removing the factor")
        }
    }

    /// How far the phone's clock seems off, from the first code it showed:
    /// nil when the code falls within a step of now (a person typing as
    /// the code changes) or matches no step within ten. Identity Platform
    /// checks the codes of later sign-ins and tells the app nothing of
    /// where they fall, so enrolment is where the app can tell the user.
    static func clockDrift(of code: String, secret: TOTPSecret, account: String, at now: Date = Date()) -> TOTPClockDrift? {
        guard let totp = try? OTPAuthURI(parsing: secret.generateQRCodeURL(withAccountName: account, issuer: "drift")).totp() else { return nil }
        let unixNow = Int64(now.timeIntervalSince1970.rounded(.down))
        guard let present = try? totp.step(at: unixNow),
              let matched = try? totp.matchingStep(for: code, at: unixNow, window: TOTPVerifier.widestWindow) else { return nil }
        let steps = Int(Int64(bitPattern: matched &- present))
        return abs(steps) >= 2 ? TOTPClockDrift(steps: steps, period: totp.period) : nil
    }

    /// The user removed a factor (the SDK's client call records nothing: the
    /// app knows who and which).
    private func recordWithdrawal(of factor: MultiFactorInfo?, uid: String) async {
        await SecurityEventSystem.record(SecurityEvent(.factorWithdrawn, user: backend.admin.userKey(uid), initiatedBy: .user,
                                                       factorID: factor?.uid, factorKind: factor?.factorID))
    }

    // MARK: Sessions

    /// Keeps the signed-in client's state and exchanges the user's fresh ID
    /// token for a session cookie.
    func signedIn(_ user: User, auth: Auth, then location: String = "/account", _ visit: inout Visit) async -> Outcome {
        logger.info("signed in", metadata: ["uid": "\(user.uid)"])
        let outcome = await renewedSession(user, then: location)
        visit.state.user = auth.currentSession()
        return outcome
    }

    func renewedSession(_ user: User, then location: String) async -> Outcome {
        do {
            let cookie = try await backend.admin.createSessionCookie(try await user.getIDToken(), expiresIn: Self.sessionLifetime)
            return .redirect(location, session: cookie)
        } catch let error as AuthErrorCode {
            return errorPage(error, title: "Sign-in failed", explanation: Self.sentence(error), next: ("/login", "Sign in again"))
        } catch {
            return failure(error, during: "creating the session")
        }
    }

    /// What the signed-in pages' middleware checks: the session cookie,
    /// with revocation (a sign-out elsewhere ends this session too);
    /// `required: false` lets a request without one through.
    static func sessionCheck(required: Bool) -> FirebaseRouteProtection.Options {
        .init(credential: .sessionCookie(named: sessionCookieName), checkRevoked: true, requireCredential: required)
    }

    /// The sign-in page's answer to a refused session cookie: a redirect
    /// that says why (clearing a cookie that will never pass again), or a
    /// 503 page when Identity Platform could not be asked (the cookie may be fine).
    func signInAgain(after refusal: FirebaseAuthenticationError) -> Outcome {
        guard let error = refusal.verificationError else { return .redirect("/login") }
        let notice: LoginNotice
        switch error.code {
        case .revoked, .userDisabled, .userNotFound: notice = .sessionsEnded
        case .expired: notice = .expired
        case .keysUnavailable, .revocationCheckFailed:
            logger.warning("could not verify a session cookie", metadata: ["reason": "\(refusal.reason)"])
            return Self.unavailable(next: "/account")
        default: notice = .invalidSession
        }
        logger.info("session cookie refused", metadata: ["reason": "\(refusal.reason)"])
        return .redirect("/login?reason=\(notice.rawValue)", clearingSession: true)
    }

    /// A client signed in as the browser's user, rebuilt from its state on
    /// whichever instance the request reached.
    struct SignedInClient {
        let auth: Auth
        let user: User
    }

    /// The client this browser signed in with, for the calls that need the
    /// user's own ID token: the session cookie must be valid and the kept
    /// user the cookie's (else the sign-in happened in another browser, or
    /// its state expired, and is asked again).
    func signedInClient(_ token: DecodedIDToken, _ state: BrowserState) -> Checked<SignedInClient> {
        guard let session = state.user, session.uid == token.uid else {
            return .refused(.redirect("/login?reason=\(LoginNotice.recentSignInRequired.rawValue)", clearingSession: true))
        }
        let auth = backend.newAuth()
        return .valid(SignedInClient(auth: auth, user: auth.restore(session)))
    }

    /// What a check found: the value, or what to answer instead.
    enum Checked<Value> {
        case valid(Value)
        case refused(Outcome)
    }

    // MARK: Helpers

    static func totpHint(_ resolver: MultiFactorResolver.Snapshot) -> AuthSession.Factor? {
        resolver.hints.first { $0.factorID == TOTPMultiFactorID }
    }

    /// The client's address: the connection's peer, or the last entry of
    /// `X-Forwarded-For` (the one the app's own proxy added) when trusted.
    func clientAddress(_ request: Request, _ context: AppRequestContext) -> String? {
        if trustForwardedFor, let name = HTTPField.Name("X-Forwarded-For"), let forwarded = request.headers[values: name].last,
           let last = forwarded.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty {
            return last
        }
        return context.remoteAddress
    }

    func enrollmentPage(_ secret: TOTPSecret, account: String, csrf: String, displayName: String = "", error: String? = nil,
                        notice: String? = nil) -> Outcome {
        let uri = secret.generateQRCodeURL(withAccountName: account, issuer: issuer)
        let svg = (try? QRCode(text: uri, errorCorrection: .medium).svg(moduleSize: 6)) ?? "<p class=\"error\">The QR code could not be drawn; type the key instead.</p>"
        return .html(Pages.enroll(csrf: csrf, qrSVG: svg, secret: secret.sharedSecretKey(), uri: uri, displayName: displayName, error: error,
                                  notice: notice))
    }

    func enrollmentError(_ error: AuthErrorCode) -> Outcome {
        if error.code == .requiresRecentLogin {
            return .redirect("/login?reason=\(LoginNotice.recentSignInRequired.rawValue)", clearingSession: true)
        }
        let explanation = error.code == .invalidMultiFactorSession || error.code == .sessionExpired
            ? "The enrollment took too long; start again for a new key."
            : Self.sentence(error)
        return errorPage(error, title: "The authenticator was not changed", explanation: explanation, next: ("/account", "Back to your account"))
    }

    /// The error's description, Firebase's own sentence.
    static func sentence(_ error: AuthErrorCode) -> String { error.localizedDescription }

    func errorPage(_ error: AuthErrorCode, title: String, explanation: String, next: (href: String, label: String)) -> Outcome {
        let status: HTTPResponse.Status = switch error.code {
        case .tooManyRequests: .tooManyRequests
        case .networkError, .internalError: .badGateway
        default: .unauthorized
        }
        logger.info("shown an error page", metadata: ["error": "\(error.code.userInfoName)"])
        return .html(Pages.error(status: status.code, title: title, explanation: explanation,
                                 firebaseCode: "\(error.code.userInfoName) (AuthErrorCode.\(error.code), \(error.code.rawValue))", next: next),
                     status: status)
    }

    /// Anything that is not an Identity Platform answer: logged by type (the
    /// description might quote a request), shown without detail.
    func failure(_ error: any Error, during step: String) -> Outcome {
        logger.error("unexpected failure", metadata: ["step": "\(step)", "error": "\(type(of: error))"])
        return .html(Pages.error(status: 500, title: "Something went wrong", explanation: "The server failed during \(step). Try again.",
                                 firebaseCode: nil, next: ("/", "Home")), status: .internalServerError)
    }

    /// A store or Identity Platform is out of reach: 503, and nothing is
    /// decided (a sign-in is never let through on a guess).
    static func unavailable(next: String) -> Outcome {
        .html(Pages.error(status: 503, title: "Try again shortly", explanation: "A service the sign-in needs cannot be reached.",
                          firebaseCode: nil, next: (next, "Retry")), status: .serviceUnavailable)
    }

    /// A GET: reads (or starts) the browser's state, renders, and writes the
    /// state back when it changed.
    func page(_ request: Request, _ context: AppRequestContext, _ render: (inout Visit) async -> Outcome) async -> Response {
        let cookie = request.cookies[cookies.browserCookieName]?.value
        var loaded: BrowserState?
        if let cookie {
            do { loaded = try await storage.load(cookie: cookie) } catch { return storageFailure(error) }
        }
        var visit = Visit(state: loaded ?? .fresh(), cookie: loaded == nil ? nil : cookie)
        let outcome = await render(&visit)
        return await finish(outcome, visit, loaded: loaded)
    }

    /// A POST: refused (403) without the browser's state and its CSRF
    /// token, so that no other site can submit the app's forms.
    func form(_ request: Request, _ context: AppRequestContext, _ handle: (FormFields, inout Visit) async -> Outcome) async -> Response {
        guard let cookie = request.cookies[cookies.browserCookieName]?.value else { return csrfRefusal() }
        let loaded: BrowserState?
        do { loaded = try await storage.load(cookie: cookie) } catch { return storageFailure(error) }
        guard let loaded else { return csrfRefusal() }
        let fields: FormFields
        do { fields = try await FormFields(request) } catch {
            return Outcome.html(Pages.error(status: 400, title: "Unreadable form", explanation: "\(error)", firebaseCode: nil, next: ("/", "Home")),
                                status: .badRequest).response(cookies)
        }
        guard BrowserState.tokensMatch(fields["csrf"], loaded.csrfToken) else { return csrfRefusal() }
        var visit = Visit(state: loaded, cookie: cookie)
        let outcome = await handle(fields, &visit)
        return await finish(outcome, visit, loaded: loaded)
    }

    /// Writes the state back when it is new, changed, rotated or due for a
    /// refresh, and sets the browser cookie when its value changed.
    func finish(_ outcome: Outcome, _ visit: Visit, loaded: BrowserState?) async -> Response {
        var response = outcome.response(cookies)
        var state = visit.state
        let now = Date()
        let due = now.timeIntervalSince(state.savedAt) > Self.stateRefreshInterval
        guard loaded == nil || visit.rotated || state != loaded || due else { return response }
        state.savedAt = now
        do {
            let cookie = try await storage.save(state, previousCookie: visit.cookie, rotate: visit.rotated)
            if cookie != visit.cookie { response.setCookie(cookies.browserCookie(cookie)) }
        } catch {
            return storageFailure(error)
        }
        return response
    }

    func storageFailure(_ error: any Error) -> Response {
        if let tooLarge = error as? BrowserStateTooLarge {
            logger.error("browser state too large for its cookie", metadata: ["bytes": "\(tooLarge.length)"])
            return failure(error, during: "keeping the sign-in").response(cookies)
        }
        logger.error("browser state unavailable", metadata: ["error": "\(type(of: error))"])
        return Self.unavailable(next: "/").response(cookies)
    }

    func csrfRefusal() -> Response {
        logger.warning("refused a form without a valid CSRF token")
        return Outcome.html(Pages.error(status: 403, title: "Form expired", explanation: "This form is out of date or came from another site. Reload the page and try again.",
                                        firebaseCode: nil, next: ("/", "Home")), status: .forbidden).response(cookies)
    }
}

/// One request's view of its browser's state: the handlers change
/// ``state``; ``TOTPLoginApp/finish(_:_:loaded:)`` writes it back.
struct Visit {
    var state: BrowserState
    /// The browser cookie the request came with (nil for a new browser).
    let cookie: String?
    /// Whether the state moves to a new cookie (and CSRF token).
    private(set) var rotated = false

    init(state: BrowserState, cookie: String?) {
        self.state = state
        self.cookie = cookie
    }

    /// A new cookie and CSRF token at each change of who is signed in, so
    /// that a cookie or token planted earlier carries nothing across it
    /// (session fixation).
    mutating func rotate() {
        state.csrfToken = BrowserState.randomToken()
        rotated = true
    }

    /// Forgets the user and the steps in flight, under a new cookie.
    mutating func signOut() {
        state.reset()
        rotated = true
    }
}

/// The cookies' attributes, in one place.
struct CookiePolicy: Sendable {
    /// Set when browsers reach the app over HTTPS.
    let secure: Bool

    /// `__Host-` over HTTPS: the browser then refuses the cookie unless it
    /// is Secure, host-only and for `/`, so a sibling subdomain cannot plant one.
    var browserCookieName: String { secure ? "__Host-totplogin_browser" : "totplogin_browser" }

    func browserCookie(_ value: String) -> Cookie {
        Cookie(name: browserCookieName, value: value, path: "/", secure: secure, httpOnly: true, sameSite: .lax)
    }
}

/// Why the sign-in page is shown, as a query value (never free text from the URL).
enum LoginNotice: String {
    case signedOut = "signed-out"
    case sessionsEnded = "sessions-ended"
    case expired
    case invalidSession = "invalid-session"
    case secondFactorRequired = "second-factor"
    case recentSignInRequired = "recent-sign-in"
    case passwordReset = "password-reset"

    var text: String {
        switch self {
        case .signedOut: "You are signed out."
        case .sessionsEnded: "Your sessions ended (signed out everywhere, or the account changed). Sign in again."
        case .expired: "Your session expired. Sign in again."
        case .invalidSession: "Your session is not valid. Sign in again."
        case .secondFactorRequired: "Your account has a second factor: sign in with it to continue."
        case .recentSignInRequired: "Changing your second factors needs a recent sign-in. Sign in again."
        case .passwordReset: "Your password was changed and every session ended. Sign in with the new one."
        }
    }
}

/// What the account page confirms, as a query value.
/// Why the enrollment page was opened.
enum EnrollNotice: String {
    case recovered, required

    var text: String {
        switch self {
        case .recovered: "Your lost authenticator was removed and every other session ended. Add your new one now."
        case .required: "This account needs an authenticator app now: add one to go on."
        }
    }
}

enum AccountNotice: String {
    case enrolled, unenrolled

    var text: String {
        switch self {
        case .enrolled: "Your authenticator app was added. Next time, sign-in asks for its code."
        case .unenrolled: "The second factor was removed."
        }
    }
}

/// What a route decided, turned into a response in one place so that every
/// cookie carries the same attributes.
struct Outcome {
    enum Kind { case html(String), redirect(String) }
    var kind: Kind
    var status: HTTPResponse.Status = .ok
    /// A new session cookie to set.
    var session: String?
    /// Whether to delete the session cookie.
    var clearSession = false

    static func html(_ html: String, status: HTTPResponse.Status = .ok) -> Outcome { Outcome(kind: .html(html), status: status) }
    static func redirect(_ location: String, session: String? = nil, clearingSession: Bool = false) -> Outcome {
        Outcome(kind: .redirect(location), status: .seeOther, session: session, clearSession: clearingSession)
    }

    func response(_ cookies: CookiePolicy) -> Response {
        let secureCookies = cookies.secure
        var response: Response
        switch kind {
        case .html(let html):
            response = Response(status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                                body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
            // Framing refused: no clickjacking of the forms.
            if let frameOptions = HTTPField.Name("X-Frame-Options") { response.headers[frameOptions] = "DENY" }
        case .redirect(let location):
            response = Response.redirect(to: location, type: .normal)
        }
        let lifetime = Int(TOTPLoginApp.sessionLifetime.components.seconds)
        if let session {
            response.setCookie(Cookie(name: TOTPLoginApp.sessionCookieName, value: session, maxAge: lifetime, path: "/",
                                      secure: secureCookies, httpOnly: true, sameSite: .lax))
        } else if clearSession {
            response.setCookie(Cookie(name: TOTPLoginApp.sessionCookieName, value: "", maxAge: 0, path: "/",
                                      secure: secureCookies, httpOnly: true, sameSite: .lax))
        }
        return response
    }
}

/// The fields of a URL-encoded form (at most 16 KB, decoded by Hummingbird's
/// `URLEncodedFormDecoder`); a missing field reads as "".
struct FormFields {
    static let maximumBytes = 16 * 1024
    private let values: [String: String]

    init(_ request: Request) async throws {
        let body = try await request.body.collect(upTo: Self.maximumBytes)
        values = try URLEncodedFormDecoder().decode([String: String].self, from: String(buffer: body))
    }

    subscript(_ name: String) -> String { values[name] ?? "" }
}

/// The app cannot start.
public enum AppError: Error, CustomStringConvertible {
    case configuration(String)

    public var description: String {
        switch self {
        case .configuration(let reason): "cannot configure the app: \(reason)"
        }
    }
}

/// Answers the session check's refusal (``FirebaseAuthenticationError``,
/// thrown by the `FirebaseAuthenticator` it wraps) with the sign-in page's
/// redirect instead of the middleware's JSON: a browser app's answer.
struct SessionRefusalRedirect: RouterMiddleware {
    typealias Context = AppRequestContext
    let app: TOTPLoginApp

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let refusal as FirebaseAuthenticationError {
            return app.signInAgain(after: refusal).response(app.cookies)
        }
    }
}
