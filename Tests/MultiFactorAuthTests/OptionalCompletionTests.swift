import Foundation
import MultiFactorAuth
import Testing

/// Firebase's completion twins take `((…) -> Void)? = nil`: `completion: nil`
/// and calls without a completion compile and still do the work.
@Suite struct OptionalCompletionTests {
    /// Code as an app writes it outside `async` contexts.
    static func fireAndForget(_ user: User) {
        user.sendEmailVerification()
        user.reload(completion: nil)
        user.getIDToken(completion: nil)
    }

    @Test func callsWithoutACompletionStillRun() async throws {
        try await withSDK { h in
            let auth = h.auth()
            let user = try await auth.createUser(withEmail: "forget@example.com", password: "secret-password").user
            Self.fireAndForget(user)
            // The verification email was "sent": its code shows up.
            var found = false
            for _ in 0..<100 where !found {
                let codes = try await h.helper("/emulator/v1/projects/\(h.project)/oobCodes")["oobCodes"] as? [[String: String]] ?? []
                found = codes.contains { $0["email"] == "forget@example.com" }
                if !found { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(found)
        }
    }
}
