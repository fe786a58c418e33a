#if Emulator
import Foundation
import IdentityToolkit
import IdentityOTP

/// The emulator's page, rendered from a snapshot: plain HTML with inline
/// style, no script and no outside asset. Every value from the state is
/// escaped (``HelperRoutes/escape(_:)``); every form posts back to the
/// page with the form token.
enum ConsolePage {
    /// What the page shows, taken in one rule run.
    struct Snapshot: Sendable {
        var now: Date
        var projects: [String]
        var project: String
        var tenants: [(id: String, displayName: String?)]
        var tenant: String?
        var tenantExists: Bool
        var userCount: Int
        var users: [EmulatedUser]
        /// The realm's TOTP window, nil when TOTP is not enabled.
        var totpWindow: Int?
        var oobCodes: [OutOfBandCode]
        var smsCodes: [PhoneVerification]
        var clockAdjusted = false
        var formToken = ""
        var exportDirectory: String?
        var links: ActionLinks?
        var notice: Notice?
        /// The project's blocking-function triggers (event → URL), and the
        /// last calls to them, newest first.
        var triggers: [(event: String, url: String)] = []
        var blockingCalls: [BlockingCallLog.Call] = []
        /// The faults in force (`setFaults`, `--fault`).
        var faults: [EmulatorFault] = []
    }

    /// The outcome of the form just sent.
    enum Notice: Sendable {
        case done(String)
        case failed(String)
    }

    private static func escape(_ text: String) -> String { HelperRoutes.escape(text) }

