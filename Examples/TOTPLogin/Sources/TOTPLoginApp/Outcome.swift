import Foundation
import HTTPTypes
import Hummingbird
import IdentityAdmin
import IdentityAdminHummingbird
import IdentityOTP
import IdentityOTPFormats
import Logging
import MultiFactorAuth

/// What a route decided, turned into a response in one place so that every
/// cookie carries the same attributes.
struct Outcome {
    enum Kind {
        case html(String)
        case redirect(String)
    }
    var kind: Kind
    var status: HTTPResponse.Status = .ok
    /// A new session cookie to set.
    var session: String?
    /// Whether to delete the session cookie.
    var clearSession = false

    static func html(_ html: String, status: HTTPResponse.Status = .ok) -> Outcome {
        Outcome(kind: .html(html), status: status)
    }
    static func redirect(_ location: String, session: String? = nil, clearingSession: Bool = false) -> Outcome {
        Outcome(kind: .redirect(location), status: .seeOther, session: session, clearSession: clearingSession)
    }

    func response(_ cookies: CookiePolicy) -> Response {
        let secureCookies = cookies.secure
        var response: Response
        switch kind {
        case .html(let html):
            response = Response(
                status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
            // Framing refused: no clickjacking of the forms.
            if let frameOptions = HTTPField.Name("X-Frame-Options") { response.headers[frameOptions] = "DENY" }
        case .redirect(let location):
            response = Response.redirect(to: location, type: .normal)
        }
        let lifetime = Int(TOTPLoginApp.sessionLifetime.components.seconds)
        if let session {
            response.setCookie(
                Cookie(
                    name: TOTPLoginApp.sessionCookieName, value: session, maxAge: lifetime, path: "/",
                    secure: secureCookies, httpOnly: true, sameSite: .lax))
        } else if clearSession {
            response.setCookie(
                Cookie(
                    name: TOTPLoginApp.sessionCookieName, value: "", maxAge: 0, path: "/",
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

/// Answers the session check's refusal (`TokenVerificationError`,
/// thrown by the `FirebaseAuthenticator` it wraps) with the sign-in page's
/// redirect instead of the middleware's JSON: a browser app's answer.
struct SessionRefusalRedirect: RouterMiddleware {
    typealias Context = AppRequestContext
    let app: TOTPLoginApp

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let refusal as TokenVerificationError {
            return app.signInAgain(after: refusal).response(app.cookies)
        }
    }
}
