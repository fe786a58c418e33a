public import Foundation
import IdentityOTPFormats
import IdentitySupport
import IdentityToolkit

/// Makes TOTP secrets and assertions.
public enum TOTPMultiFactorGenerator {
    /// The factor name ``MultiFactor/enroll(with:displayName:)`` sends when
    /// it is given none: production refuses a TOTP factor without a name
    /// (`MISSING_DISPLAY_NAME`), and users see it when they pick a factor.
    public static let defaultDisplayName = "Authenticator app"

    /// Starts a TOTP enrollment: the server makes a secret for the user.
    /// - Parameter session: From ``MultiFactor/session()``.
    public static func generateSecret(with session: MultiFactorSession) async throws -> TOTPSecret {
        guard case .enrollment(let idToken) = session.kind else {
            throw AuthErrorCode(
                .invalidMultiFactorSession, message: "This session is for signing in, not for enrollment.")
        }
        let backend = try session.context.backend()
        let tenant = session.tenantID
        let response = try await AuthErrorMapping.perform {
            try await backend.accounts.startMfaEnrollment(
                StartMfaEnrollmentRequest(
                    idToken: idToken, tenantId: tenant, totpEnrollmentInfo: StartTotpMfaEnrollmentRequestInfo()))
        }
        guard let info = response.totpSessionInfo, let key = info.sharedSecretKey, let sessionInfo = info.sessionInfo,
            let secret = try? Base32.decode(key, mode: .lenient), !secret.isEmpty
        else {
            throw AuthErrorCode(.internalError, message: "The enrollment response has no usable TOTP secret.")
        }
        // Parameters from the server are range-checked before they are used:
        // a code length or period no authenticator supports is refused here,
        // not trapped on later.
        let algorithm = info.hashingAlgorithm ?? "SHA1"
        let codeLength = Int(info.verificationCodeLength ?? 6)
        let period = Int(info.periodSec ?? 30)
        if let unsupported = TOTPSecret.unsupportedParameters(
            algorithm: algorithm, codeLength: codeLength, period: period)
        {
            throw AuthErrorCode(
                .internalError, message: "The enrollment response has unsupported TOTP parameters (\(unsupported)).")
        }
        return TOTPSecret(
            secret: secret, sessionInfo: sessionInfo, hashingAlgorithm: algorithm,
            codeLength: codeLength, codeIntervalSeconds: period,
            enrollmentCompletionDeadline: info.finalizeEnrollmentTime ?? .distantFuture)
    }

    /// An assertion that completes an enrollment with the code the user's app shows.
    /// A nil secret gives an assertion that ``MultiFactor/enroll(with:displayName:)`` refuses
    /// with an error (the Firebase docs pass the optional from a completion).
    public static func assertionForEnrollment(with secret: TOTPSecret?, oneTimePassword: String)
        -> TOTPMultiFactorAssertion
    {
        TOTPMultiFactorAssertion(secret: secret, enrollmentID: nil, oneTimePassword: oneTimePassword)
    }

    /// An assertion that completes a sign-in with the factor `enrollmentID` (a hint's `uid`).
    public static func assertionForSignIn(withEnrollmentID enrollmentID: String, oneTimePassword: String)
        -> TOTPMultiFactorAssertion
    {
        TOTPMultiFactorAssertion(secret: nil, enrollmentID: enrollmentID, oneTimePassword: oneTimePassword)
    }
}

/// Opens otpauth:// URLs in an authenticator app: install one as
/// ``TOTPSecret/urlOpener``. The URI holds the TOTP secret, so an opener must
/// never pass it on a command line (any local user can read another
/// process's arguments).
public protocol OTPAppURLOpener: Sendable {
    /// Opens `url` in an authenticator app.
    func open(_ url: String)
}

#if canImport(AppKit)
import AppKit

/// The default opener where AppKit exists: Launch Services, in process
/// (no command line holds the URI).
public struct SystemURLOpener: OTPAppURLOpener {
    /// The system opener.
    public init() {}