    static func render(_ page: Snapshot) -> String {
        var html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
            <title>Identity Toolkit emulator · \(escape(page.project))</title>
            <style>
            body{font:14px/1.45 system-ui,sans-serif;margin:1.5rem;color:#1d1d1f}h1{font-size:1.3rem}h2{font-size:1.05rem;margin-top:1.6rem}
            table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid #ddd;padding:.35rem .5rem;text-align:left;vertical-align:top}
            code{font:13px ui-monospace,monospace}.totp{font-size:1.15rem;font-weight:600;letter-spacing:.08em}.muted{color:#666}
            .notice{padding:.5rem .75rem;border-radius:4px;background:#e8f5e9}.failed{background:#fdecea}form.inline{display:inline}
            nav a{margin-right:.75rem}nav a.current{font-weight:600}
            </style></head><body>
            <h1>Identity Toolkit emulator</h1>

            """
        switch page.notice {
        case .done(let text)?: html += #"<p class="notice" role="status">\#(escape(text))</p>"#
        case .failed(let text)?: html += #"<p class="notice failed" role="alert">\#(escape(text))</p>"#
        case nil: break
        }
        html += navigation(page)
        html += clock(page)
        html += users(page)
        html += codes(page)
        html += blockingFunctions(page)
        html += faults(page)
        html += export(page)
        html += "</body></html>\n"
        return html
    }

    private static func hidden(_ page: Snapshot) -> String {
        var fields =
            #"<input type="hidden" name="csrf" value="\#(escape(page.formToken))"><input type="hidden" name="project" value="\#(escape(page.project))">"#
        if let tenant = page.tenant { fields += #"<input type="hidden" name="tenant" value="\#(escape(tenant))">"# }
        return fields
    }

    private static func form(_ page: Snapshot, action: ConsoleActionKind, fields: String = "", button: String)
        -> String
    {
        #"<form class="inline" method="post" action="\#(HelperRoutes.actOnConsolePath)">\#(hidden(page))<input type="hidden" name="action" value="\#(action.rawValue)">\#(fields)<button type="submit">\#(escape(button))</button></form>"#
    }

    private static func link(project: String, tenant: String?) -> String {
        var components = URLComponents()
        components.path = HelperRoutes.showConsolePath
        components.queryItems =
            [URLQueryItem(name: "project", value: project)]
            + (tenant.map { [URLQueryItem(name: "tenant", value: $0)] } ?? [])
        return escape(components.string ?? HelperRoutes.showConsolePath)
    }

    private static func navigation(_ page: Snapshot) -> String {
        var html = "<nav><span class=\"muted\">Projects:</span> "
        for project in page.projects {
            let current = project == page.project && page.tenant == nil ? " class=\"current\"" : ""
            html += #"<a\#(current) href="\#(link(project: project, tenant: nil))">\#(escape(project))</a>"#
        }
        if !page.tenants.isEmpty {
            html += "<br><span class=\"muted\">Tenants of \(escape(page.project)):</span> "
            for tenant in page.tenants {
                let current = tenant.id == page.tenant ? " class=\"current\"" : ""
                let label = tenant.displayName.map { "\(escape($0)) (\(escape(tenant.id)))" } ?? escape(tenant.id)
                html += #"<a\#(current) href="\#(link(project: page.project, tenant: tenant.id))">\#(label)</a>"#
            }
        }
        html += #" · <a href="\#(link(project: page.project, tenant: page.tenant))">Refresh</a></nav>"#
        return html
    }

    private static func clock(_ page: Snapshot) -> String {
        let time = page.now.formatted(.iso8601)
        let state = page.clockAdjusted ? "moved from the system clock" : "the system clock"
        return """
            <h2>Clock</h2><p>Now: <code id="clock-now">\(escape(time))</code> <span class="muted">(\(state))</span></p>
            <p>\(form(page, action: .advanceClock, fields: #"<label>Seconds <input name="seconds" value="30" size="8" inputmode="decimal"></label> "#, button: "Move the clock"))
            \(form(page, action: .releaseClock, button: "Follow the system clock"))</p>

            """
    }

    private static func users(_ page: Snapshot) -> String {
        let realm = page.tenant.map { "tenant \(escape($0))" } ?? "project \(escape(page.project))"
        guard page.tenantExists else { return "<h2>Users</h2><p>The \(realm) does not exist.</p>" }
        var html = "<h2>Users of the \(realm) (\(page.userCount))</h2>"
        if page.userCount > page.users.count {
            html += "<p class=\"muted\">The first \(page.users.count) by uid are shown.</p>"
        }
        guard !page.users.isEmpty else { return html + "<p class=\"muted\">No users.</p>" }
        html +=
            "<table><thead><tr><th>uid</th><th>Email</th><th>Name</th><th>State</th><th>Second factors</th><th></th></tr></thead><tbody>"
        for user in page.users {
            var state: [String] = []
            if user.disabled { state.append("disabled") }
            if user.isAnonymous { state.append("no sign-in method") }
            if user.email != nil { state.append(user.emailVerified ? "verified" : "unverified") }
            html +=
                "<tr id=\"user-\(escape(user.localId))\"><td><code>\(escape(user.localId))</code></td><td>\(escape(user.email ?? ""))</td>"
            html += "<td>\(escape(user.displayName ?? ""))</td><td>\(state.joined(separator: ", "))</td><td>"
            html += user.enrollments.map { factor(page, user: user, $0) }.joined(separator: "<br>")
            html +=
                "</td><td>\(form(page, action: .deleteUser, fields: #"<input type="hidden" name="uid" value="\#(escape(user.localId))">"#, button: "Delete"))</td></tr>"
        }
        return html + "</tbody></table>"
    }

    /// A factor, with the TOTP code an authenticator would show now.
    private static func factor(_ page: Snapshot, user: EmulatedUser, _ factor: SecondFactor) -> String {
        var html = escape(factor.displayName ?? "(no name)") + " "
        switch factor.kind {
        case .phone(let number):
            html += "<span class=\"muted\">SMS \(escape(number))</span>"
        case .totp(let secret, _):
            let seconds = Int64(page.now.timeIntervalSince1970.rounded(.down))
            let period = IdentityPlatformLimits.totpPeriodSeconds
            if let totp = try? TOTP(key: secret, digits: IdentityPlatformLimits.totpDigits, period: period),
                let code = try? totp.code(at: seconds)
            {
                html +=
                    #"<span class="muted">TOTP</span> <code class="totp" data-factor="\#(escape(factor.id))">\#(code)</code>"#
                html +=
                    " <span class=\"muted\">for \(period - seconds % period) s\(page.totpWindow == nil ? "; TOTP is off here" : "")</span>"
            }
        }
        let fields =
            #"<input type="hidden" name="uid" value="\#(escape(user.localId))"><input type="hidden" name="factor" value="\#(escape(factor.id))">"#
        return html + " " + form(page, action: .withdrawFactor, fields: fields, button: "Withdraw")
    }

    private static func codes(_ page: Snapshot) -> String {
        var html = "<h2>Email action codes</h2>"
        if page.oobCodes.isEmpty {
            html += "<p class=\"muted\">None pending.</p>"
        } else {
            html += "<table><thead><tr><th>Email</th><th>For</th><th>Link</th></tr></thead><tbody>"
            for code in page.oobCodes {
                let link = page.links.map { escape($0.link(for: code)) } ?? ""
                html +=
                    "<tr><td>\(escape(code.email))</td><td>\(escape(code.requestType.rawValue))</td><td><a href=\"\(link)\">Open</a></td></tr>"
            }
            html += "</tbody></table>"
        }
        html += "<h2>SMS codes</h2>"
        guard !page.smsCodes.isEmpty else { return html + "<p class=\"muted\">None pending.</p>" }
        html += "<table><thead><tr><th>Phone number</th><th>Code</th><th>Until</th></tr></thead><tbody>"
        for code in page.smsCodes {
            html +=
                "<tr><td>\(escape(code.phoneNumber))</td><td><code>\(escape(code.code))</code></td><td>\(escape(code.expiresAt.formatted(.iso8601)))</td></tr>"
        }
        return html + "</tbody></table>"
    }

    private static func blockingFunctions(_ page: Snapshot) -> String {
        var html = "<h2>Blocking functions</h2>"
        guard !page.triggers.isEmpty else {
            return html
                + "<p class=\"muted\">None configured (the admin API's <code>blockingFunctions.triggers</code>).</p>"
        }
        html += "<table id=\"blocking-triggers\"><thead><tr><th>Trigger</th><th>Function</th></tr></thead><tbody>"
        for trigger in page.triggers {
            html += "<tr><td>\(escape(trigger.event))</td><td><code>\(escape(trigger.url))</code></td></tr>"
        }
        html += "</tbody></table><h3>Last calls</h3>"
        guard !page.blockingCalls.isEmpty else { return html + "<p class=\"muted\">None yet.</p>" }
        html +=
            "<table id=\"blocking-calls\"><thead><tr><th>When</th><th>Trigger</th><th>User</th><th>Method</th><th>Outcome</th><th>Took</th></tr></thead><tbody>"
        for call in page.blockingCalls {
            let user =
                escape(call.uid)
                + (call.tenant.map { " <span class=\"muted\">(tenant \(escape($0)))</span>" } ?? "")
            let outcome: String
            switch call.outcome {
            case .allowed(let fields):
                outcome = fields.isEmpty ? "allowed" : "allowed, setting " + escape(fields.joined(separator: ", "))
            case .refused(let message): outcome = "<strong>refused</strong>: " + escape(message)
            }
            let took = Int((call.duration / .milliseconds(1)).rounded())
            html +=
                "<tr><td>\(escape(call.at.formatted(.iso8601)))</td><td>\(escape(call.trigger))</td><td><code>\(user)</code></td>"
            html += "<td>\(escape(call.method))</td><td>\(outcome)</td><td>\(took) ms</td></tr>"
        }
        return html + "</tbody></table>"
    }

    private static func faults(_ page: Snapshot) -> String {
        var html = "<h2>Faults</h2>"
        guard !page.faults.isEmpty else {
            return html
                + "<p class=\"muted\">None: every operation answers. <code>PUT /emulator/v1/faults</code> or <code>--fault</code> sets some.</p>"
        }
        html += "<table id=\"faults\"><tr><th>operation</th><th>fault</th><th>delay</th><th>requests left</th></tr>"
        for fault in page.faults {
            html +=
                "<tr><td><code>\(escape(fault.operation))</code></td><td>\(escape(fault.kind.rawValue))</td>"
                + "<td>\(fault.delayMillis.map { "\($0) ms" } ?? "")</td><td>\(fault.remaining.map(String.init) ?? "until cleared")</td></tr>"
        }
        return html + "</table>"
    }

    private static func export(_ page: Snapshot) -> String {
        guard let directory = page.exportDirectory else {
            return
                "<h2>Export</h2><p class=\"muted\">Start the emulator with <code>--export-on-exit DIR</code> to export from here.</p>"
        }
        return
            "<h2>Export</h2><p>\(form(page, action: .exportNow, button: "Export now")) <span class=\"muted\">to <code>\(escape(directory))</code>, replacing it</span></p>"
    }
}
#endif
