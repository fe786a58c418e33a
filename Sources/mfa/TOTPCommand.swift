#if Tools
import ArgumentParser
import Foundation
import IdentityOTP

struct TOTPCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "totp",
        abstract: "Generate and verify TOTP codes, secrets, otpauth:// URIs and QR codes.",
        subcommands: [Code.self, Verify.self, Secret.self, URI.self, QR.self]
    )
}

extension HashAlgorithm: ExpressibleByArgument {
    public init?(argument: String) { self.init(name: argument) }
    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
}

extension QRCode.ErrorCorrection: ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: argument.uppercased()) }
    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
}

/// The TOTP parameters shared by `code`, `verify` and `uri`.
struct TOTPOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The shared secret in base32 (spaces and hyphens allowed), or '-' (the default) to read it from standard input. "
                + "Prefer standard input or --secret-file: a command line is visible to every process on the machine.",
            valueName: "base32"))
    var secret: String = "-"

    @Option(help: ArgumentHelp("A file holding the secret in base32 (instead of --secret).", valueName: "path"))
    var secretFile: String?

    @Option(help: "The HMAC hash: SHA1, SHA256 or SHA512.")
    var algorithm: HashAlgorithm = .sha1

    @Option(help: "Digits per code: 6, 7 or 8.")
    var digits: Int = 6

    @Option(help: "The time step in seconds.")
    var period: Int64 = 30

    @Flag(
        help:
            "Accept a secret shorter than 128 bits (RFC 4226's minimum), such as an older 80-bit one being imported."
    )
    var allowShortSecret = false

    var keyLengthPolicy: OTPKeyLengthPolicy { allowShortSecret ? .legacyImport : .rfc4226 }

    func validate() throws {
        guard (6...8).contains(digits) else { throw ValidationError("--digits must be 6, 7 or 8, not \(digits)") }
        guard period >= 1 else { throw ValidationError("--period must be at least 1 second, not \(period)") }
        if secretFile != nil && secret != "-" {
            throw ValidationError("give the secret once: --secret or --secret-file")
        }
        if secretFile?.isEmpty == true { throw ValidationError("--secret-file must not be empty") }
        let key: [UInt8]
        do {
            key = try Base32.decode(try secretText(), mode: .lenient)
        } catch let error as ValidationError {
            throw error
        } catch {
            throw ValidationError("the secret is not valid base32: \(error)")
        }
        guard !key.isEmpty else { throw ValidationError("the secret must not be empty") }
        guard keyLengthPolicy.allows(byteCount: key.count) else {
            throw ValidationError(
                "the secret has \(key.count) bytes; at least \(keyLengthPolicy.minimumByteCount) are required (RFC 4226); "
                    + "--allow-short-secret accepts an older, shorter one")
        }
    }

    func key() throws -> [UInt8] {
        try Base32.decode(try secretText(), mode: .lenient)
    }

    /// The secret's text: the option, the file, or standard input (read
    /// once per process, so that validation and use see the same text).
    func secretText() throws -> String {
        if let secretFile {
            guard let text = String(data: try BoundedInput.file(secretFile, option: "--secret-file"), encoding: .utf8)
            else { throw ValidationError("--secret-file \(secretFile) is not UTF-8 text") }
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard secret == "-" else { return secret }
        return try StandardInputSecret.shared.text()
    }

    func totp() throws -> TOTP {
        try TOTP(key: key(), algorithm: algorithm, digits: digits, period: period, keyLengthPolicy: keyLengthPolicy)
    }
}

/// The secret read from standard input, once.
final class StandardInputSecret: @unchecked Sendable {
    static let shared = StandardInputSecret()
    private let lock = NSLock()
    private var cached: String?

    func text() throws -> String {
        try lock.withLock {
            if let cached { return cached }
            let data = try BoundedInput.standardInput(holding: "a TOTP secret")
            guard let text = String(data: data, encoding: .utf8) else {
                throw ValidationError("standard input is not UTF-8 text")
            }
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty else {
                throw ValidationError(
                    "no secret: pass it on standard input, with --secret-file, or (visible to other processes) --secret"
                )
            }
            cached = trimmed
            return trimmed
        }
    }
}

/// `--time UNIX`, defaulting to now.
struct TimeOption: ParsableArguments {
    @Option(help: "The Unix time to use instead of now.")
    var time: Int64?

    var unixTime: Int64 { time ?? Int64(Date().timeIntervalSince1970) }

