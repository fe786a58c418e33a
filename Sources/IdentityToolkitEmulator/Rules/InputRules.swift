#if Emulator
import Foundation
import IdentityToolkit
import IdentitySupport

/// Bounds and checks for every string and number the emulator takes from a
/// client: one home, so that each route applies the same rule.
enum InputRules {
    /// RFC 5321 §4.5.3.1: a path (the address) is at most 256 octets with its
    /// angle brackets, so an address at most 254; a local part at most 64, a
    /// domain label at most 63.
    static let maximumEmailLength = 254
    static let maximumLocalPartLength = 64
    static let maximumDomainLabelLength = 63

    /// Characters RFC 5322 allows in an unquoted local part (`atext` and `.`).
    private static let localPartSymbols = Set("!#$%&'*+-/=?^_`{|}~.".utf8)

    /// Whether `email` is an address as production accepts it: ASCII only
    /// (so no control, bidi-override or look-alike characters such as
    /// U+212A KELVIN SIGN), an RFC 5322 dot-atom local part, and a domain of
    /// at least two letter-digit-hyphen labels, within RFC 5321's lengths.
    static func isValidEmail(_ email: String) -> Bool {
        let bytes = Array(email.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumEmailLength, let at = bytes.lastIndex(of: UInt8(ascii: "@"))
        else { return false }
        let local = bytes[..<at]
        let domain = bytes[(at + 1)...]
        guard (1...maximumLocalPartLength).contains(local.count), !domain.isEmpty else { return false }
        // Local part: dot-atom (no leading, trailing or doubled dot).
        guard local.first != UInt8(ascii: "."), local.last != UInt8(ascii: ".") else { return false }
        var previous: UInt8 = 0
        for byte in local {
            guard isASCIIAlphanumeric(byte) || localPartSymbols.contains(byte) else { return false }
            if byte == UInt8(ascii: "."), previous == UInt8(ascii: ".") { return false }
            previous = byte
        }
        // Domain: labels of letters, digits and inner hyphens; a top-level label that is not all digits.
        let labels = domain.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard labels.count >= 2 else { return false }
        for label in labels {
            guard (1...maximumDomainLabelLength).contains(label.count),
                label.allSatisfy({ isASCIIAlphanumeric($0) || $0 == UInt8(ascii: "-") }),
                label.first != UInt8(ascii: "-"), label.last != UInt8(ascii: "-")
            else { return false }
        }
        return labels.last?.contains(where: { !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) == true
    }

    /// The key under which an address is unique: ASCII case folded only, so
    /// that no Unicode case mapping (`K` U+212A → `k`) makes two addresses one.
    static func emailKey(_ email: String) -> String {
        String(
            decoding: email.utf8.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 + 32 : $0 },
            as: UTF8.self)
    }

    /// Whether `text` is an absolute http(s) URI with a host.
    static func isAbsoluteURI(_ text: String) -> Bool {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            ["http", "https"].contains(scheme)
        else { return false }
        return url.host?.isEmpty == false
    }

    /// The times an account may hold: the years 1 to 9999, which RFC 3339
    /// writes and whose seconds and milliseconds convert back to `Int64`
    /// exactly.
    static let accountTimes = Date(timeIntervalSince1970: -62_135_596_800)...EmulatorClock.validRange.upperBound

    /// A time a client gave in milliseconds since 1970, refused outside
    /// ``accountTimes``, so that every later conversion back to whole
    /// seconds or milliseconds is exact instead of a trap
    /// (`Int64(2⁶³ as Double)`).
    static func date(millis: Double, field: String) throws -> Date {
        let date = Date(timeIntervalSince1970: millis / 1000)
        guard millis.isFinite, accountTimes.contains(date) else {
            throw APIServerError.invalidArgument(
                "\(field) must be a time in the years 1 to 9999, in milliseconds since 1970")
        }
        return date
    }

    /// ``date(millis:field:)`` for whole milliseconds.
    static func date(millis: Int64, field: String) throws -> Date {
        try date(millis: Double(millis), field: field)
    }

    /// ``date(millis:field:)`` for whole seconds.
    static func date(seconds: Int64, field: String) throws -> Date {
        try date(millis: Double(seconds) * 1000, field: field)
    }

    /// Refuses an account's display name or photo URL past its bound (they
    /// are copied into every ID token the user gets) or holding control characters.
    static func checkProfile(displayName: String?, photoURL: String?) throws {
        try checkDisplayName(displayName)
        guard let photoURL else { return }
        guard photoURL.utf8.count <= EmulatorRules.maximumPhotoURLLength else {
            throw APIServerError.invalidArgument(
                "photoUrl must be at most \(EmulatorRules.maximumPhotoURLLength) bytes")
        }
        guard !photoURL.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw APIServerError.invalidArgument("photoUrl must not contain control characters")
        }
    }

