#if Tools
import ArgumentParser
import Foundation
import HTTPTypes
import IdentityToolkit
import IdentityToolkitAsyncHTTPClient
import IdentityToolkitEmulator
import MultiFactorAuth
import IdentityOTP

/// `mfa demo`: the whole TOTP story against an emulator, one line per step.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Enroll TOTP and sign in with it, against an emulator started in-process (or --emulator).",
        discussion: "Exits 0 when every step passed; a failure names the step and the AuthErrorCode."
    )

    @Option(help: "Use a running emulator at HOST:PORT instead of starting one.")
    var emulator: String?

    @Option(help: "The emulator's project.")
    var project = "demo-mfa"

    @Flag(help: "Do not draw the QR code.")
    var noQR = false

    @Option(help: "How long each request may take, in seconds (1 to 300).")
    var timeout: Int = 30

    @Option(
        help: ArgumentHelp(
            "After the TOTP sign-in, write the user's ID token to this file (created with mode 0600).",
            discussion: "For a server-side check of the token, such as `mfa admin verify-token < FILE`.",
            valueName: "file"))
    var idTokenFile: String?

    @Flag(help: "Leave the TOTP factor enrolled (skip the last step).")
    var keepFactor = false

    func validate() throws {
        guard (1...300).contains(timeout) else {
            throw ValidationError("--timeout must be 1 to 300 seconds, not \(timeout)")
        }
        try InputCheck.project(project)
        try InputCheck.path(idTokenFile, "--id-token-file")
        if let emulator {
            guard HostAndPort(emulator) != nil else {
                throw ValidationError("--emulator must be HOST:PORT, such as 127.0.0.1:9099, not '\(emulator)'")
            }
        }
    }

    func run() async throws {
        let demo = Demo(
            project: project, drawQR: !noQR, requestTimeout: .seconds(timeout), idTokenFile: idTokenFile,
            keepFactor: keepFactor)
        let ok = await demo.run(externalEmulator: emulator)
        if !ok { throw ExitCode(1) }
    }
}

/// The demo's steps; each prints one line with its duration.
struct Demo {
    let project: String
    let drawQR: Bool
    let requestTimeout: Duration
    var idTokenFile: String? = nil
    var keepFactor = false
    let transport = AsyncHTTPClientTransport.failingFast

    struct StepFailure: Error {}

