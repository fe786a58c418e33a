#if Emulator
import Foundation
import HTTPTypes
import Hummingbird
import IdentityToolkit
import IdentitySupport

/// What keeps a web page in the developer's browser from driving the
/// emulator, which takes any password and mints tokens for anyone:
///
/// - **Host**: a request must name a loopback host (or the configured one,
///   or one of ``EmulatorConfiguration/allowedHosts``) in its `Host`
///   header, so a DNS-rebinding page (`evil.example` resolving to
///   127.0.0.1) is refused.
/// - **Origin**: a browser request (one with an `Origin`) must come from a
///   loopback origin or one of ``EmulatorConfiguration/allowedOrigins``;
///   another origin is refused before anything runs (a "simple" POST would
///   otherwise act even though its answer stays unread), and preflights
///   grant only the methods and headers the API uses.
/// - The helpers that change state and the admin routes need `Bearer
///   owner`, which no page can send without a preflight (the spec's security).
/// - **Pages** (the emulator's own page, action links) get no CORS headers,
///   so no other origin can read them (or the page's form token); a form
///   sent to one must come from the emulator's own origin; and they forbid
///   framing, scripts and outside assets.
struct LaptopSafety: Sendable {
    static let allowOrigin = HTTPField.Name("Access-Control-Allow-Origin")!
    static let allowMethods = HTTPField.Name("Access-Control-Allow-Methods")!
    static let allowHeaders = HTTPField.Name("Access-Control-Allow-Headers")!
    static let maxAge = HTTPField.Name("Access-Control-Max-Age")!
    static let exposeHeaders = HTTPField.Name("Access-Control-Expose-Headers")!
    static let origin = HTTPField.Name("Origin")!

    /// The methods the API uses.
    static let methods = "GET, POST, PUT, PATCH, DELETE, OPTIONS"
    /// The request headers the API reads (and the Firebase JS SDK sends);
    /// a preflight is granted these, never whatever it asks for.
    static let requestHeaders =
        "Authorization, Content-Type, X-Client-Version, X-Firebase-Client, X-Firebase-GMPID, X-Firebase-Locale, X-Firebase-AppCheck"

    /// The configured bind address (a request may name it).
    let configuredHost: String
    /// Whether the emulator serves other machines (then any `Host` is accepted).
    let allowRemote: Bool
    /// Extra host names a `Host` header may carry.
    let allowedHosts: Set<String>
    /// Extra origins allowed; `*` allows any.
    let allowedOrigins: Set<String>

    init(_ configuration: EmulatorConfiguration) {
        configuredHost = configuration.host.lowercased()
        allowRemote = configuration.allowRemote
        allowedHosts = Set(configuration.allowedHosts.map { $0.lowercased() })
        allowedOrigins = Set(configuration.allowedOrigins.map { $0.lowercased() })
    }

