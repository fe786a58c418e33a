import Foundation
import HTTPTypes
import Hummingbird
import IdentityAdmin
import Logging
import MultiFactorAuth
import OTPFormats

/// The example web app: sign-up, sign-in with a password and a TOTP code,
/// enrollment with a QR code, and a session kept in a Firebase session cookie.
///
/// The flow, page by page:
/// - `GET/POST /signup`: creates the account, sends the verification email,
///   and (locally) shows the link the emulator lists.
/// - `GET/POST /login`: signs in with the password. With a second factor
///   enrolled, the server keeps the ``MultiFactorResolver`` and asks for a
///   code at `/login/totp`.
/// - After sign-in the server exchanges the user's ID token for a session
///   cookie (`createSessionCookie`) and sets it HttpOnly, SameSite=Lax.
/// - `GET /account` verifies the cookie (`verifySessionCookie(checkRevoked: true)`)
///   and, when the user has a second factor, requires that the sign-in used it.
/// - `GET/POST /enroll`, `POST /unenroll`: manage the factors with the
///   user's own client, which Identity Platform requires a recent sign-in for.
/// - `GET/POST /logout`: clears the cookie and revokes the user's sessions.
public struct TOTPLoginApp: Sendable {
    /// The session cookie's name. Firebase Hosting forwards only a cookie
    /// called `__session` to a backend, so apps behind it use this name.
    public static let sessionCookieName = "__session"
    /// How long a sign-in lasts (Identity Platform allows 5 minutes to 2 weeks).
    public static let sessionLifetime: Duration = .seconds(60 * 60)

    let backend: IdentityBackend
    let browsers: BrowserSessions
    let issuer: String
    let secureCookies: Bool
    let logger: Logger

    /// - Parameters:
    ///   - backend: The Identity Platform project (an emulator here).
    ///   - issuer: The name authenticator apps show beside the account.
    ///   - secureCookies: Marks cookies `Secure`; set it when the app is served over HTTPS.
    ///   - logger: Where the app notes sign-ins and failures (never a password, code, secret or token).
    public init(backend: IdentityBackend, issuer: String = "TOTP Login example", secureCookies: Bool = false,
                logger: Logger = Logger(label: "TOTPLogin")) {
        self.backend = backend
        self.browsers = BrowserSessions()
        self.issuer = issuer
        self.secureCookies = secureCookies
        self.logger = logger
    }