    func step<Value>(_ name: String, _ body: () async throws -> Value) async throws -> Value {
        let started = ContinuousClock.now
        do {
            let value = try await body()
            let elapsed = ContinuousClock.now - started
            print("✔ \(name) (\(Demo.milliseconds(elapsed)))")
            return value
        } catch let error as AuthErrorCode {
            print(
                "✘ \(name): AuthErrorCode.\(error.code) (\(error.code.rawValue), \(error.code.userInfoName)): \(error.message)"
            )
            throw StepFailure()
        } catch {
            print("✘ \(name): \(error)")
            throw StepFailure()
        }
    }

    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format: "%.0f ms", Double(seconds) * 1000 + Double(attoseconds) / 1e15)
    }

    func run(externalEmulator: String?) async -> Bool {
        if let externalEmulator {
            print("using the emulator at \(externalEmulator)")
            return await run(against: externalEmulator)
        }
        let started = ContinuousClock.now
        let emulator: IdentityToolkitEmulator
        do {
            emulator = try IdentityToolkitEmulator(configuration: EmulatorConfiguration(port: 0, projectID: project))
        } catch {
            print("✘ start the emulator on a free loopback port: \(error)")
            return false
        }
        do {
            // Serves while the demo runs; shut down gracefully after it.
            return try await emulator.serving { running in
                print(
                    "✔ start the emulator on a free loopback port (\(Demo.milliseconds(ContinuousClock.now - started)))"
                )
                print("  emulator at \(running.baseURL)")
                return await run(against: running.hostAndPort)
            }
        } catch {
            print("✘ start the emulator on a free loopback port: \(error)")
            return false
        }
    }

    /// The demo's steps against the emulator at `hostAndPort`.
    private func run(against hostAndPort: String) async -> Bool {
        do {
            let address = HostAndPort(hostAndPort)
            let host = address?.host ?? "127.0.0.1"
            let port = address?.port ?? 9099

            let auth = try await step("configure the app") {
                let options = FirebaseOptions(
                    googleAppID: "1:000000000000:ios:0000000000000000", gcmSenderID: "000000000000")
                options.apiKey = "demo-api-key"
                options.projectID = project
                options.httpTransport = transport
                options.requestTimeout = requestTimeout
                FirebaseApp.configure(name: "mfa-demo", options: options)
                guard let app = FirebaseApp.app(name: "mfa-demo") else { throw AuthErrorCode(.internalError) }
                let auth = Auth.auth(app: app)
                auth.useEmulator(withHost: host, port: port)
                return auth
            }
            let configuration = ClientConfiguration(
                transport: transport, emulatorHost: hostAndPort, requestTimeout: requestTimeout)
            try await step("enable TOTP for project \(project) (adjacentIntervals 5)") {
                let admin = AdminClient(
                    accessToken: { EmulatorAdminToken.owner.rawValue }, configuration: configuration)
                _ = try await admin.updateProjectConfig(
                    project: project, updateMask: "mfa",
                    body: ProjectConfig(
                        mfa: MultiFactorAuthConfig(
                            providerConfigs: [
                                MfaProviderConfig(
                                    state: .enabled, totpProviderConfig: TotpMfaProviderConfig(adjacentIntervals: 5)
                                )
                            ])))
            }
            let email = "demo-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            let password = "demo-\(UUID().uuidString)"
            let user = try await step("create user \(email)") {
                try await auth.createUser(withEmail: email, password: password).user
            }
            try await step("verify the email (code read from the emulator)") {
                try await user.sendEmailVerification()
                try await auth.applyActionCode(try await oobCode(for: email, hostAndPort: hostAndPort))
                try await user.reload()
                guard user.isEmailVerified else { throw AuthErrorCode(.unverifiedEmail) }
            }
            let secret = try await step("generate a TOTP secret") {
                let session = try await user.multiFactor.session()
                return try await TOTPMultiFactorGenerator.generateSecret(with: session)
            }
            let uri = secret.generateQRCodeURL(withAccountName: email, issuer: "mfa demo")
            print("  secret: \(secret.sharedSecretKey())")
            print("  uri:    \(uri)")
            if drawQR, let qr = try? QRCode(text: uri, errorCorrection: .low) {
                print(qr.terminalText(ansiColors: isatty(STDOUT_FILENO) == 1), terminator: "")
            }
            let (totp, enrollmentStep) = try await step("compute the current code (the emulator's clock)") {
                () -> (TOTP, UInt64) in
                let totp = try TOTP(
                    key: try Base32.decode(secret.sharedSecretKey()), digits: secret.codeLength,
                    period: Int64(secret.codeIntervalSeconds))
                return (totp, try totp.step(at: try await emulatorTime(hostAndPort: hostAndPort)))
            }
            try await step("enroll TOTP with the current code") {
                let assertion = TOTPMultiFactorGenerator.assertionForEnrollment(
                    with: secret, oneTimePassword: totp.code(step: enrollmentStep))
                try await user.multiFactor.enroll(with: assertion, displayName: "mfa demo")
            }
            try await step("sign out") { try auth.signOut() }
            let resolver = try await step("sign in with the password → second factor required") {
                () -> MultiFactorResolver in
                do {
                    _ = try await auth.signIn(withEmail: email, password: password)
                    throw AuthErrorCode(.internalError, message: "The sign-in succeeded without a second factor.")
                } catch let error as AuthErrorCode where error.code == .secondFactorRequired {
                    guard
                        let resolver = error.userInfo[AuthErrorUserInfoMultiFactorResolverKey]
                            as? MultiFactorResolver
                    else {
                        throw AuthErrorCode(.internalError, message: "The error carries no resolver.")
                    }
                    return resolver
                }
            }
            let signedIn = try await step("resolve with a fresh TOTP code") { () -> User in
                guard let hint = resolver.hints.first(where: { $0.factorID == TOTPMultiFactorID }) else {
                    throw AuthErrorCode(.multiFactorInfoNotFound)
                }
                // The enrollment used this step; a code is accepted once, so use the next one.
                let assertion = TOTPMultiFactorGenerator.assertionForSignIn(
                    withEnrollmentID: hint.uid, oneTimePassword: totp.code(step: enrollmentStep + 1))
                return try await resolver.resolveSignIn(with: assertion).user
            }
            if let idTokenFile {
                try await step("write the ID token to \(idTokenFile)") {
                    let token = try await signedIn.getIDToken()
                    // Created owner-only before the token is written: never readable by others.
                    guard
                        FileManager.default.createFile(
                            atPath: idTokenFile, contents: nil, attributes: [.posixPermissions: 0o600]),
                        let handle = FileHandle(forWritingAtPath: idTokenFile)
                    else {
                        throw AuthErrorCode(.internalError, message: "Cannot create \(idTokenFile).")
                    }
                    defer { try? handle.close() }
                    try handle.write(contentsOf: Data(token.utf8))
                }
            }
            let factors = try await step("list factors") { signedIn.multiFactor.enrolledFactors }
            for factor in factors {
                print("  \(factor.factorID) \(factor.displayName ?? "") enrolled \(factor.enrollmentDate)")
            }
            if !keepFactor {
                try await step("unenroll TOTP") {
                    guard let factor = factors.first else { throw AuthErrorCode(.multiFactorInfoNotFound) }
                    try await signedIn.multiFactor.unenroll(with: factor)
                    guard signedIn.multiFactor.enrolledFactors.isEmpty else {
                        throw AuthErrorCode(.internalError, message: "The factor is still listed.")
                    }
                }
            }
            print("demo complete")
            return true
        } catch {
            return false
        }
    }

    /// The emulator's own helpers (`Spec/emulator.yaml`), through their generated client.
    private func helpers(_ hostAndPort: String) -> EmulatorHelpersClient {
        EmulatorHelpersClient(
            configuration: ClientConfiguration(
                transport: transport, emulatorHost: hostAndPort, requestTimeout: requestTimeout))
    }

    private func oobCode(for email: String, hostAndPort: String) async throws -> String {
        let listing = try await helpers(hostAndPort).listOobCodes(project: project)
        guard let code = listing.oobCodes.last(where: { $0.email == email })?.oobCode else {
            throw AuthErrorCode(
                .invalidActionCode, message: "The emulator lists no verification code for \(email).")
        }
        return code
    }

    /// The emulator's clock (its codes are judged by it); refused when it
    /// is not a time a TOTP code can be made for.
    private func emulatorTime(hostAndPort: String) async throws -> Int64 {
        let millis = try await helpers(hostAndPort).getClock().nowMillis
        guard millis >= 0 else { throw NegativeEmulatorTime(millis: millis) }
        return millis / 1000
    }

    /// The emulator's clock stood before 1970, where no TOTP step exists.
    struct NegativeEmulatorTime: Error, CustomStringConvertible {
        var millis: Int64
        var description: String { "the emulator's clock answered a negative time (\(millis) ms)" }
    }
}
#endif
