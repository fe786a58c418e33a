import Foundation
import HTTPTypes
import IdentityToolkit
import MultiFactorAuth
import Testing

/// `User.reauthenticate(with:)` with `EmailAuthProvider.credential(withEmail:password:)`:
/// the docs' step before changing factors (a recent sign-in is required).
@Suite struct ReauthenticationTests {
    @Test func reauthenticationRenewsTheSignInAndAsksForTheSecondFactor() async throws {
        try await withSDK { h in
            let auth = h.auth()
            let user = try await h.verifiedUser(on: auth)
            let email = try #require(user.email)
            let first = try await user.getIDTokenResult()
            h.clock.advance(by: 10 * 60) // too old to change factors now
            await expectAuthError(.requiresRecentLogin) {
                _ = try await TOTPMultiFactorGenerator.generateSecret(with: try await user.multiFactor.session())
            }

            let result = try await user.reauthenticate(
                with: EmailAuthProvider.credential(withEmail: email, password: "secret-password"))
            #expect(result.user === user && auth.currentUser?.uid == user.uid)
            #expect(try await user.getIDTokenResult().authDate > first.authDate)
            let secret = try await h.enrollTOTP(user)

            // A wrong password (INVALID_LOGIN_CREDENTIALS, as production answers
            // with email enumeration protection: invalidCredential), another user's credential.
            await expectAuthError(.invalidCredential) {
                try await user.reauthenticate(
                    with: EmailAuthProvider.credential(withEmail: email, password: "nope-nope"))
            }
            let other = h.auth()
            _ = try await other.createUser(withEmail: "other-reauth@example.com", password: "secret-password")
            await expectAuthError(.userMismatch) {
                try await user.reauthenticate(
                    with: EmailAuthProvider.credential(
                        withEmail: "other-reauth@example.com", password: "secret-password"))
            }

            // With a second factor: secondFactorRequired, then the resolver completes it.
            h.clock.advance(by: 30)
            do {
                try await user.reauthenticate(
                    with: EmailAuthProvider.credential(withEmail: email, password: "secret-password"))
                Issue.record("expected secondFactorRequired")
            } catch let error as AuthErrorCode where error.code == .secondFactorRequired {
                let resolver = try #require(
                    error.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as? MultiFactorResolver)
                let resolved = try await resolver.resolveSignIn(
                    with: TOTPMultiFactorGenerator.assertionForSignIn(
                        withEnrollmentID: try #require(resolver.hints.first?.uid), oneTimePassword: try h.code(secret)))
                #expect(resolved.user.uid == user.uid)
                #expect(try await resolved.user.getIDTokenResult().signInSecondFactor == "totp")
            }
            #expect(
                EmailAuthProvider.credential(withEmail: email, password: "secret-password").description
                    == "AuthCredential(provider: password)")
        }
    }

    /// Re-authenticating with another user's credentials, when that user
    /// has a second factor: the second step saved the other user as the
    /// current one before any check of the uid. Now it is refused
    /// (`userMismatch`, as Firebase) before anything is saved, whether the
    /// first step names the user (`localId`) or not.
    @Test(arguments: [false, true])
    func anotherUsersSecondFactorNeverReplacesTheCurrentUser(withoutLocalID: Bool) async throws {
        try await withSDK { h in
            let transport = withoutLocalID ? LocalIDStrippingTransport(base: h.transport) : h.transport
            let store = SaveRecordingSessionStore()
            let auth = h.auth(transport: transport, store: store)
            let current = try await h.verifiedUser(on: auth)
            let otherAuth = h.auth()
            let other = try await h.verifiedUser(
                on: otherAuth, email: "mfa-other-\(UUID().uuidString.prefix(6))@example.com")
            let secret = try await h.enrollTOTP(other)
            h.clock.advance(by: 30) // the enrolment's code is used
            let credential = EmailAuthProvider.credential(
                withEmail: try #require(other.email), password: "secret-password")
            do {
                try await current.reauthenticate(with: credential)
                Issue.record("another user's credential was accepted")
            } catch let error as AuthErrorCode where error.code == .secondFactorRequired {
                #expect(withoutLocalID, "with localId the first step refuses at once")
                let resolver = try #require(
                    error.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as? MultiFactorResolver)
                await expectAuthError(.userMismatch) {
                    try await resolver.resolveSignIn(
                        with: TOTPMultiFactorGenerator.assertionForSignIn(
                            withEnrollmentID: try #require(resolver.hints.first?.uid),
                            oneTimePassword: try h.code(secret)))
                }
            } catch let error as AuthErrorCode {
                #expect(error.code == .userMismatch && !withoutLocalID, "\(error)")
            }
            #expect(auth.currentUser?.uid == current.uid, "the current user stays")
            #expect(
                store.savedUIDs.allSatisfy { $0 == current.uid } && !store.savedUIDs.isEmpty,
                "no other user was saved: \(store.savedUIDs)")
        }
    }
}

/// A transport that removes `localId` from password sign-in answers, as an
/// answer that names no user would be.
struct LocalIDStrippingTransport: HTTPTransport {
    let base: any HTTPTransport

    func send(_ request: HTTPRequest, body: Data?, options: TransportOptions) async throws -> (HTTPResponse, Data) {
        let (response, data) = try await base.send(request, body: body, options: options)
        guard request.path?.contains("accounts:signInWithPassword") == true,
            var json = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return (response, data) }
        json["localId"] = nil
        return (response, try JSONSerialization.data(withJSONObject: json))
    }
}

/// Keeps sessions in memory and remembers whose were saved.
final class SaveRecordingSessionStore: AuthSessionStore, @unchecked Sendable {
    private let lock = NSLock()
    private var sessions: [String: AuthSession] = [:]
    private var saved: [String] = []

    var savedUIDs: [String] { lock.withLock { saved } }

    func save(_ session: AuthSession, key: String) async throws {
        lock.withLock {
            sessions[key] = session
            saved.append(session.uid)
        }
    }

    func load(key: String) async throws -> AuthSession? { lock.withLock { sessions[key] } }

    func remove(key: String) async throws { _ = lock.withLock { sessions.removeValue(forKey: key) } }
}
