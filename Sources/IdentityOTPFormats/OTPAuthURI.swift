/// An `otpauth://` Key URI (Google Authenticator's "Key Uri Format"), the
/// payload of an enrollment QR code.
///
/// The builder percent-encodes the label parts and parameters (space as
/// `%20`, never `+`), puts the issuer in both label and `issuer` parameter,
/// and writes `algorithm`, `digits` and `period` only when not the defaults.
/// The parser reads everything the builder writes and what pyotp and the
/// Firebase SDKs write, and rejects malformed input with ``OTPAuthURIError``.
public struct OTPAuthURI: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `totp` or `hotp`.
    public enum Kind: String, Sendable, Hashable {
        /// Time-based (RFC 6238).
        case totp
        /// Counter-based (RFC 4226).
        case hotp
    }

    /// `totp` or `hotp`.
    public var kind: Kind
    /// Who provides the account, such as `ACME Co`.
    public var issuer: String?
    /// The account name, such as an email address.
    public var account: String
    /// The shared secret.
    public var secret: [UInt8]
    /// The HMAC hash (SHA-1 unless the URI says otherwise).
    public var algorithm: HashAlgorithm
    /// 6, 7 or 8.
    public var digits: Int
    /// The TOTP step in seconds.
    public var period: Int64
    /// The HOTP counter (required for `hotp`).
    public var counter: UInt64?

    /// Creates a URI value; ``string`` builds its text.
    public init(
        kind: Kind = .totp, issuer: String?, account: String, secret: [UInt8], algorithm: HashAlgorithm = .sha1,
        digits: Int = 6, period: Int64 = 30, counter: UInt64? = nil
    ) {
        self.kind = kind
        self.issuer = issuer
        self.account = account
        self.secret = secret
        self.algorithm = algorithm
        self.digits = digits
        self.period = period
        self.counter = counter
    }

    /// Never shows the secret.
    public var description: String {
        "OTPAuthURI(\(kind.rawValue), issuer: \(issuer.map { "\"\($0)\"" } ?? "nil"), account: \"\(account)\", secret: <redacted>, \(algorithm), digits: \(digits), period: \(period))"
    }

    /// The same as ``description``: no secret.
    public var debugDescription: String { description }

    /// What `dump` and debuggers show: the secret redacted.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "kind": kind, "issuer": issuer as Any, "account": account, "secret": "<redacted>",
                "algorithm": algorithm,
                "digits": digits, "period": period, "counter": counter as Any,
            ], displayStyle: .struct)
    }

    /// The URI text, e.g. `otpauth://totp/ACME%20Co:ada%40example.com?secret=…&issuer=ACME%20Co`.
    public var string: String {
        var label = Self.percentEncode(account)
        if let issuer { label = Self.percentEncode(issuer) + ":" + label }
        var parameters = ["secret=" + Base32.encode(secret)]
        if let issuer { parameters.append("issuer=" + Self.percentEncode(issuer)) }
        if algorithm != .sha1 { parameters.append("algorithm=" + algorithm.rawValue) }
        if digits != 6 { parameters.append("digits=\(digits)") }
        if kind == .totp && period != 30 { parameters.append("period=\(period)") }
        if kind == .hotp { parameters.append("counter=\(counter ?? 0)") }
        return "otpauth://\(kind.rawValue)/\(label)?\(parameters.joined(separator: "&"))"
    }

    /// The longest URI parsed: above the largest QR code's payload (2,953
    /// bytes at version 40-L), so every URI a camera can read fits, while a
    /// hostile megabyte is refused before any work.
    public static let maximumLength = 4096

    /// Parses a Key URI.
    /// - Parameters:
    ///   - text: The URI, at most ``maximumLength`` bytes.
    ///   - keyLengthPolicy: The shortest secret accepted: 128 bits
    ///     (RFC 4226) unless an import of older entries says
    ///     ``OTPKeyLengthPolicy/legacyImport``.
    public init(parsing text: String, keyLengthPolicy: OTPKeyLengthPolicy = .rfc4226) throws(OTPAuthURIError) {
        guard text.utf8.count <= Self.maximumLength else { throw .tooLong(limit: Self.maximumLength) }
        let prefix = "otpauth://"
        guard text.lowercased().hasPrefix(prefix) else { throw .notOTPAuth }
        let rest = text.dropFirst(prefix.count)
        guard let slash = rest.firstIndex(of: "/") else { throw .malformedLabel }
        guard let kind = Kind(rawValue: rest[..<slash].lowercased()) else {
            throw .unknownType(String(rest[..<slash]))
        }
        let afterType = rest[rest.index(after: slash)...]
        let labelText: Substring
        let queryText: Substring
        if let question = afterType.firstIndex(of: "?") {
            labelText = afterType[..<question]
            queryText = afterType[afterType.index(after: question)...]
        } else {
            labelText = afterType
            queryText = ""
        }

        // The label: `issuer:account` or `account`. The separator is a literal
        // colon (parts may hold encoded ones, as this builder and pyotp write
        // them), or an encoded one when the `issuer` parameter confirms it;
        // otherwise an encoded colon belongs to the account (as pyotp reads it).
        var labelIssuer: String?
        var account: String
        let literalParts = labelText.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        if literalParts.count == 2 {
            if literalParts[1].contains(":") { throw .malformedLabel }
            labelIssuer = try Self.percentDecode(literalParts[0], plusIsSpace: false)
            account = try Self.percentDecode(literalParts[1], plusIsSpace: false)
        } else {
            account = try Self.percentDecode(labelText, plusIsSpace: false)
        }
        account = String(account.drop { $0 == " " })
        guard !account.isEmpty else { throw .missingAccount }

        var parameters: [String: String] = [:]
        for pair in queryText.split(separator: "&") where !pair.isEmpty {
            let pieces = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = try Self.percentDecode(pieces[0], plusIsSpace: true).lowercased()
            let value = pieces.count == 2 ? try Self.percentDecode(pieces[1], plusIsSpace: true) : ""
            guard parameters[name] == nil else { throw .duplicateParameter(name) }
            parameters[name] = value
        }
        if labelIssuer == nil, let issuer = parameters["issuer"], account.hasPrefix(issuer + ":") {
            labelIssuer = issuer
            account = String(account.dropFirst(issuer.count + 1).drop { $0 == " " })
            guard !account.isEmpty else { throw .missingAccount }
        }
        guard let secretText = parameters["secret"], !secretText.isEmpty else { throw .missingSecret }
        let secret: [UInt8]
        do {
            secret = try Base32.decode(secretText, mode: .strict)
        } catch {
            throw .invalidSecret(error)
        }
        guard !secret.isEmpty else { throw .missingSecret }
        guard keyLengthPolicy.allows(byteCount: secret.count) else {
            throw .secretTooShort(byteCount: secret.count, minimum: keyLengthPolicy.minimumByteCount)
        }
        let issuer = parameters["issuer"]
        if let labelIssuer, let issuer, labelIssuer != issuer { throw .issuerMismatch }
        var algorithm = HashAlgorithm.sha1
        if let name = parameters["algorithm"] {
            guard let parsed = HashAlgorithm(name: name) else { throw .unknownAlgorithm(name) }
            algorithm = parsed
        }
        var digits = 6
        if let text = parameters["digits"] {
            guard let value = Int(text), (6...8).contains(value) else { throw .invalidDigits(text) }
            digits = value
        }
        var period: Int64 = 30
        if let text = parameters["period"] {
            guard let value = Int64(text), value >= 1 else { throw .invalidPeriod(text) }
            period = value
        }
        var counter: UInt64?
        if let text = parameters["counter"] {
            guard let value = UInt64(text) else { throw .invalidCounter(text) }
            counter = value
        }
        if kind == .hotp && counter == nil { throw .missingCounter }
        // A parameter of the other kind (`counter` in a totp URI, `period` in
        // an hotp one) means nothing and is dropped, so that the value is
        // what ``string`` writes and parsing it again gives the same value
        // (the otpauth fuzz harness found the asymmetry).
        if kind == .totp { counter = nil } else { period = 30 }
        self.init(
            kind: kind, issuer: issuer ?? labelIssuer, account: account, secret: secret, algorithm: algorithm,
            digits: digits, period: period, counter: counter)
        // What ``string`` writes must parse again: it may be longer than the
        // input (the issuer in both the label and the parameter, characters
        // percent-encoded), and past the bound it would not (the otpauth
        // fuzz harness found a 344-byte URI that wrote 4.7 KB).
        guard string.utf8.count <= Self.maximumLength else { throw .tooLong(limit: Self.maximumLength) }
    }

    /// Percent-encodes all but RFC 3986 unreserved characters, as UTF-8.
    static func percentEncode(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                output.unicodeScalars.append("%")
                output.unicodeScalars.append(hex[Int(byte >> 4)])
                output.unicodeScalars.append(hex[Int(byte & 15)])
            }
        }
        return output
    }

    static func percentDecode(_ text: Substring, plusIsSpace: Bool) throws(OTPAuthURIError) -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        func hexValue(_ byte: UInt8?) -> UInt8? {
            guard let byte else { return nil }
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = hexValue(iterator.next()), let low = hexValue(iterator.next()) else {
                    throw .malformedEncoding
                }
                bytes.append(high << 4 | low)
            } else if byte == UInt8(ascii: "+") && plusIsSpace {
                bytes.append(UInt8(ascii: " "))
            } else {
                bytes.append(byte)
            }
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else { throw .malformedEncoding }
        return decoded
    }
}

