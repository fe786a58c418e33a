import Foundation
import IdentityOTP

/// Text made safe for HTML element content and quoted attribute values.
func escaped(_ text: String) -> String {
    var result = ""
    result.reserveCapacity(text.utf8.count)
    for character in text {
        switch character {
        case "&": result += "&amp;"
        case "<": result += "&lt;"
        case ">": result += "&gt;"
        case "\"": result += "&quot;"
        case "'": result += "&#39;"
        default: result.append(character)
        }
    }
    return result
}

/// The app's pages: plain server-rendered HTML forms, no JavaScript. Every
/// value from outside goes through ``escaped(_:)``; every form that posts
/// carries the browser's CSRF token.
enum Pages {
    /// One page: a title, an optional notice, and its body.
    static func layout(_ title: String, notice: String? = nil, _ body: String) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escaped(title)) · TOTP Login</title>
        <style>
        body { font: 16px/1.5 system-ui, sans-serif; max-width: 36rem; margin: 2rem auto; padding: 0 1rem; color: #1d1d1f; }
        header { display: flex; justify-content: space-between; align-items: baseline; border-bottom: 1px solid #ddd; margin-bottom: 1rem; }
        header a { color: inherit; text-decoration: none; font-weight: 600; }
        label { display: block; margin: .75rem 0 .25rem; }
        input[type=email], input[type=password], input[type=text] { width: 100%; padding: .5rem; font-size: 1rem; box-sizing: border-box; }
        button { margin-top: 1rem; padding: .5rem 1rem; font-size: 1rem; }
        .notice { background: #eef6ff; border: 1px solid #9cc3f5; padding: .5rem .75rem; }
        .error { background: #fff0f0; border: 1px solid #f0a0a0; padding: .5rem .75rem; }
        code, .secret { font-family: ui-monospace, monospace; word-break: break-all; }
        .factor { display: flex; justify-content: space-between; align-items: center; border: 1px solid #ddd; padding: .25rem .75rem; margin: .5rem 0; }
        .factor form button { margin: 0; }
        </style>
        </head>
        <body>
        <header><a href="/">TOTP Login</a><span>an Identity Platform example</span></header>
        <h1>\(escaped(title))</h1>
        \(notice.map { "<p class=\"notice\" id=\"notice\">\(escaped($0))</p>" } ?? "")
        \(body)
        </body>
        </html>
        """
    }

    static func csrfField(_ token: String) -> String {
        "<input type=\"hidden\" name=\"csrf\" value=\"\(escaped(token))\">"
    }

    static func signUp(csrf: String, email: String = "", error: String? = nil) -> String {
        layout(
            "Create an account",
            """
            \(error.map { "<p class=\"error\" id=\"error\">\(escaped($0))</p>" } ?? "")
            <form method="post" action="/signup">
            \(csrfField(csrf))
            <label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="\(escaped(email))">
            <label for="password">Password</label><input id="password" name="password" type="password" autocomplete="new-password" minlength="6" required>
            <button id="submit" type="submit">Create account</button>
            </form>
            <p>Already have one? <a href="/login">Sign in</a>.</p>
            """)
    }

    static func verifyEmail(email: String, link: String?) -> String {
        let linkHTML =
            link.map {
                "<p><a id=\"verification-link\" href=\"\(escaped($0))\">Verify \(escaped(email))</a></p>"
            } ?? "<p class=\"error\">The emulator lists no verification link for this address.</p>"
        return layout(
            "Verify your email",
            """
            <p>Identity Platform sent a verification link to <b>\(escaped(email))</b>.
            In production it arrives by email; the local emulator lists it, so here it is:</p>
            \(linkHTML)
            <p>Then <a id="login-link" href="/login">sign in</a>. Adding an authenticator needs a verified address.</p>
            """)
    }

    static func login(csrf: String, email: String = "", notice: String? = nil, error: String? = nil) -> String {
        layout(
            "Sign in", notice: notice,
            """
            \(error.map { "<p class=\"error\" id=\"error\">\(escaped($0))</p>" } ?? "")
            <form method="post" action="/login">
            \(csrfField(csrf))
            <label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="\(escaped(email))">
            <label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
            <button id="submit" type="submit">Sign in</button>
            </form>
            <p>New here? <a href="/signup">Create an account</a>.</p>
            """)
    }

    static func secondFactor(csrf: String, factorName: String, error: String? = nil) -> String {
        layout(
            "Enter your code",
            """
            \(error.map { "<p class=\"error\" id=\"error\">\(escaped($0))</p>" } ?? "")
            <p>Your account is protected by a second factor. Open your authenticator app
            (<b>\(escaped(factorName))</b>) and type the 6-digit code it shows.</p>
            <form method="post" action="/login/totp">
            \(csrfField(csrf))
            <label for="code">Code</label><input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6,8}" required autofocus>
            <button id="submit" type="submit">Verify</button>
            </form>
            <p><a id="use-recovery-code" href="/login/recovery">Lost your authenticator? Use a recovery code</a></p>
            <p><a href="/login">Start over</a></p>
            """)
    }

    static func recoveryCode(csrf: String, error: String? = nil) -> String {
        layout(
            "Use a recovery code",
            """
            \(error.map { "<p class=\"error\" id=\"error\">\(escaped($0))</p>" } ?? "")
            <p>Type one of the recovery codes you saved when you added your authenticator.
            It removes the lost authenticator, signs you out everywhere else, and signs you in here
            so that you can add a new one. Each code works once.</p>
            <form method="post" action="/login/recovery">
            \(csrfField(csrf))
            <label for="code">Recovery code</label><input id="code" name="code" type="text" autocomplete="off" spellcheck="false" placeholder="XXXX-XXXX-XXXX" required autofocus>
            <button id="submit" type="submit">Recover my account</button>
            </form>
            <p><a href="/login/totp">Back to the code</a></p>
            """)
    }

    /// The recovery codes, shown once, with a text file to keep them.
    static func recoveryCodes(_ codes: [String], next: String) -> String {
        let text = "Recovery codes (each works once):\n" + codes.joined(separator: "\n") + "\n"
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-")
        let download =
            "data:text/plain;charset=utf-8," + (text.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
        return layout(
            "Save your recovery codes",
            """
            <p>If you lose your authenticator, one of these codes lets you back in. Each works once.
            <b>They are shown only now</b>: print them, or keep the file somewhere safe.</p>
            <ul id="recovery-codes">\(codes.map { "<li class=\"recovery-code\"><code>\(escaped($0))</code></li>" }.joined())</ul>
            <p><a id="download-codes" download="recovery-codes.txt" href="\(escaped(download))">Download as a text file</a></p>
            <p><a id="next" href="\(escaped(next))">I saved them</a></p>
            """)
    }

    /// A factor as the account page lists it.
    struct Factor {
        var uid: String
        var displayName: String
        var factorID: String
        var enrolled: Date?
    }

    static func account(
        csrf: String, email: String, secondFactor: String?, factors: [Factor], remainingCodes: Int?,
        notice: String? = nil,
        enrollmentDue: Date? = nil, activity: [SecurityEvent] = [], role: String? = nil
    ) -> String {
        let dateFormat = Date.ISO8601FormatStyle(dateSeparator: .dash, dateTimeSeparator: .space, timeZone: .gmt)
        let list =
            factors.isEmpty
            ? "<p id=\"no-factors\">No second factor yet: anyone with your password can sign in.</p>"
            : factors.map { factor in
                """
                <div class="factor" data-factor-id="\(escaped(factor.factorID))">
                <span><b class="factor-name">\(escaped(factor.displayName))</b> (\(escaped(factor.factorID))\(factor.enrolled.map { ", added \(escaped($0.formatted(dateFormat)))" } ?? ""))</span>
                <form method="post" action="/unenroll">\(csrfField(csrf))<input type="hidden" name="factorUID" value="\(escaped(factor.uid))"><button class="unenroll" type="submit">Remove</button></form>
                </div>
                """
            }.joined(separator: "\n")
        return layout(
            "Your account", notice: notice,
            """
            \(enrollmentDue.map { "<p class=\"notice\" id=\"enrollment-due\">Add an authenticator app by \(escaped($0.formatted(dateFormat))): after that, this account cannot be used without one.</p>" } ?? "")
            <p>Signed in as <b id="account-email">\(escaped(email))</b>,
            \(secondFactor.map { "with a second factor (<span id=\"second-factor\">\(escaped($0))</span>)" } ?? "with a password only").</p>
            \(role.map { "<p>Your role (the <code>role</code> claim the sign-in's blocking function set): <b id=\"role\">\(escaped($0))</b>.</p>" } ?? "")
            <h2>Second factors</h2>
            \(list)
            <p><a id="enroll-link" href="/enroll">Add an authenticator app</a></p>
            <h2>Recovery codes</h2>
            <p>\(remainingCodes.map { "<span id=\"remaining-codes\">\($0)</span> unused recovery codes." } ?? "<span id=\"remaining-codes\">No</span> recovery codes.")</p>
            <form method="post" action="/recovery-codes">\(csrfField(csrf))<button id="new-codes" type="submit">Make new recovery codes</button></form>
            <h2>Recent security activity</h2>
            \(Pages.activity(activity))
            <form method="post" action="/logout">\(csrfField(csrf))<button id="logout" type="submit">Sign out</button></form>
            """)
    }

    static func enroll(
        csrf: String, qrSVG: String, secret: String, uri: String, displayName: String = "", error: String? = nil,
        notice: String? = nil
    ) -> String {
        layout(
            "Add an authenticator app", notice: notice,
            """
            \(error.map { "<p class=\"error\" id=\"error\">\(escaped($0))</p>" } ?? "")
            <p>Scan this code with Google Authenticator, 1Password or any TOTP app:</p>
            <div id="qr">\(qrSVG)</div>
            <p>Or type this key: <span class="secret" id="secret">\(escaped(secret))</span></p>
            <details><summary>otpauth URI</summary><code id="otpauth-uri">\(escaped(uri))</code></details>
            <form method="post" action="/enroll">
            \(csrfField(csrf))
            <label for="displayName">Name for this authenticator</label><input id="displayName" name="displayName" type="text" maxlength="64" value="\(escaped(displayName))" placeholder="My phone">
            <label for="code">The code your app shows</label><input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6,8}" required>
            <button id="submit" type="submit">Add</button>
            </form>
            <p><a href="/account">Cancel</a></p>
            """)
    }

    static func logout(csrf: String) -> String {
        layout(
            "Sign out",
            """
            <form method="post" action="/logout">\(csrfField(csrf))<button id="logout" type="submit">Sign out</button></form>
            """)
    }

    /// A sign-out that cleared this browser's session but could not end the
    /// others: says so, and offers to try again.
    static func signOutIncomplete(csrf: String) -> String {
        layout(
            "Signed out here only",
            """
            <p class="error" id="error" data-reason="sessions-not-revoked">You are signed out on this browser, but your sessions on other \
            devices could not be ended just now: they may still be signed in.</p>
            <form method="post" action="/logout/retry">\(csrfField(csrf))<button id="retry-logout" type="submit">Try again</button></form>
            <p><small>HTTP 503</small></p>
            """)
    }

    /// An error page that names the Firebase error, so that a developer can
    /// look it up; `next` is where the person can go on; `id`, when the
    /// app itself refused, names the reason for scripts (`attempt-limit`).
    static func error(
        status: Int, title: String, explanation: String, firebaseCode: String?, next: (href: String, label: String),
        id: String? = nil
    ) -> String {
        layout(
            title,
            """
            <p class="error" id="error"\(id.map { " data-reason=\"\(escaped($0))\"" } ?? "")>\(escaped(explanation))</p>
            \(firebaseCode.map { "<p>Firebase error: <code id=\"error-code\">\(escaped($0))</code></p>" } ?? "")
            <p><a id="next" href="\(escaped(next.href))">\(escaped(next.label))</a></p>
            <p><small>HTTP \(status)</small></p>
            """)
    }
}
