import Foundation
import Hummingbird
import IdentityAdmin

/// Signing out: this browser's cookie, and every session of the user.
extension TOTPLoginApp {
    /// Signs out: the session cookie is cleared either way, and the
    /// sessions elsewhere are revoked (as Google's guide does: a stolen copy
    /// of the cookie dies too). When the revocation fails, the page says so
    /// and offers to try again, rather than claiming a sign-out it did not do.
    func logOut(_ request: Request, _ visit: inout Visit) async -> Outcome {
        var unrevoked: String?
        switch await sessionsToEnd(request, visit) {
        case .nobody:
            break
        case .of(let uid):
            if await !revokeSessions(of: uid) { unrevoked = uid }
        case .unknown:
            // The cookie could not be checked and the browser's state names no user: nothing is claimed.
            return .html(
                Pages.error(
                    status: 503, title: "Not signed out yet",
                    explanation:
                        "Your session could not be checked just now, so nothing was signed out. Try again shortly.",
                    firebaseCode: nil, next: ("/logout", "Try again"), id: "sign-out-unchecked"),
                status: .serviceUnavailable)
        }
        visit.signOut()
        guard let unrevoked else {
            return .redirect("/login?reason=\(LoginNotice.signedOut.rawValue)", clearingSession: true)
        }
        visit.state.unrevokedSessionsOf = unrevoked
        var outcome = Outcome.html(Pages.signOutIncomplete(csrf: visit.state.csrfToken), status: .serviceUnavailable)
        outcome.clearSession = true
        return outcome
    }

    /// Whose sessions a sign-out ends.
    enum SessionsToEnd {
        /// No session cookie, or an invalid one: there is no session to end.
        case nobody
        /// The cookie's user, or, when the cookie could not be checked (the
        /// key route or the account lookup out of reach), the user this
        /// browser signed in as.
        case of(String)
        /// The cookie could not be checked and the browser names no user.
        case unknown
    }

    /// Whose sessions a sign-out ends: a check that could not be made never
    /// reads as "nothing to revoke".
    func sessionsToEnd(_ request: Request, _ visit: Visit) async -> SessionsToEnd {
        guard let cookie = request.cookies[Self.sessionCookieName]?.value else { return .nobody }
        do {
            return .of(try await backend.admin.verifySessionCookie(cookie).uid)
        } catch  where error.code == .keysUnavailable || error.code == .revocationCheckFailed {
            logger.warning(
                "could not verify the session cookie at sign-out; using the browser's state",
                metadata: ["error": "\(error.code)"])
            return visit.state.user.map { .of($0.uid) } ?? .unknown
        } catch {
            return .nobody
        }
    }

    /// Tries again to end the sessions a sign-out could not end.
    func retryRevocation(_ visit: inout Visit) async -> Outcome {
        guard let uid = visit.state.unrevokedSessionsOf else { return .redirect("/login") }
        guard await revokeSessions(of: uid) else {
            return .html(Pages.signOutIncomplete(csrf: visit.state.csrfToken), status: .serviceUnavailable)
        }
        visit.state.unrevokedSessionsOf = nil
        return .redirect("/login?reason=\(LoginNotice.signedOut.rawValue)")
    }

    func revokeSessions(of uid: String) async -> Bool {
        do {
            try await backend.admin.revokeRefreshTokens(uid: uid, initiatedBy: .user)
            return true
        } catch {
            logger.warning(
                "could not revoke the sessions at sign-out", metadata: ["uid": "\(uid)", "error": "\(type(of: error))"])
            return false
        }
    }
}
