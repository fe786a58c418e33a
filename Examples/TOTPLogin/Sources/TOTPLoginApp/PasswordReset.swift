import Foundation
import IdentityOTP
import MultiFactorAuth

/// The password reset, with the app as the email's action handler
/// (Firebase's "custom email action handler"): the app sends the reset
/// email (`Auth.sendPasswordReset(withEmail:)`), and the email's link opens
/// the app's own page, which sets the new password
/// (`confirmPasswordReset(withCode:newPassword:)`). So the app knows the reset happened and clears the account's
/// attempt counts: after 100 wrong passwords in a row from anywhere, this
/// is the owner's way back in, at once and without waiting, which a
/// stranger who only knows the address cannot take.
extension TOTPLoginApp {
    /// Sends the reset email to the form's address. The answer is the same
    /// whether the address has an account or not (no enumeration).
    func sendPasswordReset(_ form: FormFields, _ visit: inout Visit) async -> Outcome {
        let email = form["email"].trimmingCharacters(in: .whitespacesAndNewlines)
        guard !email.isEmpty else {
            return .html(
                Pages.passwordReset(csrf: visit.state.csrfToken, error: "Enter your email address."),
                status: .badRequest)
        }
        do {
            try await backend.newAuth().sendPasswordReset(withEmail: email)
        } catch let error as AuthErrorCode where error.code == .userNotFound {
            // Said the same as a sent email.
        } catch let error as AuthErrorCode {
            logger.info("password reset refused", metadata: ["error": "\(error.code.userInfoName)"])
            return .html(
                Pages.passwordReset(csrf: visit.state.csrfToken, email: email, error: Self.sentence(error)),
                status: .badRequest)
        } catch {
            return failure(error, during: "sending the reset email")
        }
        // Production emails the link; the emulator lists it, so the example shows it.
        let code = try? await backend.passwordResetCode(for: email)
        return .html(
            Pages.passwordResetSent(
                email: email, link: code.map { Self.passwordResetPath + "?oobCode=" + Self.queryValue($0) }))
    }

    /// The email link's page: a new password for the code.
    func showPasswordResetConfirmation(code: String, _ visit: inout Visit) -> Outcome {
        .html(Pages.newPassword(csrf: visit.state.csrfToken, code: code))
    }

    /// Sets the new password with the email's code; then every attempt
    /// count of the account starts again, and the user signs in.
    func confirmPasswordReset(_ form: FormFields, from address: String?, _ visit: inout Visit) async -> Outcome {
        let code = form["oobCode"]
        let auth = backend.newAuth()
        let email: String
        do {
            email = try await auth.verifyPasswordResetCode(code)
            try await auth.confirmPasswordReset(withCode: code, newPassword: form["password"])
        } catch let error as AuthErrorCode {
            let explanation =
                error.code == .weakPassword
                ? "Choose a password of at least 6 characters."
                : "This reset link is not valid any more (used, expired or mistyped). Ask for a new one."
            return .html(
                Pages.newPassword(csrf: visit.state.csrfToken, code: code, error: explanation), status: .badRequest)
        } catch {
            return failure(error, during: "the password reset")
        }
        await limits.accountProven(AttemptLimits.accountKey(email: email), address: address)
        if let uid = try? await backend.admin.getUser(email: email).uid {
            // A reset ends every session of the account, as Identity Platform does: every
            // instance forgets what it knew of it (the revocation fan-out tells the others).
            backend.admin.forgetCachedAccountState(uid: uid)
            await SecurityEventSystem.record(
                SecurityEvent(.sessionsRevoked, user: backend.admin.userKey(uid), initiatedBy: .user))
        }
        visit.signOut()
        return .redirect("/login?reason=\(LoginNotice.passwordReset.rawValue)", clearingSession: true)
    }

    /// The handler's path, as the project's email template names it.
    static let passwordResetPath = "/login/reset/confirm"

    static func queryValue(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }
}

extension Pages {
    static func passwordReset(csrf: String, email: String = "", error: String? = nil) -> String {
        layout(
            "Reset your password",
            """
            \(error.map { "<p class=\"error\" id=\"error\">\(escaped($0))</p>" } ?? "")
            <form method="post" action="/login/reset">
            \(csrfField(csrf))
            <label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="\(escaped(email))">
            <button id="submit" type="submit">Email me a reset link</button>
            </form>
            """)
    }

    static func passwordResetSent(email: String, link: String?) -> String {
        let linkHTML =
            link.map {
                "<p>It runs on the emulator, so here is the email's link: <a id=\"reset-link\" href=\"\(escaped($0))\">Reset the password</a></p>"
            } ?? ""
        return layout(
            "Check your email",
            """
            <p id="reset-sent">If <b>\(escaped(email))</b> has an account, a link to reset its password is on its way.</p>
            \(linkHTML)
            """)
    }

    static func newPassword(csrf: String, code: String, error: String? = nil) -> String {
        layout(
            "Choose a new password",
            """
            \(error.map { "<p class=\"error\" id=\"error\">\(escaped($0))</p>" } ?? "")
            <form method="post" action="\(TOTPLoginApp.passwordResetPath)">
            \(csrfField(csrf))
            <input type="hidden" name="oobCode" value="\(escaped(code))">
            <label for="password">New password</label><input id="password" name="password" type="password" autocomplete="new-password" minlength="6" required>
            <button id="submit" type="submit">Set the password</button>
            </form>
            """)
    }
}
