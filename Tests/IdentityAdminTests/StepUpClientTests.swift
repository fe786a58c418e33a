import AdminTestSupport
import EmulatorTestSupport
import Foundation
import Hummingbird
import HummingbirdAuth
import HummingbirdTesting
import IdentityAdmin
import IdentityAdminHummingbird
import IdentityOTP
import IdentityToolkit
import IdentityToolkitEmulator
import MultiFactorAuth
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A protected route asks for a step-up (RFC 9470) and a MultiFactorAuth
/// client answers it by itself: URLSession against a live Hummingbird
/// server, the user's tokens from the emulator.
@Suite struct StepUpClientTests {
    typealias Context = BasicAuthRequestContext<DecodedIDToken>

    /// Counts the prompts an app would show.
    final class Prompts: @unchecked Sendable {
        private let lock = NSLock()
        private var seen: [String] = []
        func record(_ prompt: String) { lock.withLock { seen.append(prompt) } }
        var shown: [String] { lock.withLock { seen } }
    }

    /// A new `Auth` on the emulator of `setup`, on its clock.
    static func auth(_ setup: EmulatorSetup) throws -> Auth {
        let options = FirebaseOptions(googleAppID: "1:1:ios:1", gcmSenderID: "1")
        options.apiKey = "step-up"
        options.httpTransport = setup.transport
        let appName = "step-up-\(UUID().uuidString)"
        FirebaseApp.configure(name: appName, options: options)
        let clock = setup.clock
        let auth = Auth(app: try #require(FirebaseApp.app(name: appName)), now: { clock.now })
        auth.useEmulator(withHost: IdentityToolkitEmulator.inProcessHost, port: IdentityToolkitEmulator.inProcessPort)
        return auth
    }

    @Test func aSingleFactorSignInIsSteppedUpAndTheRequestRetried() async throws {
        try await EmulatorSetup.with(project: "demo-step-up") { setup in
            let clock = setup.clock
            let auth = try Self.auth(setup)
            let phone = try Self.auth(setup)

            // Signed in with the password on one device; TOTP then enrolled from
            // another: this device's sign-in is a single-factor one of a user who has a factor.
            let email = "step-up@example.com"
            let password = "correct horse"
            let user = try await auth.createUser(withEmail: email, password: password).user
            _ = try await setup.admin.updateUser(user.uid, UpdateUserRequest(emailVerified: true))
            let other = try await phone.signIn(withEmail: email, password: password).user
            let secret = try await TOTPMultiFactorGenerator.generateSecret(with: try await other.multiFactor.session())
            let authenticator = try TOTP(base32Secret: secret.sharedSecretKey())
            try await other.multiFactor.enroll(
                with: TOTPMultiFactorGenerator.assertionForEnrollment(
                    with: secret, oneTimePassword: try authenticator.code(at: clock.now)), displayName: "Phone")
            #expect(try await user.getIDTokenResult().signInSecondFactor == nil)

            let router = Router(context: Context.self)
            router.add(
                middleware: FirebaseAuthenticator(setup.admin, options: .init(policy: .init(secondFactor: .ifEnrolled)))
            )
            router.get("payouts") { _, context in
                let token = try context.requireIdentity()
                return "\(token.uid) \(token.signInSecondFactor ?? "none")"
            }
            let prompts = Prompts()
            let stepUp = StepUpPrompts(
                credential: { challenge in
                    prompts.record("password (second factor: \(challenge.requiresSecondFactor))")
                    return EmailAuthProvider.credential(withEmail: email, password: password)
                },
                secondFactor: { resolver in
                    prompts.record("code")
                    clock.advance(by: 30) // the next step's code: a code is accepted once
                    return TOTPMultiFactorGenerator.assertionForSignIn(
                        withEnrollmentID: resolver.hints[0].uid,
                        oneTimePassword: try authenticator.code(at: clock.now))
                })
            try await Application(router: router).test(.live) { client in
                let url = URL(string: "http://127.0.0.1:\(try #require(client.port))/payouts")!
                let requestsSeen = Prompts()
                let (data, response) = try await user.withStepUp(
                    prompts: stepUp, challenge: { $0.1.value(forHTTPHeaderField: "WWW-Authenticate") }
                ) { idToken in
                    var request = URLRequest(url: url)
                    request.setValue("Bearer \(idToken)", forHTTPHeaderField: "Authorization")
                    let (data, response) = try await URLSession.shared.data(for: request)
                    let http = try #require(response as? HTTPURLResponse)
                    requestsSeen.record("\(http.statusCode)")
                    return (data, http)
                }
                #expect(requestsSeen.shown == ["401", "200"], "one challenge, one retry")
                #expect(response.statusCode == 200)
                #expect(String(decoding: data, as: UTF8.self) == "\(user.uid) totp")
            }
            #expect(prompts.shown == ["password (second factor: true)", "code"])
            #expect(try await auth.currentUser?.getIDTokenResult().signInSecondFactor == "totp")
        }
    }

    /// An answer without a challenge goes back as it came, with no prompt.
    @Test func anAnswerWithoutAChallengeIsReturnedAsItIs() async throws {
        try await EmulatorSetup.with(project: "demo-step-up-none") { setup in
            let auth = try Self.auth(setup)
            let user = try await auth.createUser(withEmail: "plain@example.com", password: "correct horse").user
            let prompts = Prompts()
            let stepUp = StepUpPrompts(
                credential: { _ in
                    prompts.record("password")
                    throw CancellationError()
                },
                secondFactor: { _ in
                    prompts.record("code")
                    throw CancellationError()
                })
            let answer = try await user.withStepUp(
                prompts: stepUp, challenge: { $0 == 403 ? #"Bearer error="invalid_token""# : nil }
            ) { _ in 403 }
            #expect(answer == 403)
            #expect(prompts.shown.isEmpty)
        }
    }
}
