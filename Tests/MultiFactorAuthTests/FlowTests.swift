import AsyncHTTPClient
import Foundation
import HTTPTypes
import IdentityOTP
import IdentityToolkit
import IdentityToolkitAsyncHTTPClient
import IdentityToolkitTestSupport
import MultiFactorAuth
import Testing

@Suite struct FlowTests {
    @Test func asyncStory() async throws {
        try await withSDK { h in
            let auth = h.auth()
            let user = try await h.verifiedUser(on: auth)
            #expect(auth.currentUser === user)
            #expect(user.isEmailVerified)
            let secret = try await h.enrollTOTP(user)
            #expect(secret.codeLength == 6)
            #expect(secret.codeIntervalSeconds == 30)
            #expect(secret.hashingAlgorithm == "SHA1")
            #expect(secret.enrollmentCompletionDeadline > h.clock.now)
            #expect(!"\(secret)".contains(secret.sharedSecretKey()))
            let url = secret.generateQRCodeURL(withAccountName: "ada lovelace@example.com", issuer: "ACME & Co")
            #expect(
                url.hasPrefix(
                    "otpauth://totp/ACME%20%26%20Co:ada%20lovelace%40example.com?secret=\(secret.sharedSecretKey())&issuer=ACME%20%26%20Co"
                ))
            #expect(user.multiFactor.enrolledFactors.count == 1)
            let factor = try #require(user.multiFactor.enrolledFactors.first as? TOTPMultiFactorInfo)
            #expect(factor.factorID == TOTPMultiFactorID)
            #expect(factor.displayName == "app")

            try auth.signOut()
            #expect(auth.currentUser == nil)
            let email = try #require(user.email)
            let resolver = try await h.resolver(auth, email: email)
            #expect(resolver.auth === auth)
            #expect(resolver.hints.map(\.uid) == [factor.uid])
            h.clock.advance(by: 30)
            let result = try await resolver.resolveSignIn(
                with: TOTPMultiFactorGenerator.assertionForSignIn(
                    withEnrollmentID: factor.uid, oneTimePassword: try h.code(secret)))
            #expect(result.user.uid == user.uid)
            #expect(auth.currentUser === result.user)
            try await result.user.multiFactor.unenroll(withFactorUID: factor.uid)
            #expect(result.user.multiFactor.enrolledFactors.isEmpty)
            // Without a factor, a password sign-in succeeds at once.
            try auth.signOut()
            _ = try await auth.signIn(withEmail: email, password: "secret-password")
        }
    }

    @Test func completionStoryDeliversOnTheConfiguredQueue() async throws {
        try await withSDK { h in
            // Scoped to this test's task: suites running in parallel keep the
            // process-wide queue, which this test never changes.
            let queue = DispatchQueue(label: "test.completions")
            try await AuthCompletionDelivery.withQueue(queue) {
                let auth = h.auth()
                let email = "c-\(UUID().uuidString.prefix(8))@example.com"
                let created: User? = await withCheckedContinuation { continuation in
                    auth.createUserWithEmail(email, password: "secret-password") { result, error in
                        dispatchPrecondition(condition: .onQueue(queue))
                        continuation.resume(returning: result?.user)
                    }
                }
                let user = try #require(created)
                let tokenError: (any Error)? = await withCheckedContinuation { continuation in
                    auth.signInWithEmail(email, password: "wrong-password") { result, error in
                        continuation.resume(returning: error)
                    }
                }
                #expect(tokenError.code == AuthErrorCode.invalidCredential.rawValue)
                let token: String? = await withCheckedContinuation { continuation in
                    user.getIDTokenWithCompletion { token, _ in continuation.resume(returning: token) }
                }
                #expect(token != nil)
                let sessionError: (any Error)? = await withCheckedContinuation { continuation in
                    user.multiFactor.getSessionWithCompletion { session, _ in
                        guard let session else { return continuation.resume(returning: AuthErrorCode(.internalError)) }
                        TOTPMultiFactorGenerator.generateSecretWithMultiFactorSession(session) { _, error in
                            continuation.resume(returning: error)
                        }
                    }
                }
                // The email is not verified yet.
                #expect((sessionError as? AuthErrorCode)?.code == .unverifiedEmail)
            }
            // Outside the scope the process-wide queue is back.
            #expect(AuthCompletionDelivery.queue !== queue)
        }
    }

    @Test func sessionsSurviveInAStoreAndInAnotherInstance() async throws {
        try await withSDK { h in
            let store = ExpiringStateAuthSessionStore()
            let first = h.auth(store: store)
            let user = try await h.verifiedUser(on: first)
            try await h.enrollTOTP(user)
            let session = try #require(first.currentSession())
            #expect(!"\(session)".contains(session.refreshToken))
            let encoded = try JSONEncoder().encode(session)
            // Another instance (another request of a server) picks it up.
            let second = h.auth(store: store)
            let restored = second.restore(try JSONDecoder().decode(AuthSession.self, from: encoded))
            #expect(restored.uid == user.uid)
            #expect(restored.multiFactor.enrolledFactors.map(\.uid) == user.multiFactor.enrolledFactors.map(\.uid))
            _ = try await restored.getIDToken(forcingRefresh: true)
            try await restored.reload()
            // The store holds what the first instance saved.
            let fromStore = try await store.load(key: (first.app?.name ?? "") + "/")
            #expect(fromStore?.uid == user.uid)
            try first.signOut()
            try await first.flushSessionStore()
            let third = Auth(app: try #require(first.app), sessionStore: store)
            #expect(try await third.restoreFromStore() == nil)
        }
    }
}

