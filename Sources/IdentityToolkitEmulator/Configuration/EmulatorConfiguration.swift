#if Emulator
public import Logging
public import IdentityToolkit
import Foundation

/// Settings of an emulator.
public struct EmulatorConfiguration: Sendable {
    /// The address bound when none is given: loopback only.
    public static let defaultHost = "127.0.0.1"
    /// The port Google's Auth emulator uses, and this one's default.
    public static let defaultPort = 9099
    /// The project API-key calls act on when none is given.
    public static let defaultProjectID = "demo-mfa"
    /// The project number the secure-token API answers with (`project_id`,
    /// where production gives the project's number), Google's emulator's.
    public static let defaultProjectNumber = "12345"

    /// The address to bind (loopback by default). Any other address needs
    /// ``allowRemote``: the emulator has no authentication.
    public var host: String
    /// The port; 0 picks a free one.
    public var port: Int
    /// The project that API-key calls act on.
    public var projectID: String
    /// The largest request body accepted; larger ones get 413.
    public var maxBodyBytes: Int
    /// Service accounts whose JWT assertions the token endpoint
    /// (`POST /oauth2.googleapis.com/token`) accepts: client email → public key PEM.
    public var serviceAccounts: [String: String]
    /// A connection on which nothing arrives for this long is closed, a
    /// half-sent request included (so slow clients cannot hold connections).
    public var idleTimeout: Duration
    /// The longest a request body may take to arrive, however it trickles;
    /// a slower one gets 408.
    public var bodyReadTimeout: Duration
    /// How long a graceful shutdown (SIGTERM, SIGINT, cancellation) waits
    /// for requests in flight before the server is cancelled.
    public var shutdownGracePeriod: Duration
    /// Where the emulator logs (warnings and errors; never a body or a token).
    public var logger: Logger
    /// Production's second-factor rules, with their values.
    public var secondFactorRules = SecondFactorRules()
    /// Serve on a non-loopback ``host``. Off by default: the emulator takes
    /// any password, mints tokens for any user and has no authentication,
    /// so on a shared network anyone could use it.
    public var allowRemote = false
    /// Browser origins allowed to call the emulator (CORS) besides the
    /// loopback ones (`http://localhost:*`, `http://127.0.0.1:*`,
    /// `http://[::1]:*`), such as `https://app.example.test:5000`; `*` allows any.
    public var allowedOrigins: [String] = []
    /// Host names a request may name in its `Host` header besides the
    /// loopback names and ``host`` (DNS-rebinding protection), such as the
    /// name containers use for the host machine.
    public var allowedHosts: [String] = []
    /// Let blocking functions' triggers point at link-local addresses
    /// (169.254.0.0/16, fe80::/10) and cloud metadata services
    /// (`metadata.google.internal`, `fd00:ec2::254`). Off by default: the
    /// emulator calls triggers from its own host, where such an address
    /// answers with the host's cloud credentials.
    public var allowLinkLocalTriggers = false
    /// Behave as Google's Auth emulator wherever this one differs by
    /// choice, so that a test suite written against Google's passes
    /// unchanged: unsigned ID tokens (`alg: none`, accepted back as Google's
    /// emulator accepts them), readable refresh tokens, unknown update-mask
    /// paths ignored, a tenant made on its first read, password hashes in
    /// lookups, a deleted user's refresh token `INVALID_REFRESH_TOKEN`, and
    /// empty values as Google's emulator reads them (`email: ""` is
    /// `INVALID_EMAIL`, a `null` member is refused, withdrawn factors leave
    /// `mfaInfo: []`). Off by default: those are weaker than production. Laptop safety
    /// (``allowedHosts``, ``allowedOrigins``) never turns off.
    public var googleCompatible = false
    /// Faults to inject from the start, as `setFaults` sets them (`mfa
    /// emulator --fault OPERATION=KIND[:MILLIS]`): a delay, 429, 503, a
    /// dropped connection, a hang or a malformed `Cache-Control` in place of
    /// an operation's answer. None by default.
    public var faults: [EmulatorFault] = []
    /// Refuse (400) a request whose path names a project other than
    /// ``projectID``, as firebase-tools' `singleProjectMode: ERROR` does:
    /// a test that names the wrong project fails instead of writing where
    /// nothing reads. Off by default (any project is served).
    public var singleProjectMode = false
    /// Whether a project answers a wrong password or an unknown address
    /// with `INVALID_LOGIN_CREDENTIALS` alike (email enumeration
    /// protection), until `PATCH /emulator/v1/projects/{p}/config` says
    /// otherwise. On by default, as production has it for projects created
    /// since September 2023; Google's emulator starts with it off (then
    /// `EMAIL_NOT_FOUND` and `INVALID_PASSWORD`).
    public var improvedEmailPrivacy = true
    /// A folder in firebase-tools' export format to load at start
    /// (`firebase emulators:start --import`); nil starts empty.
    public var importDirectory: String?
    /// A folder to write the state to, in the same format, when the emulator
    /// stops gracefully (`--export-on-exit`). It must be missing or empty, or
    /// hold a previous export: the emulator refuses to start otherwise, so
    /// that no folder it did not write is ever replaced.
    public var exportOnExitDirectory: String?
    /// The folder under which `POST /emulator/v1/export` may write
    /// (`--export-dir`); nil: only ``exportOnExitDirectory`` itself, and no
    /// HTTP export at all when that is nil too.
    public var exportDirectory: String?

