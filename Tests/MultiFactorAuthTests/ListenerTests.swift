import Dispatch
import Foundation
import IdentityToolkit
import MultiFactorAuth
import Testing

/// State and ID token listeners, as Firebase's: called at registration, then
/// once per change, on the completion queue.
@Suite struct ListenerTests {
    /// What a listener heard, in order.
    final class Heard: @unchecked Sendable {
        private let lock = NSLock()
        private var events: [String?] = []
        func append(_ user: User?) { lock.withLock { events.append(user?.uid) } }
        var all: [String?] { lock.withLock { events } }
    }

    /// Waits until `heard` has `count` events (listeners run on a queue).
    func wait(for count: Int, in heard: Heard) async throws {
        for _ in 0..<200 where heard.all.count < count { try await Task.sleep(for: .milliseconds(10)) }
    }

    @Test func listenersHearSignInRefreshAndSignOut() async throws {
        try await withSDK { h in
            let auth = h.auth()
            let state = Heard()
            let tokens = Heard()
            let queue = DispatchQueue(label: "listener-test")
            let (stateHandle, tokenHandle) = await CompletionDelivery.withQueue(queue) {
                (
                    auth.addStateDidChangeListener { _, user in
                        dispatchPrecondition(condition: .onQueue(queue))
                        state.append(user)
                    }, auth.addIDTokenDidChangeListener { _, user in tokens.append(user) }
                )
            }
            // Each listener is called at registration, on the queue: wait for both.
            try await wait(for: 1, in: state)
            try await wait(for: 1, in: tokens)
            #expect(state.all == [nil] && tokens.all == [nil])

            let user = try await auth.createUser(withEmail: "listen@example.com", password: "secret-password").user
            try await wait(for: 2, in: state)
            #expect(state.all == [nil, user.uid])
            _ = try await user.getIDToken(forcingRefresh: true)
            try await wait(for: 3, in: tokens)
            #expect(tokens.all == [nil, user.uid, user.uid])
            #expect(state.all.count == 2)

            // The server ends the session: a refresh is refused, the user is signed out, the listeners hear it.
            let admin = AdminClient(
                accessToken: { "owner" },
                configuration: ClientConfiguration(transport: h.transport, emulatorHost: h.hostAndPort))
            _ = try await admin.updateAccount(
                targetProjectId: h.project, body: SetAccountInfoRequest(localId: user.uid, disableUser: true))
            await expectAuthError(.userDisabled) { _ = try await user.getIDToken(forcingRefresh: true) }
            try await wait(for: 3, in: state)
            #expect(state.all == [nil, user.uid, nil])
            try await wait(for: 4, in: tokens)
            #expect(tokens.all.last == .some(nil))

            // Removed listeners hear nothing more.
            auth.removeStateDidChangeListener(stateHandle)
            auth.removeIDTokenDidChangeListener(tokenHandle)
            _ = try await auth.createUser(withEmail: "after@example.com", password: "secret-password")
            try await Task.sleep(for: .milliseconds(100))
            #expect(state.all.count == 3 && tokens.all.count == 4)
        }
    }
}
