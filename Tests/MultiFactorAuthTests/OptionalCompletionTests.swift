import Foundation
import MultiFactorAuth
import Testing

/// The completion twins take `((…) -> Void)?` as Firebase's do: a caller
/// passing `completion: nil` still gets the work done. (They have no `nil`
/// default: a call without a completion is the async method; see the
/// top-level test in `TopLevelAwaitTests`.)
@Suite struct OptionalCompletionTests {
    /// Code as an app writes it outside `async` contexts.
    static func fireAndForget(_ user: User) {
        user.sendEmailVerification(completion: nil)
        user.reload(completion: nil)
        user.getIDToken(completion: nil)
    }

    @Test func callsWithANilCompletionStillRun() async throws {
        try await withSDK { h in
            let auth = h.auth()
            let user = try await auth.createUser(withEmail: "forget@example.com", password: "secret-password").user
            Self.fireAndForget(user)
            // The verification email was "sent": its code shows up.
            var found = false
            for _ in 0..<100 where !found {
                let codes =
                    try await h.helper("/emulator/v1/projects/\(h.project)/oobCodes")["oobCodes"] as? [[String: String]]
                    ?? []
                found = codes.contains { $0["email"] == "forget@example.com" }
                if !found { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(found)
        }
    }
}