@Suite struct ErrorPathTests {
    @Test func wrongAndReplayedCodes() async throws {
        try await withSDK { h in
            let auth = h.auth()
            let user = try await h.verifiedUser(on: auth)
            let secret = try await TOTPMultiFactorGenerator.generateSecret(with: try await user.multiFactor.session())
            await expectAuthError(.invalidVerificationCode) {
                try await user.multiFactor.enroll(
                    with: TOTPMultiFactorGenerator.assertionForEnrollment(
                        with: secret, oneTimePassword: try h.code(secret, offset: 3)), displayName: nil)
            }
            let code = try h.code(secret)
            try await user.multiFactor.enroll(
                with: TOTPMultiFactorGenerator.assertionForEnrollment(with: secret, oneTimePassword: code),
                displayName: nil)
            let factor = try #require(user.multiFactor.enrolledFactors.first)
            // Production refuses a nameless TOTP factor: the SDK names it.
            #expect(factor.displayName == TOTPMultiFactorGenerator.defaultDisplayName)
            let resolver = try await h.resolver(auth, email: try #require(user.email))
            await expectAuthError(.invalidVerificationCode) {
                try await resolver.resolveSignIn(
                    with: TOTPMultiFactorGenerator.assertionForSignIn(
                        withEnrollmentID: factor.uid, oneTimePassword: code))
            }
            await expectAuthError(.multiFactorInfoNotFound) {
                try await resolver.resolveSignIn(
                    with: TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: "nope", oneTimePassword: code))
            }
            // A TOTP challenge expires: production's TOTP_CHALLENGE_TIMEOUT, which
            // FirebaseAuth leaves as internalError; here it says the first factor is due again.
            h.clock.advance(by: 11 * 60)
            await expectAuthError(.invalidMultiFactorSession) {
                try await resolver.resolveSignIn(
                    with: TOTPMultiFactorGenerator.assertionForSignIn(
                        withEnrollmentID: factor.uid, oneTimePassword: try h.code(secret)))
            }
        }
    }

    @Test func enrollmentRules() async throws {
        try await withSDK { h in
            let auth = h.auth()
            let unverified = try await auth.createUser(
                withEmail: "x-\(UUID().uuidString.prefix(6))@example.com", password: "secret-password"
            ).user
            await expectAuthError(.unverifiedEmail) {
                try await TOTPMultiFactorGenerator.generateSecret(with: try await unverified.multiFactor.session())
            }
            let anonymous = try await h.auth().signInAnonymously().user
            #expect(anonymous.isAnonymous)
            await expectAuthError(.unsupportedFirstFactor) {
                try await TOTPMultiFactorGenerator.generateSecret(with: try await anonymous.multiFactor.session())
            }
            let user = try await h.verifiedUser(on: auth)
            try await h.enrollTOTP(user)
            await expectAuthError(.secondFactorAlreadyEnrolled) {
                try await TOTPMultiFactorGenerator.generateSecret(with: try await user.multiFactor.session())
            }
        }
    }

