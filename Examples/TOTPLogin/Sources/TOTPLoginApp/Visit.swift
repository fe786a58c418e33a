import Foundation
import HTTPTypes
import Hummingbird
import IdentityAdmin
import IdentityAdminHummingbird
import IdentityOTP
import IdentityOTPFormats
import Logging
import MultiFactorAuth

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
