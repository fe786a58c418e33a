import ArgumentParser
import Foundation
import Hummingbird
import HummingbirdAuth
import IdentityAdmin
import IdentityAdminHummingbird
import IdentityToolkit
import IdentityToolkitAsyncHTTPClient
import IdentityToolkitEmulator
import Logging

/// `RouteLoadServer`: the target of the wrk run that Benchmarks/README.md
/// reports. One Hummingbird server, the same handler behind each route:
///
/// - `GET /open`: no middleware (the ceiling);
/// - `GET /cached`: `FirebaseAuthenticator` with the default verified-token cache;
/// - `GET /uncached`: the same with the cache off (every request pays the RSA check);
/// - `GET /revocation`: `checkRevoked`, default cache (account states kept 10 s);
/// - `GET /revocation-uncached`: `checkRevoked` with nothing cached (every
///   request asks the emulator for the account).
///
/// An emulator runs in the same process. It signs up `--distinct` users there and writes their ID tokens,
/// one a line, to `--tokens-file` (created 0600: tokens never go on a command
/// line), then prints `listening on http://HOST:PORT`.
@main
struct RouteLoadServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "RouteLoadServer",
        abstract: "A Hummingbird server with routes protected by FirebaseAuthenticator, for a load generator."
    )

    @Option(help: "The address to serve on.")
    var host = "127.0.0.1"

    @Option(help: "The port to serve on; 0 picks a free one.")
    var port = 0

    @Option(help: ArgumentHelp("Where to write the ID tokens, one a line (created with mode 0600).", valueName: "path"))
    var tokensFile: String

    @Option(help: "How many users to sign up, each giving a distinct token.")
    var distinct = 1000

    static let projectID = "demo-route-load"

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535, not \(port)") }
        guard (1...100_000).contains(distinct) else {
            throw ValidationError("--distinct must be 1 to 100000, not \(distinct)")
        }
    }

    func run() async throws {
        var logger = Logger(label: "RouteLoadServer")
        logger.logLevel = .warning
        // The emulator in this process: its loopback hop is what a
        // revocation check without caching pays per request.
        try await IdentityToolkitEmulator(
            configuration: EmulatorConfiguration(port: 0, projectID: Self.projectID)
        ).serving { emulator in
            try await serve(emulatorHost: emulator.hostAndPort, logger: logger)
        }
    }

    func serve(emulatorHost: String, logger: Logger) async throws {
        let configuration = ClientConfiguration(transport: AsyncHTTPClientTransport(), emulatorHost: emulatorHost)
        let cached = IdentityAdmin(
            projectID: Self.projectID, credential: EmulatorOwnerCredential(), configuration: configuration)
        let uncached = IdentityAdmin(
            projectID: Self.projectID, credential: EmulatorOwnerCredential(), configuration: configuration,
            tokenCache: .disabled)
        try writeTokens(try await signUp(count: distinct, configuration: configuration))

        typealias Context = BasicAuthRequestContext<DecodedIDToken>
        let router = Router(context: Context.self)
        // The same answer everywhere: the protected routes add only the check.
        router.get("/open") { _, _ in "ok" }
        let routes: [(path: String, admin: IdentityAdmin, options: FirebaseRouteProtection.Options)] = [
            ("/cached", cached, .init()), ("/uncached", uncached, .init()),
            ("/revocation", cached, .init(checkRevoked: true)),
            ("/revocation-uncached", uncached, .init(checkRevoked: true)),
            // The sign-in policy's warm path: the users have no factor, and
            // their account states are looked up once per 10 s.
            ("/if-enrolled", cached, .init(policy: .init(secondFactor: .ifEnrolled))),
        ]
        for route in routes {
            router.group()
                .add(middleware: FirebaseAuthenticator(route.admin, options: route.options))
                .get(RouterPath(route.path)) { _, context in
                    _ = try context.requireIdentity()
                    return "ok"
                }
        }
        let host = self.host
        let application = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in
                FileHandle.standardOutput.write(
                    Data("listening on http://\(host):\(channel.localAddress?.port ?? 0)\n".utf8))
            },
            logger: logger
        )
        try await application.runService()
    }

    /// `count` new users' ID tokens, eight sign-ups at a time; distinct
    /// users, because one user's tokens of the same second are the same bytes.
    func signUp(count: Int, configuration: ClientConfiguration) async throws -> [String] {
        let accounts = AccountsClient(apiKey: "route-load", configuration: configuration)
        let run = UUID().uuidString.prefix(8).lowercased()
        let password = UUID().uuidString
        var tokens: [String] = []
        tokens.reserveCapacity(count)
        try await withThrowingTaskGroup(of: String.self) { group in
            var next = 0
            func add() {
                let email = "load-\(run)-\(next)@example.com"
                next += 1
                group.addTask {
                    let created = try await accounts.signUp(
                        SignUpRequest(email: email, password: password, returnSecureToken: true))
                    guard let token = created.idToken else {
                        throw ValidationError("the emulator's sign-up returned no ID token")
                    }
                    return token
                }
            }
            while next < min(8, count) { add() }
            while let token = try await group.next() {
                tokens.append(token)
                if next < count { add() }
            }
        }
        return tokens
    }

    /// Writes the tokens to a file only its owner reads (made 0600 before
    /// any token is in it).
    func writeTokens(_ tokens: [String]) throws {
        let manager = FileManager.default
        try? manager.removeItem(atPath: tokensFile)
        guard manager.createFile(atPath: tokensFile, contents: nil, attributes: [.posixPermissions: 0o600]),
            let handle = FileHandle(forWritingAtPath: tokensFile)
        else {
            throw ValidationError("cannot create --tokens-file \(tokensFile)")
        }
        defer { try? handle.close() }
        try handle.write(contentsOf: Data(tokens.joined(separator: "\n").utf8 + [UInt8(ascii: "\n")]))
    }
}