    /// A server-minted custom token signs a user in (how a recovery hands
    /// a session back); no second factor is asked, as Google's emulator
    /// answers: the server vouches for the user.
    @Test func customTokenSignIn() async throws {
        try await withSDK { h in
            let custom = { (uid: String) in
                // What firebase-admin makes in emulator mode: unsigned.
                let claims =
                    #"{"aud":"https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit","uid":"\#(uid)","iat":1}"#
                return "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0."
                    + Data(claims.utf8).base64EncodedString()
                    .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                    .replacingOccurrences(of: "=", with: "") + "."
            }
            let fresh = try await h.auth().signIn(withCustomToken: custom("custom-\(UUID().uuidString.prefix(6))"))
            #expect(fresh.additionalUserInfo?.providerID == "custom")
            #expect(fresh.additionalUserInfo?.isNewUser == true)
            let auth = h.auth()
            let user = try await h.verifiedUser(on: auth)
            try await h.enrollTOTP(user)
            #expect(try await h.auth().signIn(withCustomToken: custom(user.uid)).user.uid == user.uid)
            await expectAuthError(.invalidCustomToken) { try await h.auth().signIn(withCustomToken: "not-a-token") }
        }
    }

    @Test func theFiveFactorLimit() async throws {
        try await withSDK { h in
            let auth = h.auth()
            let user = try await h.verifiedUser(on: auth)
            // Four phone factors through the REST client (the SDK enrolls TOTP only).
            let accounts = AccountsClient(
                apiKey: "k",
                configuration: ClientConfiguration(transport: h.transport, emulatorHost: h.hostAndPort))
            for index in 1...5 {
                let idToken = try await user.getIDToken()
                let started = try await accounts.startMfaEnrollment(
                    StartMfaEnrollmentRequest(
                        idToken: idToken, phoneEnrollmentInfo: .init(phoneNumber: "+1555555010\(index)")))
                let sessionInfo = try #require(started.phoneSessionInfo?.sessionInfo)
                let codes =
                    try await h.helper("/emulator/v1/projects/\(h.project)/verificationCodes")["verificationCodes"]
                    as? [[String: String]] ?? []
                let finalized = try await accounts.finalizeMfaEnrollment(
                    FinalizeMfaEnrollmentRequest(
                        idToken: idToken,
                        phoneVerificationInfo: .init(
                            sessionInfo: sessionInfo, code: codes.first { $0["sessionInfo"] == sessionInfo }?["code"])))
                try await user.reload()
                _ = finalized
            }
            #expect(user.multiFactor.enrolledFactors.count == 5)
            #expect(
                user.multiFactor.enrolledFactors.allSatisfy {
                    $0 is PhoneMultiFactorInfo && $0.factorID == PhoneMultiFactorID
                })
            await expectAuthError(.maximumSecondFactorCountExceeded) {
                try await TOTPMultiFactorGenerator.generateSecret(with: try await user.multiFactor.session())
            }
            // Phone hints reach the resolver, masked.
            let resolver = try await h.resolver(auth, email: try #require(user.email))
            #expect(resolver.hints.compactMap { ($0 as? PhoneMultiFactorInfo)?.phoneNumber }.first == "+*******0101")
        }
    }

    @Test func misuseThrowsInsteadOfCrashing() async throws {
        try await withSDK { h in
            let auth = h.auth()
            let user = try await h.verifiedUser(on: auth)
            let secret = try await TOTPMultiFactorGenerator.generateSecret(with: try await user.multiFactor.session())
            await expectAuthError(.missingMultiFactorInfo) {
                try await user.multiFactor.enroll(
                    with: TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: "x", oneTimePassword: "123456"),
                    displayName: nil)
            }
            await expectAuthError(.missingMultiFactorInfo) {
                try await user.multiFactor.enroll(
                    with: TOTPMultiFactorGenerator.assertionForEnrollment(with: nil, oneTimePassword: "123456"),
                    displayName: nil)
            }
            try await user.multiFactor.enroll(
                with: TOTPMultiFactorGenerator.assertionForEnrollment(
                    with: secret, oneTimePassword: try h.code(secret)), displayName: nil)
            let resolver = try await h.resolver(auth, email: try #require(user.email))
            await expectAuthError(.missingMultiFactorInfo) {
                try await resolver.resolveSignIn(
                    with: TOTPMultiFactorGenerator.assertionForEnrollment(with: secret, oneTimePassword: "123456"))
            }
            await expectAuthError(.invalidMultiFactorSession) {
                try await TOTPMultiFactorGenerator.generateSecret(with: resolver.session)
            }
            // An app without an API key, and no app at all.
            let options = FirebaseOptions(googleAppID: "1:1:ios:1", gcmSenderID: "1")
            FirebaseApp.configure(name: "no-key", options: options)
            await expectAuthError(.invalidAPIKey) {
                try await Auth.auth(app: FirebaseApp.app(name: "no-key")!).signIn(withEmail: "a@b.co", password: "p")
            }
        }
    }

