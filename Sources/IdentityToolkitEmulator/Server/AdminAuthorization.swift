#if Emulator
import Foundation
import HTTPTypes
import IdentityToolkit

/// Who may act as the project's admin: a request with `Authorization:
/// Bearer owner` (the emulator's convention, in any letter case, as Google's
/// emulator takes it), an access token from the emulator's token endpoint,
/// or a Google access token (`ya29.…`, which Google's emulator accepts by
/// its form). No web page can send such a header without a preflight.
struct AdminAuthorization: Sendable {
    let oauth: OAuthTokenEndpoint

    /// The prefix of Google's OAuth2 access tokens.
    static let googleAccessTokenPrefix = "ya29."

    /// Whether `header` (an `Authorization` value) authorises an admin.
    func isAdmin(_ header: String?) -> Bool {
        guard let header else { return false }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return false }
        let token = String(parts[1]).trimmingCharacters(in: .whitespaces)
        return token.lowercased() == EmulatorAdminToken.owner.rawValue
            || token.hasPrefix(Self.googleAccessTokenPrefix) || oauth.isValid(token)
    }

    /// Whether a helper route (`/emulator/…`) may change state without
    /// `Bearer owner`: a `DELETE`, `PATCH` or `PUT` without an `Origin`
    /// header, as test harnesses clear the emulator between tests. No web
    /// page can send one (browsers always add `Origin` to those methods,
    /// and the laptop-safety check refuses a foreign one); the `Host` check
    /// stops DNS rebinding. The admin API keeps needing its credential.
    static func isHarnessCall(method: HTTPRequest.Method, routeTemplate: String, headers: HTTPFields) -> Bool {
        routeTemplate.hasPrefix(harnessRoutePrefix) && !ownerOnlyTemplates.contains(routeTemplate)
            && [.delete, .patch, .put].contains(method) && headers[LaptopSafety.origin] == nil
    }

    /// Helpers that need `Bearer owner` from every caller, harnesses
    /// included: faults change what every other client of the emulator
    /// gets, so setting them is a deliberate act, never a stray request.
    static let ownerOnlyTemplates: Set<String> = ["/emulator/v1/faults"]

    /// Where the emulator's own helper routes live.
    static let harnessRoutePrefix = "/emulator/"

    static let apiKeyHeader = HTTPField.Name("x-goog-api-key")!
    static let apiKeyQuery = "key"

    /// Whether a request names an API key (any value), in the query
    /// (`key`) or the `x-goog-api-key` header, as production requires of an
    /// end-user call.
    static func hasAPIKey(key: String?, headers: HTTPFields) -> Bool {
        !(key ?? "").isEmpty || !(headers[apiKeyHeader] ?? "").isEmpty
    }
}
#endif