    /// Refuses a display name longer than the bound or holding control characters.
    /// Whether `id` may name a tenant the emulator makes itself (on a
    /// first read, in Google-compatible mode): 1 to 63 ASCII letters,
    /// digits and hyphens, so that it is also a safe export file name.
    static func isValidTenantID(_ id: String) -> Bool {
        (1...63).contains(id.utf8.count)
            && id.utf8.allSatisfy {
                ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || $0 == 0x2D
            }
    }

    static func checkDisplayName(_ name: String?, field: String = "displayName") throws {
        guard let name else { return }
        guard name.count <= EmulatorRules.maximumDisplayNameLength else {
            throw APIServerError.invalidArgument(
                "\(field) must be at most \(EmulatorRules.maximumDisplayNameLength) characters")
        }
        guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw APIServerError.invalidArgument("\(field) must not contain control characters")
        }
    }

    /// Production refuses a TOTP factor without a name (`MISSING_DISPLAY_NAME`).
    static func requireFactorDisplayName(_ name: String?) throws {
        guard let name, !name.isEmpty else { throw APIServerError.missingDisplayName }
    }

    /// Refuses a password longer than the bound (before it is hashed).
    static func checkPasswordLength(_ password: String?) throws {
        guard let password, password.utf8.count > IdentityPlatformLimits.maximumPasswordLength else { return }
        throw APIServerError.invalidArgument(
            "password must be at most \(IdentityPlatformLimits.maximumPasswordLength) bytes")
    }

    /// A new password as production checks it: within the length bound and
    /// at least six characters (`WEAK_PASSWORD`); the one home of that rule.
    static func checkNewPassword(_ password: String) throws {
        try checkPasswordLength(password)
        guard password.count >= IdentityPlatformLimits.minimumPasswordLength else {
            throw APIServerError.weakPassword(
                "Password should be at least \(IdentityPlatformLimits.minimumPasswordLength) characters")
        }
    }

    /// Custom claims as production checks them: at most 1000 characters
    /// (`CLAIMS_TOO_LARGE`), a JSON object (`INVALID_CLAIMS`), and none of
    /// the token's own claims (`FORBIDDEN_CLAIM : <name>`).
    static func checkCustomAttributes(_ text: String) throws {
        guard text.count <= IdentityPlatformLimits.maximumCustomClaimsLength else {
            throw APIServerError.claimsTooLarge
        }
        guard let claims = try? JSONDecoder().decode([String: JSONValue].self, from: Data(text.utf8)) else {
            throw APIServerError.invalidClaims
        }
        if case .failure(.reservedClaim(let name)) = CustomClaimsProblem.check(claims) {
            throw APIServerError.forbiddenClaim(name)
        }
    }

    private static func isASCIIAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// The paths of an update mask (nil: no mask, a full update), the one
    /// reading of every resource's mask: comma-separated, each a settable
    /// field or `field.subfield` of one of `settable`'s subfields; an empty
    /// path (`a,,b`, `a.`) is refused, and an unknown one too unless
    /// `ignoringUnknown` (Google-compatible mode, as Google's emulator).
    static func updateMaskPaths(_ mask: String?, settable: [String: [String]], ignoringUnknown: Bool) throws
        -> [String]?
    {
        guard let mask, !mask.isEmpty else { return nil }
        var paths: [String] = []
        for path in mask.split(separator: ",", omittingEmptySubsequences: false).map({
            $0.trimmingCharacters(in: .whitespaces)
        }) {
            let parts = path.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard let head = parts.first, !head.isEmpty, parts.allSatisfy({ !$0.isEmpty }) else {
                throw APIServerError.invalidArgument(
                    "empty field path in update mask: '\(LogSafeText.escaping(path, limit: 80))'")
            }
            if let fields = settable[head], parts.count == 1 || fields.contains(parts[1]) {
                paths.append(path)
            } else if !ignoringUnknown {
                throw APIServerError.invalidArgument(
                    "unknown field in update mask: \(LogSafeText.escaping(path, limit: 80))")
            }
        }
        return paths
    }
}
#endif
