// The README's test of a breaker with the emulator's faults, verbatim:
// ReadmeSnippetTests checks the README shows it; the suite runs it.
import IdentityAdmin
import IdentityToolkit
import IdentityToolkitEmulator
import Testing

/// While Google's account lookups fail, revocation checks fail fast: after three
/// failures the breaker opens, and the fourth check does not wait for Google.
@Test func revocationChecksFailFastWhileLookupsAreDown() async throws {
    try await IdentityToolkitEmulator(
        configuration: EmulatorConfiguration(port: 0, projectID: "demo-faults")
    ).serving { running in
        let configuration = ClientConfiguration(emulatorHost: running.hostAndPort)
        let idToken = try #require(
            try await AccountsClient(apiKey: "any-key", configuration: configuration)
                .signUp(SignUpRequest(returnSecureToken: true)).idToken)
        let admin = IdentityAdmin.emulator(projectID: "demo-faults", hostAndPort: running.hostAndPort)

        // Google's account lookups answer 503, three times.
        let helpers = EmulatorHelpersClient(accessToken: { "owner" }, configuration: configuration)
        _ = try await helpers.setFaults(
            EmulatorFaults(faults: [EmulatorFault(operation: "lookupAccounts", kind: .unavailable, remaining: 3)]))
        for _ in 1...4 {
            await #expect(throws: TokenVerificationError.self) {
                try await admin.verifyIDToken(idToken, checkRevoked: true)
            }
        }
        // The fourth was refused without a lookup: the fault, spent after three, is gone.
        #expect(try await helpers.listFaults().faults == [])
    }
}