    /// Whether `host` (a name or an address, without a port) is loopback:
    /// `localhost` and `*.localhost` (RFC 6761), 127.0.0.0/8, `::1`.
    static func isLoopback(host: String) -> Bool {
        let name = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if name == "localhost" || name.hasSuffix(".localhost") || name == "::1" { return true }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// The host of a `Host` header or an origin's authority, without its port.
    static func hostName(_ authority: some StringProtocol) -> String {
        let text = String(authority).lowercased()
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") { return String(text[...close]) }
        return String(text.split(separator: ":", maxSplits: 1).first ?? "")
    }

    /// Whether a request naming `host` in its `Host` header may be answered.
    func acceptsHost(_ header: String?) -> Bool {
        // No browser sends a request without Host; tools on the machine may.
        guard let header, !header.isEmpty else { return true }
        if allowRemote { return true }
        let host = Self.hostName(header)
        return Self.isLoopback(host: host) || host == configuredHost || allowedHosts.contains(host)
    }

    /// Whether a browser at `origin` may call the emulator.
    func allowsOrigin(_ origin: String) -> Bool {
        let origin = origin.lowercased()
        if allowedOrigins.contains("*") || allowedOrigins.contains(origin) { return true }
        guard let components = URLComponents(string: origin), let scheme = components.scheme,
            scheme == "http" || scheme == "https",
            let host = components.host
        else { return false }
        return Self.isLoopback(host: host)
    }

    /// The refusal of a request this policy does not take, or nil to serve it.
    func refusal(of request: Request) -> APIServerError? {
        guard acceptsHost(request.head.authority) else {
            return .permissionDenied(
                "the emulator answers requests to loopback names only (DNS-rebinding protection); give --allow-host NAME to add one"
            )
        }
        if let origin = request.headers[Self.origin], !allowsOrigin(origin) {
            return .permissionDenied(
                "requests from the origin \(LogSafeText.escaping(origin, limit: 80)) are refused; give --allow-origin ORIGIN to allow it"
            )
        }
        return nil
    }

    /// Whether `request` is a CORS preflight (any `OPTIONS` request is
    /// answered as one: no operation of the API uses `OPTIONS`).
    static func isPreflight(_ request: Request) -> Bool { request.method == .options }

    /// 204 with the methods and headers the API uses, for an allowed origin.
    func preflightResponse(to request: Request) -> Response {
        var response = Response(
            status: .noContent,
            headers: [
                Self.allowMethods: Self.methods, Self.allowHeaders: Self.requestHeaders, Self.maxAge: "86400",
            ])
        decorate(&response, for: request)
        return response
    }

    /// Whether `origin` is the emulator's own, as the request's `Host` names it.
    static func isSameOrigin(_ origin: String, host: String?) -> Bool {
        guard let host, !host.isEmpty, let components = URLComponents(string: origin),
            components.scheme?.lowercased() == "http",
            let originHost = components.host
        else { return false }
        let authority = components.port.map { "\(originHost):\($0)" } ?? originHost
        return authority.lowercased() == host.lowercased()
            || "[\(originHost)]:\(components.port ?? 80)".lowercased() == host.lowercased()
    }

    /// The refusal of a page request from a browser at another origin
    /// (a form posted from elsewhere), or nil.
    func pageRefusal(of request: Request) -> APIServerError? {
        guard request.method != .get, request.method != .head, let origin = request.headers[Self.origin] else {
            return nil
        }
        guard Self.isSameOrigin(origin, host: request.head.authority) else {
            return .permissionDenied("the emulator's page takes forms from its own origin only")
        }
        return nil
    }

    /// What a page's answer carries instead of CORS headers.
    static func decoratePage(_ response: inout Response) {
        response.headers[HTTPField.Name("Content-Security-Policy")!] =
            "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
        response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        // no-referrer would make browsers send Origin: null with forms
        response.headers[HTTPField.Name("Referrer-Policy")!] = "same-origin"
        response.headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        response.headers[.cacheControl] = "no-store"
    }

    /// Names an allowed request's origin as allowed, varying by it.
    func decorate(_ response: inout Response, for request: Request) {
        response.headers[.vary] = "Origin"
        guard let origin = request.headers[Self.origin], allowsOrigin(origin) else { return }
        response.headers[Self.allowOrigin] = origin
        response.headers[Self.exposeHeaders] = "Cache-Control, Content-Type"
    }
}

/// ``LaptopSafety`` in front of every route: refusals before anything
/// runs, preflights answered, CORS headers on the API's answers and the
/// page rules on the pages.
struct LaptopSafetyMiddleware: RouterMiddleware {
    let safety: LaptopSafety
    /// The paths of pages for people.
    let pagePaths: Set<String>

    func handle(
        _ request: Request, context: EmulatorRequestContext,
        next: (Request, EmulatorRequestContext) async throws -> Response
    ) async throws -> Response {
        if let refusal = safety.refusal(of: request) { return ErrorResponses.render(refusal) }
        guard pagePaths.contains(request.uri.path) else {
            if LaptopSafety.isPreflight(request) { return safety.preflightResponse(to: request) }
            var response = try await next(request, context)
            safety.decorate(&response, for: request)
            return response
        }
        var response: Response
        if let refusal = safety.pageRefusal(of: request) {
            response = ErrorResponses.render(refusal)
        } else if LaptopSafety.isPreflight(request) {
            // No CORS grant: a page is read by its own origin only.
            response = ErrorResponses.render(
                APIServerError.permissionDenied("the emulator's pages are not for other origins"))
        } else {
            response = try await next(request, context)
        }
        LaptopSafety.decoratePage(&response)
        return response
    }
}
#endif