/// Why a Key URI was refused. Messages never include the secret.
///
/// A struct over a private enum (as async-http-client's `HTTPClientError`),
/// so that a later release can refuse a URI for a new reason without
/// breaking a `switch`: compare with `==`, or match by ``Code``.
public struct OTPAuthURIError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of refusal without its values.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        fileprivate enum Base: String, Sendable, Hashable {
            case notOTPAuth, unknownType, malformedLabel, missingAccount, malformedEncoding, duplicateParameter,
                missingSecret, invalidSecret, issuerMismatch, unknownAlgorithm, invalidDigits, invalidPeriod,
                invalidCounter, missingCounter, secretTooShort, tooLong
        }

        fileprivate let base: Base

        /// The scheme is not `otpauth`.
        public static let notOTPAuth = Code(base: .notOTPAuth)
        /// The type is neither `totp` nor `hotp`.
        public static let unknownType = Code(base: .unknownType)
        /// The label (`issuer:account`) cannot be read.
        public static let malformedLabel = Code(base: .malformedLabel)
        /// The label names no account.
        public static let missingAccount = Code(base: .missingAccount)
        /// A percent-encoding is invalid.
        public static let malformedEncoding = Code(base: .malformedEncoding)
        /// A parameter appears twice.
        public static let duplicateParameter = Code(base: .duplicateParameter)
        /// There is no `secret` parameter.
        public static let missingSecret = Code(base: .missingSecret)
        /// The secret is not valid Base32.
        public static let invalidSecret = Code(base: .invalidSecret)
        /// The label's issuer and the `issuer` parameter differ.
        public static let issuerMismatch = Code(base: .issuerMismatch)
        /// The `algorithm` is not SHA1, SHA256 or SHA512.
        public static let unknownAlgorithm = Code(base: .unknownAlgorithm)
        /// `digits` is not 6, 7 or 8.
        public static let invalidDigits = Code(base: .invalidDigits)
        /// `period` is not a positive number of seconds.
        public static let invalidPeriod = Code(base: .invalidPeriod)
        /// `counter` is not a non-negative integer.
        public static let invalidCounter = Code(base: .invalidCounter)
        /// An `hotp` URI has no `counter`.
        public static let missingCounter = Code(base: .missingCounter)
        /// The secret is shorter than the key-length policy allows.
        public static let secretTooShort = Code(base: .secretTooShort)
        /// The URI is longer than ``OTPAuthURI/maximumLength`` bytes.
        public static let tooLong = Code(base: .tooLong)

        /// The refusal's name, such as `missingSecret`.
        public var description: String { base.rawValue }

        /// Matches any refusal of this kind: `catch OTPAuthURIError.Code.invalidDigits`.
        public static func ~= (pattern: Code, error: any Error) -> Bool {
            (error as? OTPAuthURIError)?.code == pattern
        }
    }

    private enum Storage: Sendable, Hashable {
        case notOTPAuth
        case unknownType(String)
        case malformedLabel
        case missingAccount
        case malformedEncoding
        case duplicateParameter(String)
        case missingSecret
        case invalidSecret(Base32Error)
        case issuerMismatch
        case unknownAlgorithm(String)
        case invalidDigits(String)
        case invalidPeriod(String)
        case invalidCounter(String)
        case missingCounter
        case secretTooShort(byteCount: Int, minimum: Int)
        case tooLong(limit: Int)
    }

    private let storage: Storage

    private init(_ storage: Storage) { self.storage = storage }

    /// The scheme is not `otpauth`.
    public static let notOTPAuth = Self(.notOTPAuth)
    /// The type is neither `totp` nor `hotp`.
    public static func unknownType(_ type: String) -> Self { Self(.unknownType(type)) }
    /// The label (`issuer:account`) cannot be read.
    public static let malformedLabel = Self(.malformedLabel)
    /// The label names no account.
    public static let missingAccount = Self(.missingAccount)
    /// A percent-encoding is invalid.
    public static let malformedEncoding = Self(.malformedEncoding)
    /// A parameter appears twice.
    public static func duplicateParameter(_ name: String) -> Self { Self(.duplicateParameter(name)) }
    /// There is no `secret` parameter.
    public static let missingSecret = Self(.missingSecret)
    /// The secret is not valid Base32.
    public static func invalidSecret(_ error: Base32Error) -> Self { Self(.invalidSecret(error)) }
    /// The label's issuer and the `issuer` parameter differ.
    public static let issuerMismatch = Self(.issuerMismatch)
    /// The `algorithm` is not SHA1, SHA256 or SHA512.
    public static func unknownAlgorithm(_ name: String) -> Self { Self(.unknownAlgorithm(name)) }
    /// `digits` is not 6, 7 or 8.
    public static func invalidDigits(_ text: String) -> Self { Self(.invalidDigits(text)) }
    /// `period` is not a positive number of seconds.
    public static func invalidPeriod(_ text: String) -> Self { Self(.invalidPeriod(text)) }
    /// `counter` is not a non-negative integer.
    public static func invalidCounter(_ text: String) -> Self { Self(.invalidCounter(text)) }
    /// An `hotp` URI has no `counter`.
    public static let missingCounter = Self(.missingCounter)
    /// The secret is shorter than the key-length policy allows.
    public static func secretTooShort(byteCount: Int, minimum: Int) -> Self {
        Self(.secretTooShort(byteCount: byteCount, minimum: minimum))
    }
    /// The URI is longer than ``OTPAuthURI/maximumLength`` bytes.
    public static func tooLong(limit: Int) -> Self { Self(.tooLong(limit: limit)) }

    /// The kind of refusal.
    public var code: Code {
        switch storage {
        case .notOTPAuth: return .notOTPAuth
        case .unknownType: return .unknownType
        case .malformedLabel: return .malformedLabel
        case .missingAccount: return .missingAccount
        case .malformedEncoding: return .malformedEncoding
        case .duplicateParameter: return .duplicateParameter
        case .missingSecret: return .missingSecret
        case .invalidSecret: return .invalidSecret
        case .issuerMismatch: return .issuerMismatch
        case .unknownAlgorithm: return .unknownAlgorithm
        case .invalidDigits: return .invalidDigits
        case .invalidPeriod: return .invalidPeriod
        case .invalidCounter: return .invalidCounter
        case .missingCounter: return .missingCounter
        case .secretTooShort: return .secretTooShort
        case .tooLong: return .tooLong
        }
    }

    /// Matches an error equal to `pattern`: `catch OTPAuthURIError.missingSecret`.
    public static func ~= (pattern: Self, error: any Error) -> Bool {
        (error as? Self) == pattern
    }

    /// What is wrong with the URI (never its secret).
    public var description: String {
        switch storage {
        case .notOTPAuth: return "not an otpauth:// URI"
        case .unknownType(let type): return "unknown OTP type '\(type)'; expected totp or hotp"
        case .malformedLabel:
            return "malformed label; expected ISSUER:ACCOUNT or ACCOUNT, with any colon inside a part percent-encoded"
        case .missingAccount: return "the label has no account name"
        case .malformedEncoding: return "malformed percent-encoding or invalid UTF-8"
        case .duplicateParameter(let name): return "parameter '\(name)' appears more than once"
        case .missingSecret: return "the 'secret' parameter is missing or empty"
        case .invalidSecret(let error): return "the 'secret' parameter is not valid base32: \(error)"
        case .issuerMismatch: return "the label's issuer differs from the 'issuer' parameter"
        case .unknownAlgorithm(let name): return "unknown algorithm '\(name)'; expected SHA1, SHA256 or SHA512"
        case .invalidDigits(let text): return "digits must be 6, 7 or 8, not '\(text)'"
        case .invalidPeriod(let text): return "period must be a whole number of seconds ≥ 1, not '\(text)'"
        case .invalidCounter(let text): return "counter must be a non-negative integer, not '\(text)'"
        case .missingCounter: return "an hotp URI needs a 'counter' parameter"
        case .secretTooShort(let count, let minimum):
            return
                "the secret has \(count) bytes; at least \(minimum) are required (RFC 4226; pass keyLengthPolicy: .legacyImport to import an older entry)"
        case .tooLong(let limit): return "the URI is longer than \(limit) bytes"
        }
    }
}