    @Test func unenrollEndsTheOtherSessions() async throws {
        try await withSDK { h in
            let phone = h.auth()
            let user = try await h.verifiedUser(on: phone)
            let secret = try await h.enrollTOTP(user)
            let email = try #require(user.email)
            // The same user signed in on another instance (another device).
            let laptop = h.auth()
            let resolver = try await h.resolver(laptop, email: email)
            let other = try await resolver.resolveSignIn(
                with: TOTPMultiFactorGenerator.assertionForSignIn(
                    withEnrollmentID: try #require(resolver.hints.first?.uid),
                    oneTimePassword: try h.code(secret, offset: 1))
            ).user
            try await user.multiFactor.unenroll(with: try #require(user.multiFactor.enrolledFactors.first))
            await expectAuthError(.userTokenExpired) { try await other.getIDToken(forcingRefresh: true) }
            // The instance that unenrolled keeps working with its fresh tokens.
            _ = try await user.getIDToken(forcingRefresh: true)
        }
    }

    @Test func networkFailureAndMalformedResponses() async throws {
        // An emulator that has stopped: its port refuses the connection, and
        // the failing-fast client reports it at once.
        let stopped = try await SDKHarness.with(overSocket: true) { $0 }
        let auth = stopped.auth(transport: AsyncHTTPClientTransport.failingFast)
        await expectAuthError(.networkError) {
            try await auth.signIn(withEmail: "a@example.com", password: "secret-password")
        }
        let h = stopped

        let garbage = RecordingTransport(status: 200, body: #"{"localId": 42}"#)
        let broken = h.auth(transport: garbage)
        do {
            _ = try await broken.createUser(withEmail: "a@example.com", password: "secret-password")
            Issue.record("expected an error")
        } catch let error as AuthErrorCode {
            #expect(error.code == .internalError)
            #expect(error.userInfo[NSUnderlyingErrorKey] is DecodingError)
        }
        await garbage.respond(status: 500, body: "<html>oops</html>")
        await expectAuthError(.internalError) {
            try await broken.signIn(withEmail: "a@example.com", password: "secret-password")
        }
    }
}

@Suite struct TokenTests {
    @Test func tokensAreCachedRefreshedNearExpiryAndCoalesced() async throws {
        try await SDKHarness.with(wrap: { CountingTransport(base: $0) }) { h in
            let counter = try #require(h.transport as? CountingTransport)
            let auth = h.auth()
            let user = try await h.verifiedUser(on: auth)
            let first = try await user.getIDToken()
            #expect(try await user.getIDToken() == first)
            #expect(counter.count(path: "/v1/token") == 0)
            // 100 concurrent forced refreshes share one request.
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<100 { group.addTask { try await user.getIDToken(forcingRefresh: true) } }
                var all: Set<String> = []
                for try await token in group { all.insert(token) }
                return all
            }
            #expect(counter.count(path: "/v1/token") == 1)
            #expect(tokens.count == 1)
            // Near expiry (under five minutes left) the token is refreshed before an MFA call.
            h.clock.advance(by: 56 * 60)
            let session = try await user.multiFactor.session()
            #expect(counter.count(path: "/v1/token") == 2)
            h.clock.advance(by: 3 * 60)
            // The old token would now be expired at the server (userTokenExpired);
            // the session's is not, so the server reaches its next rule: the
            // sign-in is an hour old, too old to change factors.
            await expectAuthError(.requiresRecentLogin) {
                _ = try await TOTPMultiFactorGenerator.generateSecret(with: session)
            }
        }
    }
}

@Suite struct ConcurrencyTests {
    @Test func twoHundredAuthInstancesRunFullFlowsAtOnce() async throws {
        try await withSDK { h in
            let results = await withTaskGroup(of: String?.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        do {
                            // Races are what this looks for, not speed: under the
                            // thread sanitizer 200 flows at once on two cores
                            // outlast the default deadline.
                            let auth = h.auth(
                                name: "concurrent-\(index)-\(UUID().uuidString)", requestTimeout: .seconds(300))
                            let user = try await h.verifiedUser(
                                on: auth, email: "p\(index)-\(UUID().uuidString.prefix(6))@example.com")
                            let secret = try await h.enrollTOTP(user)
                            try auth.signOut()
                            let resolver = try await h.resolver(auth, email: user.email ?? "")
                            let signedIn = try await resolver.resolveSignIn(
                                with: TOTPMultiFactorGenerator.assertionForSignIn(
                                    withEnrollmentID: resolver.hints.first?.uid ?? "",
                                    oneTimePassword: try h.code(secret, offset: 1))
                            ).user
                            try await signedIn.multiFactor.unenroll(with: signedIn.multiFactor.enrolledFactors[0])
                            return nil
                        } catch {
                            return "\(index): \(error)"
                        }
                    }
                }
                var failures: [String] = []
                for await failure in group { if let failure { failures.append(failure) } }
                return failures
            }
            #expect(results.isEmpty, "\(results.prefix(5))")
        }
    }
}