    /// Opens `url` with the app registered for `otpauth:`.
    public func open(_ url: String) {
        guard let url = URL(string: url) else { return }
        NSWorkspace.shared.open(url)
    }
}
#endif

/// A TOTP shared secret from the server, with its parameters.
///
/// Its `description` never shows the key.
public final class TOTPSecret: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    private static let opener = Locked<(any OTPAppURLOpener)?>(defaultOpener)

    /// Launch Services where AppKit exists; elsewhere (a server) none: no
    /// program is started unless the app installs an opener.
    static var defaultOpener: (any OTPAppURLOpener)? {
        #if canImport(AppKit)
        return SystemURLOpener()
        #else
        return nil
        #endif
    }

    /// What ``openInOTPApp(withQRCodeURL:)`` uses; nil opens nothing.
    public static var urlOpener: (any OTPAppURLOpener)? {
        get { opener.current }
        set { opener.withLock { $0 = newValue } }
    }

    /// The code lengths authenticator apps (and the IdentityOTP module) support.
    static let supportedCodeLengths = 6...8
    /// Time steps from one second to one hour.
    static let supportedPeriods = 1...3600

    let secret: [UInt8]
    let sessionInfo: String
    /// The HMAC hash, such as `SHA1`.
    public let hashingAlgorithm: String
    /// Digits per code.
    public let codeLength: Int
    /// The time step in seconds.
    public let codeIntervalSeconds: Int
    /// When the enrollment must be finalized by.
    public let enrollmentCompletionDeadline: Date

    init(
        secret: [UInt8], sessionInfo: String, hashingAlgorithm: String, codeLength: Int, codeIntervalSeconds: Int,
        enrollmentCompletionDeadline: Date
    ) {
        self.secret = secret
        self.sessionInfo = sessionInfo
        self.hashingAlgorithm = hashingAlgorithm
        self.codeLength = codeLength
        self.codeIntervalSeconds = codeIntervalSeconds
        self.enrollmentCompletionDeadline = enrollmentCompletionDeadline
    }

    /// The parameters; never the key.
    public var description: String {
        "TOTPSecret(\(hashingAlgorithm), \(codeLength) digits, \(codeIntervalSeconds) s, key: <redacted>)"
    }

    /// The same as ``description``: no key.
    public var debugDescription: String { description }

    /// What `dump` and debuggers show: the key and the session redacted.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "hashingAlgorithm": hashingAlgorithm, "codeLength": codeLength,
                "codeIntervalSeconds": codeIntervalSeconds,
                "enrollmentCompletionDeadline": enrollmentCompletionDeadline, "secret": RedactedValue(secret),
                "sessionInfo": RedactedValue(sessionInfo),
            ], displayStyle: .class)
    }

    /// The key in base32, for users who type it into their app.
    public func sharedSecretKey() -> String {
        Base32.encode(secret)
    }

    /// The otpauth:// URI for a QR code: label and parameters
    /// percent-encoded, the issuer in both, `period` when not 30.
    public func generateQRCodeURL(withAccountName accountName: String, issuer: String) -> String {
        OTPAuthURI(
            issuer: issuer.isEmpty ? nil : issuer, account: accountName, secret: secret,
            algorithm: HashAlgorithm(name: hashingAlgorithm) ?? .sha1, digits: codeLength,
            period: Int64(codeIntervalSeconds)
        ).string
    }

    /// Hands the URI to ``urlOpener`` (an authenticator app, where there is one).
    /// - Returns: false when no opener is installed (the default on Linux):
    ///   nothing was opened, and no program was started.
    @discardableResult
    public func openInOTPApp(withQRCodeURL qrCodeURL: String) -> Bool {
        Self.open(qrCodeURL, with: TOTPSecret.urlOpener)
    }

    static func open(_ url: String, with opener: (any OTPAppURLOpener)?) -> Bool {
        guard let opener else { return false }
        opener.open(url)
        return true
    }
}
