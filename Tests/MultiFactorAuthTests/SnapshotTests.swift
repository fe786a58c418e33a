import Foundation
import IdentityOTP
import IdentityToolkit
import MultiFactorAuth
import Testing

/// In-flight state written down on one instance and finished on another:
/// each test writes the snapshot as JSON (what a store or a sealed cookie
/// keeps) and rebuilds it with a second `Auth`, as a second process would.
@Suite struct SnapshotTests {
    static func roundTrip<Value: Codable>(_ value: Value) throws -> Value {
        try JSONDecoder().decode(Value.self, from: try JSONEncoder().encode(value))
    }

    @Test func aSignInStartedOnOneInstanceFinishesOnAnother() async throws {
        try await withSDK { h in
            let first = h.auth()
            let user = try await h.verifiedUser(on: first)
            let secret = try await h.enrollTOTP(user)
            let email = try #require(user.email)
            try first.signOut()

            let resolver = try await h.resolver(first, email: email)
            let written = try Self.roundTrip(resolver.snapshot)
            #expect(written == resolver.snapshot)
            #expect(written.appName == first.app?.name)
            #expect(written.hints.map(\.uid) == resolver.hints.map(\.uid))

            // Another instance: a new Auth of the same app, nothing shared in memory.
            let second = Auth(app: try #require(first.app), now: { h.clock.now })
            second.useEmulator(withHost: h.host, port: h.port)
            let rebuilt = try MultiFactorResolver(restoring: written, auth: second)
            #expect(rebuilt.auth === second)
            #expect(rebuilt.hints.map(\.factorID) == [TOTPMultiFactorID])
            h.clock.advance(by: 30)
            let result = try await rebuilt.resolveSignIn(
                with: TOTPMultiFactorGenerator.assertionForSignIn(
                    withEnrollmentID: rebuilt.hints[0].uid, oneTimePassword: try h.code(secret)))
            #expect(result.user.uid == user.uid)
            #expect(second.currentUser?.uid == user.uid)
            #expect(first.currentUser == nil)
        }
    }

    @Test func aWrongCodeLeavesTheWrittenSignInUsable() async throws {
        try await withSDK { h in
            let first = h.auth()
            let user = try await h.verifiedUser(on: first)
            let secret = try await h.enrollTOTP(user)
            try first.signOut()
            let written = try Self.roundTrip(try await h.resolver(first, email: try #require(user.email)).snapshot)
            h.clock.advance(by: 30)
            let wrong = try h.code(secret) == "000000" ? "111111" : "000000"
            let second = h.auth()
            // Not the same app name: refused, naming both.
            do {
                _ = try MultiFactorResolver(restoring: written, auth: second)
                Issue.record("a snapshot was restored with another app's Auth")
            } catch let error as AuthErrorCode {
                #expect(error.code == .invalidMultiFactorSession)
                #expect(error.localizedDescription.contains(written.appName))
            }
            let sameApp = Auth(app: try #require(first.app), now: { h.clock.now })
            sameApp.useEmulator(withHost: h.host, port: h.port)
            let once = try MultiFactorResolver(restoring: written, auth: sameApp)
            await expectAuthError(.invalidVerificationCode) {
                try await once.resolveSignIn(
                    with: TOTPMultiFactorGenerator.assertionForSignIn(
                        withEnrollmentID: once.hints[0].uid, oneTimePassword: wrong))
            }
            // A third instance rebuilds the same snapshot and finishes.
            let again = try MultiFactorResolver(restoring: written, auth: sameApp)
            let result = try await again.resolveSignIn(
                with: TOTPMultiFactorGenerator.assertionForSignIn(
                    withEnrollmentID: again.hints[0].uid, oneTimePassword: try h.code(secret)))
            #expect(result.user.uid == user.uid)
        }
    }

    @Test func anEnrollmentStartedOnOneInstanceFinishesOnAnother() async throws {
        try await withSDK { h in
            let first = h.auth()
            let user = try await h.verifiedUser(on: first)
            let secret = try await TOTPMultiFactorGenerator.generateSecret(with: try await user.multiFactor.session())
            let writtenSecret = try Self.roundTrip(secret.snapshot)
            let writtenSession = try Self.roundTrip(try #require(first.currentSession()))
            #expect(writtenSecret.codeLength == secret.codeLength)
            #expect(writtenSecret.enrollmentCompletionDeadline == secret.enrollmentCompletionDeadline)

            let second = Auth(app: try #require(first.app), now: { h.clock.now })
            second.useEmulator(withHost: h.host, port: h.port)
            let restoredUser = second.restore(writtenSession)
            let rebuilt = try TOTPSecret(restoring: writtenSecret)
            #expect(rebuilt.sharedSecretKey() == secret.sharedSecretKey())
            #expect(
                rebuilt.generateQRCodeURL(withAccountName: "a", issuer: "b")
                    == secret.generateQRCodeURL(withAccountName: "a", issuer: "b"))
            try await restoredUser.multiFactor.enroll(
                with: TOTPMultiFactorGenerator.assertionForEnrollment(
                    with: rebuilt, oneTimePassword: try h.code(rebuilt)), displayName: "phone")
            #expect(restoredUser.multiFactor.enrolledFactors.map(\.displayName) == ["phone"])
        }
    }

    /// A snapshot read back from outside is checked as a server's answer is.
    @Test func aDamagedSecretSnapshotIsRefused() throws {
        let secret = try TOTPSecretFixture.make()
        var json = try #require(
            try JSONSerialization.jsonObject(with: try JSONEncoder().encode(secret.snapshot)) as? [String: Any])
        let cases: [(String, Any)] = [
            ("codeLength", 12), ("codeIntervalSeconds", 0), ("hashingAlgorithm", "MD5"),
            ("sharedSecretKey", "not base32!"), ("sharedSecretKey", ""), ("sessionInfo", ""),
        ]
        for (field, value) in cases {
            let original = json[field]
            json[field] = value
            let damaged = try JSONDecoder().decode(
                TOTPSecret.Snapshot.self, from: try JSONSerialization.data(withJSONObject: json))
            #expect(throws: AuthErrorCode.self, "\(field) = \(value)") { _ = try TOTPSecret(restoring: damaged) }
            json[field] = original
        }
        #expect(
            try TOTPSecret(restoring: try Self.roundTrip(secret.snapshot)).sharedSecretKey() == secret.sharedSecretKey()
        )
    }

    /// One shared store, one scope per browser: sessions do not collide.
    @Test func scopedSessionStoresKeepUsersApart() async throws {
        try await withSDK { h in
            let shared = ExpiringStateAuthSessionStore()
            let app = try #require(h.auth().app)
            let alice = Auth(app: app, sessionStore: shared.scoped(to: "browser-a"), now: { h.clock.now })
            let bob = Auth(app: app, sessionStore: shared.scoped(to: "browser-b"), now: { h.clock.now })
            for auth in [alice, bob] { auth.useEmulator(withHost: h.host, port: h.port) }
            let a = try await alice.createUser(
                withEmail: "a-\(UUID().uuidString.prefix(6))@example.com", password: "secret-password"
            ).user
            let b = try await bob.createUser(
                withEmail: "b-\(UUID().uuidString.prefix(6))@example.com", password: "secret-password"
            ).user
            let aliceAgain = Auth(app: app, sessionStore: shared.scoped(to: "browser-a"))
            let bobAgain = Auth(app: app, sessionStore: shared.scoped(to: "browser-b"))
            #expect(try await aliceAgain.restoreFromStore()?.uid == a.uid)
            #expect(try await bobAgain.restoreFromStore()?.uid == b.uid)
            #expect(try await shared.load(key: "browser-a/\(app.name)/")?.uid == a.uid)
        }
    }
}

/// A TOTP secret made the way a server's answer makes one, without a server.
enum TOTPSecretFixture {
    static func make(key: String = "JBSWY3DPEHPK3PXP") throws -> TOTPSecret {
        // The only public way in is a snapshot: encode one by hand.
        let json = """
            {"hashingAlgorithm":"SHA1","codeLength":6,"codeIntervalSeconds":30,"enrollmentCompletionDeadline":0,
             "sharedSecretKey":"\(key)","sessionInfo":"session-info"}
            """
        return try TOTPSecret(restoring: try JSONDecoder().decode(TOTPSecret.Snapshot.self, from: Data(json.utf8)))
    }
}