    /// Where the export route may write: ``exportDirectory``, else
    /// ``exportOnExitDirectory``.
    var exportRoot: String? { exportDirectory ?? exportOnExitDirectory }

    /// Creates a configuration; every limit has a default fit for a shared,
    /// long-running emulator.
    public init(
        host: String = EmulatorConfiguration.defaultHost, port: Int = EmulatorConfiguration.defaultPort,
        projectID: String = EmulatorConfiguration.defaultProjectID, maxBodyBytes: Int = 1 << 20,
        serviceAccounts: [String: String] = [:], idleTimeout: Duration = .seconds(30),
        bodyReadTimeout: Duration = .seconds(10),
        shutdownGracePeriod: Duration = .seconds(5), logger: Logger = Logger(label: "IdentityToolkitEmulator")
    ) {
        self.serviceAccounts = serviceAccounts
        self.host = host
        self.port = port
        self.projectID = projectID
        self.maxBodyBytes = maxBodyBytes
        self.idleTimeout = idleTimeout
        self.bodyReadTimeout = bodyReadTimeout
        self.shutdownGracePeriod = shutdownGracePeriod
        self.logger = logger
    }

    /// Refuses settings the emulator cannot run with, naming the setting.
    func validate() throws(EmulatorConfigurationError) {
        try secondFactorRules.validate()
        guard (0...65_535).contains(port) else {
            throw EmulatorConfigurationError("port must be 0 to 65535, not \(port)")
        }
        guard allowRemote || LaptopSafety.isLoopback(host: host) else {
            throw EmulatorConfigurationError(
                "host \(host) is not a loopback address; set allowRemote to serve other machines (the emulator has no authentication)"
            )
        }
        if let exportOnExitDirectory {
            do throws(EmulatorExportError) {
                try ExportTarget.check(URL(fileURLWithPath: exportOnExitDirectory))
            } catch {
                throw EmulatorConfigurationError(error.description)
            }
        }
    }
}

/// A configuration the emulator cannot run with; the message names the setting.
public struct EmulatorConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public let description: String

    init(_ description: String) { self.description = description }
}

/// The rules production applies to second factors, with settable values
/// (`mfa emulator` has a flag for each, whose default and range come from
/// here). Production documents the errors but not every value; the defaults
/// say where each comes from.
public struct SecondFactorRules: Sendable, Hashable {
    /// Enrolling or withdrawing a factor needs a sign-in at most this old
    /// (`CREDENTIAL_TOO_OLD_LOGIN_AGAIN`); five minutes, as Firebase
    /// documents for sensitive operations.
    public var recentSignIn: Duration = .seconds(5 * 60)
    /// How long a TOTP sign-in challenge (the pending credential after the
    /// password) stays open (`TOTP_CHALLENGE_TIMEOUT`); five minutes, as
    /// recorded against production (refused at about 300 s; not documented).
    public var challengeLifetime: Duration = .seconds(5 * 60)
    /// Wrong codes allowed on one sign-in challenge or enrollment session;
    /// the next attempt, right or wrong, ends it
    /// (`TOO_MANY_ATTEMPTS_TRY_LATER`), so a code cannot be guessed by trying
    /// (NIST SP 800-63B §5.2.2). Five here; production throttles but does
    /// not document its threshold.
    public var maximumCodeAttempts: Int = 5

    /// The values ``recentSignIn`` and ``challengeLifetime`` may take: a
    /// second to a day.
    public static let durationRange: ClosedRange<Duration> = .seconds(1) ... .seconds(86_400)
    /// The values ``maximumCodeAttempts`` may take.
    public static let codeAttemptsRange: ClosedRange<Int> = 1...1000

    /// The defaults above.
    public init() {}

    /// Refuses a value outside its range, naming it.
    func validate() throws(EmulatorConfigurationError) {
        let seconds =
            "\(Self.durationRange.lowerBound.components.seconds) to \(Self.durationRange.upperBound.components.seconds) seconds"
        guard Self.durationRange.contains(recentSignIn) else {
            throw EmulatorConfigurationError("secondFactorRules.recentSignIn must be \(seconds)")
        }
        guard Self.durationRange.contains(challengeLifetime) else {
            throw EmulatorConfigurationError("secondFactorRules.challengeLifetime must be \(seconds)")
        }
        guard Self.codeAttemptsRange.contains(maximumCodeAttempts) else {
            throw EmulatorConfigurationError(
                "secondFactorRules.maximumCodeAttempts must be \(Self.codeAttemptsRange.lowerBound) to \(Self.codeAttemptsRange.upperBound)"
            )
        }
    }
}
#endif
