/// A step-up challenge (RFC 9470, OAuth 2.0 Step Up Authentication
/// Challenge Protocol): a protected route's `401` answer saying that the
/// credential is valid but its sign-in is not enough — too old, or without
/// the second factor — and what a new sign-in must be.
///
/// ```
/// WWW-Authenticate: Bearer error="insufficient_user_authentication",
///   error_description="a sign-in with the second factor is required",
///   acr_values="firebase_second_factor", max_age=300
/// ```
///
/// Servers write it (IdentityAdmin's route protection); clients read it
/// (MultiFactorAuth's step-up helper reauthenticates and retries once). One
/// type for both, so that the two sides cannot spell the challenge apart.
public struct StepUpChallenge: Sendable, Hashable, CustomStringConvertible {
    /// The `error` of the challenge (RFC 9470 §3).
    public static let errorCode = "insufficient_user_authentication"
    /// The `acr_values` member that asks for a sign-in with a second factor
    /// (TOTP or SMS): Firebase names no authentication context classes, so
    /// this package defines this one.
    public static let secondFactorContextClass = "firebase_second_factor"

    /// Whether the new sign-in must use a second factor (`acr_values`
    /// names ``secondFactorContextClass``).
    public var requiresSecondFactor: Bool
    /// The oldest sign-in the route accepts (`max_age`, whole seconds);
    /// nil when the route sets no age.
    public var maximumAuthenticationAge: Duration?
    /// The human-readable reason (`error_description`): ASCII, no quotes.
    public var reason: String

    /// A challenge.
    /// - Parameters:
    ///   - requiresSecondFactor: Whether the new sign-in must use a second factor.
    ///   - maximumAuthenticationAge: The oldest sign-in accepted, in whole seconds; nil for any.
    ///   - reason: What the `error_description` says; characters outside
    ///     printable ASCII, `"` and `\` are left out.
    public init(requiresSecondFactor: Bool, maximumAuthenticationAge: Duration? = nil, reason: String) {
        self.requiresSecondFactor = requiresSecondFactor
        self.maximumAuthenticationAge = maximumAuthenticationAge
        self.reason = Self.quotable(reason)
    }

    /// `text` without what a quoted string cannot hold unescaped: characters
    /// outside printable ASCII, `"` and `\`.
    private static func quotable(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.filter {
                    $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F && $0 != "\"" && $0 != "\\"
                }))
    }

    /// The `WWW-Authenticate` field value.
    public var headerValue: String {
        var value = "Bearer error=\"\(Self.errorCode)\", error_description=\"\(reason)\""
        if requiresSecondFactor { value += ", acr_values=\"\(Self.secondFactorContextClass)\"" }
        if let maximumAuthenticationAge { value += ", max_age=\(max(0, maximumAuthenticationAge.components.seconds))" }
        return value
    }

    /// The header value.
    public var description: String { headerValue }

    /// The step-up challenge among the challenges of a `WWW-Authenticate`
    /// field value (RFC 9110 §11.6.1: comma-separated challenges, each a
    /// scheme and its `name=value` parameters, values as tokens or quoted
    /// strings); nil when no Bearer challenge names
    /// ``errorCode``, or the value does not parse. An unknown context class
    /// in `acr_values` is kept out of ``requiresSecondFactor``; a `max_age`
    /// that is not a whole number of seconds is ignored.
    public init?(wwwAuthenticate value: String) {
        guard value.utf8.count <= 4096, let challenges = Self.challenges(in: value) else { return nil }
        guard
            let parameters = challenges.first(where: {
                $0.scheme.lowercased() == "bearer" && $0.parameters["error"] == Self.errorCode
            })?.parameters
        else { return nil }
        requiresSecondFactor = (parameters["acr_values"] ?? "").split(separator: " ").contains {
            $0 == Self.secondFactorContextClass
        }
        maximumAuthenticationAge = parameters["max_age"].flatMap { Int64($0) }.flatMap {
            $0 >= 0 ? Duration.seconds($0) : nil
        }
        // Kept as the initializer keeps it, so that it can be written back.
        reason = Self.quotable(parameters["error_description"] ?? "")
    }

    /// The challenges of a field value, their parameter names lowercased;
    /// nil when it does not parse.
    private static func challenges(in value: String) -> [(scheme: String, parameters: [String: String])]? {
        var scanner = Scanner(Array(value.utf8))
        var result: [(scheme: String, parameters: [String: String])] = []
        while true {
            scanner.skip { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: ",") }
            if scanner.atEnd { return result }
            guard let scheme = scanner.token() else { return nil }
            var parameters: [String: String] = [:]
            // Parameters: `name = value` pairs separated by commas, until a
            // token not followed by `=` (the next challenge's scheme) or the end.
            while true {
                let mark = scanner.position
                scanner.skip { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: ",") }
                guard let name = scanner.token() else {
                    scanner.position = mark
                    break
                }
                scanner.skip { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
                guard scanner.consume(UInt8(ascii: "=")) else {
                    scanner.position = mark
                    break
                }
                scanner.skip { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
                guard let parameterValue = scanner.quotedString() ?? scanner.token() else { return nil }
                parameters[name.lowercased()] = parameterValue
            }
            result.append((scheme, parameters))
        }
    }

    /// A cursor over the field value's bytes.
    private struct Scanner {
        let bytes: [UInt8]
        var position = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { position >= bytes.count }

        mutating func skip(while matches: (UInt8) -> Bool) {
            while position < bytes.count, matches(bytes[position]) { position += 1 }
        }

        mutating func consume(_ byte: UInt8) -> Bool {
            guard position < bytes.count, bytes[position] == byte else { return false }
            position += 1
            return true
        }

        /// An RFC 9110 token (one or more tchar).
        mutating func token() -> String? {
            let start = position
            skip { Self.isTokenCharacter($0) }
            return position > start ? String(decoding: bytes[start..<position], as: UTF8.self) : nil
        }

        /// A quoted string with its `\` escapes resolved; nil (and the
        /// position unchanged) when none starts here or it is not closed.
        mutating func quotedString() -> String? {
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { return nil }
            var index = position + 1
            var text: [UInt8] = []
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\\"):
                    guard index + 1 < bytes.count else { return nil }
                    text.append(bytes[index + 1])
                    index += 2
                case UInt8(ascii: "\""):
                    position = index + 1
                    return String(decoding: text, as: UTF8.self)
                default:
                    text.append(bytes[index])
                    index += 1
                }
            }
            return nil
        }

        static func isTokenCharacter(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default: return "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }
}