/// Counts requests by path, passing them on to AsyncHTTPClient.
final class CountingTransport: HTTPTransport, @unchecked Sendable {
    private let base: any HTTPTransport
    private let lock = NSLock()
    private var paths: [String] = []

    init(base: any HTTPTransport) { self.base = base }

    func send(_ request: HTTPRequest, body: Data?, options: TransportOptions) async throws -> (HTTPResponse, Data) {
        lock.withLock { paths.append(request.path ?? "") }
        return try await base.send(request, body: body, options: options)
    }

    func count(path: String) -> Int { lock.withLock { paths.filter { $0.contains(path) }.count } }
}

/// `signOut()` is synchronous, as Firebase's is; its removal from the
/// session store is ordered before later saves and its failures surface.
@Suite struct SignOutOrderingTests {
    /// A store whose removals are slow (or fail), to widen the race.
    actor SlowStore: AuthSessionStore {
        var sessions: [String: AuthSession] = [:]
        var failRemovals = false
        func save(_ session: AuthSession, key: String) { sessions[key] = session }
        func load(key: String) -> AuthSession? { sessions[key] }
        func remove(key: String) async throws {
            try await Task.sleep(for: .milliseconds(300))
            if failRemovals { throw CocoaError(.fileWriteNoPermission) }
            sessions[key] = nil
        }
        func setFailRemovals(_ value: Bool) { failRemovals = value }
    }

    @Test func aSignInRightAfterASignOutKeepsItsSession() async throws {
        try await withSDK { h in
            let store = SlowStore()
            let auth = h.auth(store: store)
            let email = "order-\(UUID().uuidString.prefix(6))@example.com"
            _ = try await auth.createUser(withEmail: email, password: "secret-password")
            try auth.signOut()
            let user = try await auth.signIn(withEmail: email, password: "secret-password").user
            try await auth.flushSessionStore()
            let saved = await store.sessions.values.first
            #expect(saved?.uid == user.uid, "the late removal of the sign-out deleted the new session")
            let restored = try await h.auth(name: "other-\(UUID().uuidString)", store: store).restoreFromStore()
            _ = restored
        }
    }

    @Test func aFailingRemovalIsReported() async throws {
        try await withSDK { h in
            let store = SlowStore()
            await store.setFailRemovals(true)
            let auth = h.auth(store: store)
            _ = try await auth.createUser(
                withEmail: "fail-\(UUID().uuidString.prefix(6))@example.com", password: "secret-password")
            try auth.signOut()
            await #expect(throws: CocoaError.self) { try await auth.flushSessionStore() }
            // Reported once: the queue is clean afterwards.
            try await auth.flushSessionStore()
        }
    }
}
