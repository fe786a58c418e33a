import Foundation
import HTTPTypes
import Hummingbird
import IdentityAdmin
import IdentityAdminHummingbird
import IdentityOTP
import IdentityOTPFormats
import Logging
import MultiFactorAuth

/// Sessions (the cookie a sign-in mints, the check of each request) and the
/// helpers the handlers share.
extension TOTPLoginApp {
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
            let cookie = try await backend.admin.createSessionCookie(
                try await user.getIDToken(), expiresIn: Self.sessionLifetime)
            return .redirect(location, session: cookie)
        } catch let error as AuthErrorCode {
            return errorPage(
                error, title: "Sign-in failed", explanation: Self.sentence(error), next: ("/login", "Sign in again"))
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
    func signInAgain(after refusal: TokenVerificationError) -> Outcome {
        let notice: LoginNotice
        switch refusal.code {
        case .missingCredential: return .redirect("/login")
        case .revoked, .userDisabled, .userNotFound: notice = .sessionsEnded
        case .expired: notice = .expired
        case .keysUnavailable, .revocationCheckFailed:
            logger.warning("could not verify a session cookie", metadata: ["reason": "\(refusal.code)"])
            return Self.unavailable(next: "/account")
        default: notice = .invalidSession
        }
        logger.info("session cookie refused", metadata: ["reason": "\(refusal.code)"])
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
            return .refused(
                .redirect("/login?reason=\(LoginNotice.recentSignInRequired.rawValue)", clearingSession: true))
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
        if trustForwardedFor, let name = HTTPField.Name("X-Forwarded-For"),
            let forwarded = request.headers[values: name].last,
            let last = forwarded.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty
        {
            return last
        }
        return context.remoteAddress
    }

    func enrollmentPage(
        _ secret: TOTPSecret, account: String, csrf: String, displayName: String = "", error: String? = nil,
        notice: String? = nil
    ) -> Outcome {
        let uri = secret.generateQRCodeURL(withAccountName: account, issuer: issuer)
        let svg =
            (try? QRCode(text: uri, errorCorrection: .medium).svg(moduleSize: 6))
            ?? "<p class=\"error\">The QR code could not be drawn; type the key instead.</p>"
        return .html(
            Pages.enroll(
                csrf: csrf, qrSVG: svg, secret: secret.sharedSecretKey(), uri: uri, displayName: displayName,
                error: error,
                notice: notice))
    }

    func enrollmentError(_ error: AuthErrorCode) -> Outcome {
        if error.code == .requiresRecentLogin {
            return .redirect("/login?reason=\(LoginNotice.recentSignInRequired.rawValue)", clearingSession: true)
        }
        let explanation =
            error.code == .invalidMultiFactorSession || error.code == .sessionExpired
            ? "The enrollment took too long; start again for a new key."
            : Self.sentence(error)
        return errorPage(
            error, title: "The authenticator was not changed", explanation: explanation,
            next: ("/account", "Back to your account"))
    }

    /// The error's description, Firebase's own sentence.
    static func sentence(_ error: AuthErrorCode) -> String { error.localizedDescription }

    func errorPage(_ error: AuthErrorCode, title: String, explanation: String, next: (href: String, label: String))
        -> Outcome
    {
        let status: HTTPResponse.Status =
            switch error.code {
            case .tooManyRequests: .tooManyRequests
            case .networkError, .internalError: .badGateway
            default: .unauthorized
            }
        logger.info("shown an error page", metadata: ["error": "\(error.code.userInfoName)"])
        return .html(
            Pages.error(
                status: status.code, title: title, explanation: explanation,
                firebaseCode: "\(error.code.userInfoName) (AuthErrorCode.\(error.code), \(error.code.rawValue))",
                next: next),
            status: status)
    }

    /// Anything that is not an Identity Platform answer: logged by type (the
    /// description might quote a request), shown without detail.
    func failure(_ error: any Error, during step: String) -> Outcome {
        logger.error("unexpected failure", metadata: ["step": "\(step)", "error": "\(type(of: error))"])
        return .html(
            Pages.error(
                status: 500, title: "Something went wrong", explanation: "The server failed during \(step). Try again.",
                firebaseCode: nil, next: ("/", "Home")), status: .internalServerError)
    }

    /// A store or Identity Platform is out of reach: 503, and nothing is
    /// decided (a sign-in is never let through on a guess).
    static func unavailable(next: String) -> Outcome {
        .html(
            Pages.error(
                status: 503, title: "Try again shortly", explanation: "A service the sign-in needs cannot be reached.",
                firebaseCode: nil, next: (next, "Retry")), status: .serviceUnavailable)
    }

    /// A GET: reads (or starts) the browser's state, renders, and writes the
    /// state back when it changed.
    func page(_ request: Request, _ context: AppRequestContext, _ render: (inout Visit) async -> Outcome) async
        -> Response
    {
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
    func form(_ request: Request, _ context: AppRequestContext, _ handle: (FormFields, inout Visit) async -> Outcome)
        async -> Response
    {
        guard let cookie = request.cookies[cookies.browserCookieName]?.value else { return csrfRefusal() }
        let loaded: BrowserState?
        do { loaded = try await storage.load(cookie: cookie) } catch { return storageFailure(error) }
        guard let loaded else { return csrfRefusal() }
        let fields: FormFields
        do { fields = try await FormFields(request) } catch {
            return Outcome.html(
                Pages.error(
                    status: 400, title: "Unreadable form", explanation: "\(error)", firebaseCode: nil,
                    next: ("/", "Home")),
                status: .badRequest
            ).response(cookies)
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
        return Outcome.html(
            Pages.error(
                status: 403, title: "Form expired",
                explanation: "This form is out of date or came from another site. Reload the page and try again.",
                firebaseCode: nil, next: ("/", "Home")), status: .forbidden
        ).response(cookies)
    }
}