    func validate() throws {
        if let time, time < 0 { throw ValidationError("--time must not be negative, not \(time)") }
    }
}

extension TOTPCommand {
    struct Code: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the code for now (or --time).")

        @OptionGroup var options: TOTPOptions
        @OptionGroup var time: TimeOption

        func run() throws {
            print(try options.totp().code(at: time.unixTime))
        }
    }

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a code; exit 0 when valid, 1 when not.",
            discussion: "Prints the matched step offset (e.g. 'valid (step -1)') or 'invalid'."
        )

        @OptionGroup var options: TOTPOptions
        @OptionGroup var time: TimeOption

        @Option(help: "The code to check.")
        var code: String

        @Option(help: "Steps accepted on either side of now, 0 to 10 (Identity Platform's adjacentIntervals).")
        var window: Int = 1

        func validate() throws {
            guard (0...10).contains(window) else {
                throw ValidationError("--window must be 0 to 10, not \(window)")
            }
        }

        func run() throws {
            let totp = try options.totp()
            let now = time.unixTime
            if let step = try totp.matchingStep(for: code, at: now, window: window) {
                let offset = Int64(step) - Int64(try totp.step(at: now))
                print("valid (step \(offset >= 0 ? "+" : "")\(offset))")
            } else {
                print("invalid")
                throw ExitCode(1)
            }
        }
    }

    struct Secret: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a new random secret in base32.")

        @Option(help: "Bytes of randomness, at least 16.")
        var bytes: Int = 20

        func validate() throws {
            guard bytes >= OTPSecret.minimumByteCount else {
                throw ValidationError("--bytes must be at least \(OTPSecret.minimumByteCount), not \(bytes)")
            }
            guard bytes <= 1024 else { throw ValidationError("--bytes must be at most 1024, not \(bytes)") }
        }

        func run() throws {
            print(Base32.encode(try OTPSecret.generate(byteCount: bytes)))
        }
    }

    struct URI: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the otpauth:// URI for an authenticator app.")

        @OptionGroup var options: TOTPOptions

        @Option(help: "The account name, such as an email address.")
        var account: String

        @Option(help: "Who provides the account, such as your app's name.")
        var issuer: String

        func validate() throws {
            guard !account.isEmpty else { throw ValidationError("--account must not be empty") }
        }

        func run() throws {
            let uri = OTPAuthURI(
                issuer: issuer.isEmpty ? nil : issuer, account: account, secret: try options.key(),
                algorithm: options.algorithm, digits: options.digits, period: options.period)
            print(uri.string)
        }
    }

    struct QR: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Render a URI as a QR code (SVG, PNG or terminal text).")

        enum Format: String, ExpressibleByArgument, CaseIterable {
            case svg, png, text
        }

        @Option(help: "The text to encode, normally an otpauth:// URI.")
        var uri: String

        @Option(help: "svg, png or text (Unicode half blocks for a terminal).")
        var format: Format = .text

        @Option(help: "Write to this file instead of standard output.")
        var output: String?

        @Option(help: "Error correction: L, M, Q or H.")
        var ecc: QRCode.ErrorCorrection = .medium

        @Option(help: "Pixels per module (png) or SVG units per module.")
        var scale: Int = 8

        func validate() throws {
            guard (1...64).contains(scale) else { throw ValidationError("--scale must be 1 to 64, not \(scale)") }
            guard !uri.isEmpty else { throw ValidationError("--uri must not be empty") }
            try InputCheck.path(output, "--output")
            if format == .png && output == nil && isatty(STDOUT_FILENO) == 1 {
                throw ValidationError(
                    "--format png writes binary data; give --output FILE or redirect standard output")
            }
        }

        func run() throws {
            let code: QRCode
            do {
                code = try QRCode(text: uri, errorCorrection: ecc)
            } catch {
                throw ValidationError("--uri: \(error)")
            }
            let data: Data
            switch format {
            case .svg: data = Data(code.svg(moduleSize: scale).utf8)
            case .png: data = Data(code.png(scale: scale))
            case .text:
                let colors = output == nil && isatty(STDOUT_FILENO) == 1
                data = Data(code.terminalText(ansiColors: colors).utf8)
            }
            if let output {
                do {
                    try data.write(to: URL(fileURLWithPath: output))
                } catch {
                    throw ValidationError("--output: cannot write \(output): \(error.localizedDescription)")
                }
            } else {
                FileHandle.standardOutput.write(data)
            }
        }
    }
}
#endif