    /// The routes, for an `Application` or for HummingbirdTesting.
    public func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/") { request, _ in await self.home(request) }
        router.get("/signup") { request, _ in await self.page(request) { browser, _ in .html(Pages.signUp(csrf: browser.csrfToken)) } }
        router.post("/signup") { request, _ in await self.form(request) { form, id, browser in await self.signUp(form, browserID: id, browser) } }
        router.get("/login") { request, _ in
            await self.page(request) { browser, _ in
                .html(Pages.login(csrf: browser.csrfToken, notice: LoginNotice(rawValue: request.uri.queryParameters["reason"].map(String.init) ?? "")?.text))
            }
        }
        router.post("/login") { request, _ in await self.form(request) { form, id, browser in await self.logIn(form, browserID: id, browser) } }
        router.get("/login/totp") { request, _ in
            await self.page(request) { browser, _ in
                guard let resolver = browser.pendingSignIn else { return .redirect("/login") }
                return .html(Pages.secondFactor(csrf: browser.csrfToken, factorName: Self.totpHint(resolver)?.displayName ?? "TOTP"))
            }
        }
        router.post("/login/totp") { request, _ in await self.form(request) { form, id, browser in await self.secondFactor(form, browserID: id, browser) } }
        router.get("/account") { request, _ in await self.page(request) { browser, _ in await self.account(request, browser) } }
        router.get("/enroll") { request, _ in await self.page(request) { browser, id in await self.showEnrollment(request, browserID: id, browser) } }
        router.post("/enroll") { request, _ in await self.form(request) { form, id, browser in await self.enroll(form, request: request, browserID: id, browser) } }
        router.post("/unenroll") { request, _ in await self.form(request) { form, id, browser in await self.unenroll(form, request: request, browserID: id, browser) } }
        router.get("/logout") { request, _ in await self.page(request) { browser, _ in .html(Pages.logout(csrf: browser.csrfToken)) } }
        router.post("/logout") { request, _ in await self.form(request) { _, id, _ in await self.logOut(request, browserID: id) } }
        return router
    }

    // MARK: Pages

    func home(_ request: Request) async -> Response {
        guard case .valid = await verifiedSession(request) else { return Outcome.redirect("/login").response(secureCookies: secureCookies) }
        return Outcome.redirect("/account").response(secureCookies: secureCookies)
    }

    func signUp(_ form: FormFields, browserID: String, _ browser: BrowserSession) async -> Outcome {
        let email = form["email"]
        let auth = backend.newAuth()
        do {
            let user = try await auth.createUser(withEmail: email, password: form["password"]).user
            try await user.sendEmailVerification()
            logger.info("signed up", metadata: ["uid": "\(user.uid)"])
            let link = try await backend.verificationLink(for: email)
            return .html(Pages.verifyEmail(email: email, link: link))
        } catch let error as AuthErrorCode {
            return .html(Pages.signUp(csrf: browser.csrfToken, email: email, error: Self.sentence(error)), status: .badRequest)
        } catch {
            return failure(error, during: "sign-up")
        }
    }

    func logIn(_ form: FormFields, browserID: String, _ browser: BrowserSession) async -> Outcome {
        let email = form["email"]
        let auth = backend.newAuth()
        do {
            let result = try await auth.signIn(withEmail: email, password: form["password"])
            return await signedIn(result.user, auth: auth, browserID: browserID)
        } catch let error as AuthErrorCode where error.code == .secondFactorRequired {
            guard let resolver = error.userInfo[AuthErrors.userInfoMultiFactorResolverKey] as? MultiFactorResolver,
                  Self.totpHint(resolver) != nil else {
                return errorPage(error, title: "This app cannot complete your sign-in",
                                 explanation: "Your account's second factor is not an authenticator app.", next: ("/login", "Back to sign-in"))
            }
            await browsers.update(id: browserID) { $0.pendingSignIn = resolver }
            return .redirect("/login/totp")
        } catch let error as AuthErrorCode {
            return .html(Pages.login(csrf: browser.csrfToken, email: email, error: Self.sentence(error)), status: .unauthorized)
        } catch {
            return failure(error, during: "sign-in")
        }
    }

    func secondFactor(_ form: FormFields, browserID: String, _ browser: BrowserSession) async -> Outcome {
        guard let resolver = browser.pendingSignIn, let hint = Self.totpHint(resolver) else { return .redirect("/login") }
        let assertion = TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: hint.uid, oneTimePassword: form["code"])
        do {
            let result = try await resolver.resolveSignIn(with: assertion)
            await browsers.update(id: browserID) { $0.pendingSignIn = nil }
            return await signedIn(result.user, auth: resolver.auth, browserID: browserID)
        } catch let error as AuthErrorCode {
            switch error.code {
            case .invalidVerificationCode:
                // The challenge stays open: the person may type the next code.
                return .html(Pages.secondFactor(csrf: browser.csrfToken, factorName: hint.displayName ?? "TOTP",
                                                error: "\(Self.sentence(error)) (\(error.code.userInfoName))"), status: .unauthorized)
            case .invalidMultiFactorSession, .sessionExpired:
                await browsers.update(id: browserID) { $0.pendingSignIn = nil }
                return errorPage(error, title: "Your sign-in expired",
                                 explanation: "The code was not entered in time; sign in with your password again.", next: ("/login", "Sign in again"))
            case .tooManyRequests:
                await browsers.update(id: browserID) { $0.pendingSignIn = nil }
                return errorPage(error, title: "Too many attempts",
                                 explanation: "Too many wrong codes for this sign-in. Wait a moment, then sign in again.", next: ("/login", "Sign in again"))
            default:
                return errorPage(error, title: "Sign-in failed", explanation: Self.sentence(error), next: ("/login", "Sign in again"))
            }
        } catch {
            return failure(error, during: "the second factor")
        }
    }

    func account(_ request: Request, _ browser: BrowserSession) async -> Outcome {
        let token: DecodedIDToken
        switch await verifiedSession(request) {
        case .valid(let verified): token = verified
        case .refused(let answer): return answer
        }
        do {
            let user = try await backend.admin.getUser(uid: token.uid)
            // The policy: a user with a second factor has an account page
            // only after a sign-in that used it.
            if !user.multiFactor.enrolledFactors.isEmpty {
                do { try token.requireSecondFactor() } catch {
                    return .redirect("/login?reason=\(LoginNotice.secondFactorRequired.rawValue)", clearingSession: true)
                }
            }
            let factors = user.multiFactor.enrolledFactors.map {
                Pages.Factor(uid: $0.uid, displayName: $0.displayName ?? "(no name)", factorID: $0.factorID, enrolled: $0.enrollmentTime)
            }
            let notice = AccountNotice(rawValue: request.uri.queryParameters["done"].map(String.init) ?? "")?.text
            return .html(Pages.account(csrf: browser.csrfToken, email: user.email ?? token.email ?? token.uid,
                                       secondFactor: token.signInSecondFactor, factors: factors, notice: notice))
        } catch {
            return failure(error, during: "loading the account")
        }
    }

    func showEnrollment(_ request: Request, browserID: String, _ browser: BrowserSession) async -> Outcome {
        let user: User
        switch await signedInClient(request, browser) {
        case .valid(let signedIn): user = signedIn
        case .refused(let answer): return answer
        }
        do {
            let session = try await user.multiFactor.session()
            let secret = try await TOTPMultiFactorGenerator.generateSecret(with: session)
            await browsers.update(id: browserID) { $0.pendingSecret = secret }
            return enrollmentPage(secret, account: user.email ?? user.uid, csrf: browser.csrfToken)
        } catch let error as AuthErrorCode {
            return enrollmentError(error)
        } catch {
            return failure(error, during: "starting the enrollment")
        }
    }

    func enroll(_ form: FormFields, request: Request, browserID: String, _ browser: BrowserSession) async -> Outcome {
        let user: User
        switch await signedInClient(request, browser) {
        case .valid(let signedIn): user = signedIn
        case .refused(let answer): return answer
        }
        guard let secret = browser.pendingSecret else { return .redirect("/enroll") }
        let displayName = form["displayName"].trimmingCharacters(in: .whitespacesAndNewlines)
        do {
            let assertion = TOTPMultiFactorGenerator.assertionForEnrollment(with: secret, oneTimePassword: form["code"])
            try await user.multiFactor.enroll(with: assertion, displayName: displayName.isEmpty ? nil : displayName)
            await browsers.update(id: browserID) { $0.pendingSecret = nil }
            logger.info("enrolled a TOTP factor", metadata: ["uid": "\(user.uid)"])
            // The enrollment's new ID token records the TOTP sign-in; the
            // session cookie is made anew from it.
            return await renewedSession(user, then: "/account?done=\(AccountNotice.enrolled.rawValue)")
        } catch let error as AuthErrorCode where error.code == .invalidVerificationCode {
            var page = enrollmentPage(secret, account: user.email ?? user.uid, csrf: browser.csrfToken, displayName: displayName,
                                      error: "\(Self.sentence(error)) (\(error.code.userInfoName))")
            page.status = .badRequest
            return page
        } catch let error as AuthErrorCode {
            await browsers.update(id: browserID) { $0.pendingSecret = nil }
            return enrollmentError(error)
        } catch {
            return failure(error, during: "the enrollment")
        }
    }

    func unenroll(_ form: FormFields, request: Request, browserID: String, _ browser: BrowserSession) async -> Outcome {
        let user: User
        switch await signedInClient(request, browser) {
        case .valid(let signedIn): user = signedIn
        case .refused(let answer): return answer
        }
        do {
            try await user.multiFactor.unenroll(withFactorUID: form["factorUID"])
            logger.info("removed a factor", metadata: ["uid": "\(user.uid)"])
            return await renewedSession(user, then: "/account?done=\(AccountNotice.unenrolled.rawValue)")
        } catch let error as AuthErrorCode where error.code == .invalidUserToken {
            // Removing the newest of several factors ends every session.
            await browsers.reset(id: browserID)
            return .redirect("/login?reason=\(LoginNotice.sessionsEnded.rawValue)", clearingSession: true)
        } catch let error as AuthErrorCode {
            return enrollmentError(error)
        } catch {
            return failure(error, during: "removing the factor")
        }
    }

    func logOut(_ request: Request, browserID: String) async -> Outcome {
        if let cookie = request.cookies[Self.sessionCookieName]?.value,
           let token = try? await backend.admin.verifySessionCookie(cookie) {
            // As Google's guide does: a stolen copy of the cookie dies too.
            do { try await backend.admin.revokeRefreshTokens(uid: token.uid) } catch {
                logger.warning("could not revoke the sessions at sign-out", metadata: ["uid": "\(token.uid)", "error": "\(type(of: error))"])
            }
        }
        await browsers.reset(id: browserID)
        return .redirect("/login?reason=\(LoginNotice.signedOut.rawValue)", clearingSession: true)
    }

    // MARK: Sessions

    /// Exchanges the user's fresh ID token for a session cookie.
    func signedIn(_ user: User, auth: Auth, browserID: String) async -> Outcome {
        await browsers.update(id: browserID) { $0.auth = auth; $0.pendingSignIn = nil }
        logger.info("signed in", metadata: ["uid": "\(user.uid)"])
        return await renewedSession(user, then: "/account")
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

    /// The request's session cookie, verified with revocation checked; a
    /// redirect to the sign-in page (clearing a bad cookie) when there is none.
    func verifiedSession(_ request: Request) async -> Checked<DecodedIDToken> {
        guard let cookie = request.cookies[Self.sessionCookieName]?.value, !cookie.isEmpty else { return .refused(.redirect("/login")) }
        do throws(TokenVerificationError) {
            return .valid(try await backend.admin.verifySessionCookie(cookie, checkRevoked: true))
        } catch {
            let reason: LoginNotice
            switch error.code {
            case .revoked, .userDisabled, .userNotFound: reason = .sessionsEnded
            case .expired: reason = .expired
            case .keysUnavailable, .revocationCheckFailed:
                // Identity Platform is out of reach: the cookie may be fine.
                logger.warning("could not verify a session cookie", metadata: ["error": "\(error)"])
                return .refused(.html(Pages.error(status: 503, title: "Try again shortly", explanation: "The sign-in service cannot be reached.",
                                                  firebaseCode: nil, next: ("/account", "Retry")), status: .serviceUnavailable))
            default: reason = .invalidSession
            }
            logger.info("session cookie refused", metadata: ["reason": "\(reason.rawValue)"])
            return .refused(.redirect("/login?reason=\(reason.rawValue)", clearingSession: true))
        }
    }

    /// The client this browser signed in with, for the calls that need the
    /// user's own ID token: the session cookie must be valid and the client's
    /// user the cookie's (else the sign-in happened before a restart, or in
    /// another browser, and is asked again).
    func signedInClient(_ request: Request, _ browser: BrowserSession) async -> Checked<User> {
        guard case .valid(let token) = await verifiedSession(request) else { return .refused(.redirect("/login")) }
        guard let user = browser.auth?.currentUser, user.uid == token.uid else {
            return .refused(.redirect("/login?reason=\(LoginNotice.recentSignInRequired.rawValue)", clearingSession: true))
        }
        return .valid(user)
    }

    /// What a check found: the value, or what to answer instead.
    enum Checked<Value> {
        case valid(Value)
        case refused(Outcome)
    }

    // MARK: Helpers

    static func totpHint(_ resolver: MultiFactorResolver) -> MultiFactorInfo? {
        resolver.hints.first { $0.factorID == TOTPMultiFactorID }
    }

    func enrollmentPage(_ secret: TOTPSecret, account: String, csrf: String, displayName: String = "", error: String? = nil) -> Outcome {
        let uri = secret.generateQRCodeURL(withAccountName: account, issuer: issuer)
        let svg = (try? QRCode(text: uri, errorCorrection: .medium).svg(moduleSize: 6)) ?? "<p class=\"error\">The QR code could not be drawn; type the key instead.</p>"
        return .html(Pages.enroll(csrf: csrf, qrSVG: svg, secret: secret.sharedSecretKey(), uri: uri, displayName: displayName, error: error))
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

    /// A GET: finds or starts the browser's session, renders, and sets the
    /// browser cookie when it is new.
    func page(_ request: Request, _ render: (BrowserSession, String) async -> Outcome) async -> Response {
        let (id, session, isNew) = await browsers.session(id: request.cookies[BrowserSessions.cookieName]?.value)
        var response = await render(session, id).response(secureCookies: secureCookies)
        if isNew { response.setCookie(browserCookie(id)) }
        return response
    }

    /// A POST: refused (403) without the browser's session and its CSRF
    /// token, so that no other site can submit the app's forms.
    func form(_ request: Request, _ handle: (FormFields, String, BrowserSession) async -> Outcome) async -> Response {
        guard let id = request.cookies[BrowserSessions.cookieName]?.value,
              let session = await browsers.existing(id: id) else {
            return csrfRefusal()
        }
        let fields: FormFields
        do { fields = try await FormFields(request) } catch {
            return Outcome.html(Pages.error(status: 400, title: "Unreadable form", explanation: "\(error)", firebaseCode: nil, next: ("/", "Home")),
                                status: .badRequest).response(secureCookies: secureCookies)
        }
        guard BrowserSessions.tokensMatch(fields["csrf"], session.csrfToken) else { return csrfRefusal() }
        return await handle(fields, id, session).response(secureCookies: secureCookies)
    }

    func csrfRefusal() -> Response {
        logger.warning("refused a form without a valid CSRF token")
        return Outcome.html(Pages.error(status: 403, title: "Form expired", explanation: "This form is out of date or came from another site. Reload the page and try again.",
                                        firebaseCode: nil, next: ("/", "Home")), status: .forbidden).response(secureCookies: secureCookies)
    }

    func browserCookie(_ id: String) -> Cookie {
        Cookie(name: BrowserSessions.cookieName, value: id, path: "/", secure: secureCookies, httpOnly: true, sameSite: .lax)
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

    var text: String {
        switch self {
        case .signedOut: "You are signed out."
        case .sessionsEnded: "Your sessions ended (signed out everywhere, or the account changed). Sign in again."
        case .expired: "Your session expired. Sign in again."
        case .invalidSession: "Your session is not valid. Sign in again."
        case .secondFactorRequired: "Your account has a second factor: sign in with it to continue."
        case .recentSignInRequired: "Changing your second factors needs a recent sign-in. Sign in again."
        }
    }
}

/// What the account page confirms, as a query value.
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

    func response(secureCookies: Bool) -> Response {
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
