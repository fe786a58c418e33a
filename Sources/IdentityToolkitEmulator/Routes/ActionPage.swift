#if Emulator
import Foundation
import IdentityToolkit

/// `GET /emulator/action`: the page an out-of-band link opens, as Firebase's
/// hosted action handler (and Google's emulator) show one. Plain HTML, no
/// script; every value from the request is escaped.
extension HelperRoutes {
    func openActionLink(
        mode: String, oobCode: String, apiKey: String?, lang: String?, tenantId: String?, continueUrl: String?,
        newPassword: String?, request: APIServerRequest
    ) async throws -> String {
        guard let requestType = ActionLinks.requestType(EmailActionMode(rawValue: mode)) else {
            throw APIServerError.invalidArgument("unknown mode '\(mode.prefix(40))'")
        }
        let continueLink =
            continueUrl.flatMap { InputRules.isAbsoluteURI($0) ? $0 : nil }.map {
                #"<p><a href="\#(Self.escape($0))">Continue</a></p>"#
            } ?? ""
        if requestType == .passwordReset, newPassword == nil {
            // The form sends the same link back with the new password.
            var fields = [("mode", mode), ("oobCode", oobCode)]
            for (name, value) in [
                ("apiKey", apiKey), ("lang", lang), ("tenantId", tenantId), ("continueUrl", continueUrl),
            ] {
                if let value { fields.append((name, value)) }
            }
            let hidden = fields.map {
                #"<input type="hidden" name="\#(Self.escape($0.0))" value="\#(Self.escape($0.1))">"#
            }.joined()
            return Self.page(
                title: "Reset your password",
                body: """
                    <form method="get" action="\(Self.openActionLinkPath)">\(hidden)
                    <label>New password <input type="password" name="newPassword" minlength="\(IdentityPlatformLimits.minimumPasswordLength)" required></label>
                    <button type="submit">Save</button></form>
                    """)
        }
        let email = try await services.run { state, context in
            try OutOfBandRules.applyActionLink(
                &state, code: oobCode, requestType: requestType, newPassword: newPassword, context)
        }
        let message: String
        switch requestType {
        case .passwordReset:
            message = "The password of \(Self.escape(email)) has been changed. Sign in with the new password."
        case .emailSignin:
            message =
                "This sign-in link for \(Self.escape(email)) is valid. Return to the app to finish signing in."
        default: message = "The email address \(Self.escape(email)) has been verified."
        }
        return Self.page(title: "Done", body: "<p>\(message)</p>\(continueLink)")
    }

    private static func page(title: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>\(escape(title))</title></head>
        <body><h1>\(escape(title))</h1>\(body)</body></html>
        """
    }

    /// HTML text and attribute escaping.
    static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
#endif
