import AsyncHTTPClient
import Foundation
import HTTPTypes
import IdentityToolkit
import IdentityToolkitAsyncHTTPClient
import IdentityToolkitEmulator
import NIOCore
import Testing

/// Faults on demand: what an operation answers instead of its answer, set
/// by the helper route or at start, listed on the page, cleared by a reset.
@Suite struct EmulatorFaultTests {
    static let json: HTTPFields = [.contentType: "application/json"]

    static func helpers(_ h: Harness) -> EmulatorHelpersClient {
        EmulatorHelpersClient(
            accessToken: { "owner" },
            configuration: ClientConfiguration(transport: h.transport, emulatorHost: h.hostAndPort))
    }

    @Test func quotaAndUnavailableAnswerInTheOperationsPlaceUntilCleared() async throws {
        try await withEmulator { h in
            let helpers = Self.helpers(h)
            _ = try await helpers.setFaults(
                EmulatorFaults(faults: [
                    EmulatorFault(operation: "signUp", kind: .quotaExceeded),
                    EmulatorFault(operation: "*", kind: .unavailable, remaining: 2),
                ]))
            await expectServerError("QUOTA_EXCEEDED", status: 429) {
                try await h.accounts.signUp(SignUpRequest(returnSecureToken: true))
            }
            // Every other operation of the APIs: `*`, twice, then it lapses.
            await expectServerError("UNAVAILABLE", status: 503) {
                try await h.accounts.lookup(GetAccountInfoRequest(idToken: "x"))
            }
            await expectServerError("UNAVAILABLE", status: 503) {
                try await h.accounts.lookup(GetAccountInfoRequest(idToken: "x"))
            }
            await expectServerError("INVALID_ID_TOKEN") {
                try await h.accounts.lookup(GetAccountInfoRequest(idToken: "x"))
            }
            // The helpers are never faulted, so the test can always clear.
            #expect(try await helpers.listFaults().faults?.map(\.operation) == ["signUp"])
            _ = try await helpers.clearFaults()
            #expect(try await h.accounts.signUp(SignUpRequest(returnSecureToken: true)).idToken != nil)
            #expect(try await helpers.listFaults().faults == [])
        }
    }

    @Test func latencyDelaysAndMalformedCacheControlChangesTheHeader() async throws {
        try await withEmulator { h in
            _ = try await Self.helpers(h).setFaults(
                EmulatorFaults(faults: [
                    EmulatorFault(operation: "signUp", kind: .latency, delayMillis: 300),
                    EmulatorFault(operation: "getIDTokenSigningKeys", kind: .malformedCacheControl),
                ]))
            let start = ContinuousClock.now
            #expect(try await h.accounts.signUp(SignUpRequest(returnSecureToken: true)).idToken != nil)
            #expect(ContinuousClock.now - start >= .milliseconds(300))
            let keys = try await h.raw(
                .get, "/www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com")
            #expect(keys.status == 200 && keys.headers[.cacheControl] == "max-age=soon")
        }
    }

    /// A dropped connection and a hang, over a socket as a server meets them.
    @Test func aDroppedConnectionAndAHangAreWhatAClientMeets() async throws {
        try await withEmulator(
            overSocket: true,
            configure: {
                $0.faults = [
                    EmulatorFault(operation: "signUp", kind: .dropConnection),
                    EmulatorFault(operation: "signInWithPassword", kind: .hang, delayMillis: 1500),
                ]
            }
        ) { h in
            await #expect(throws: IdentityToolkitError.self) {
                try await h.accounts.signUp(SignUpRequest(returnSecureToken: true))
            }
            // The client's deadline ends a hang; with a longer one, the hang ends in a 503.
            let quick = AccountsClient(
                apiKey: "k",
                configuration: ClientConfiguration(
                    transport: h.transport, emulatorHost: h.hostAndPort,
                    requestTimeout: .milliseconds(300)))
            await #expect(throws: IdentityToolkitError.self) {
                try await quick.signInWithPassword(
                    SignInWithPasswordRequest(email: "a@example.com", password: "secret-pw"))
            }
            await expectServerError("UNAVAILABLE", status: 503) {
                try await h.accounts.signInWithPassword(
                    SignInWithPasswordRequest(email: "a@example.com", password: "secret-pw"))
            }
        }
    }

    @Test(arguments: [
        (#"{"faults":[{"operation":"noSuchOperation","kind":"unavailable"}]}"#, "no operation 'noSuchOperation'"),
        (#"{"faults":[{"operation":"listFaults","kind":"unavailable"}]}"#, "no operation 'listFaults'"),
        (#"{"faults":[{"operation":"signUp","kind":"explode"}]}"#, "invalid value for faults[0].kind"),
        (#"{"faults":[{"operation":"signUp","kind":"latency"}]}"#, "latency needs delayMillis"),
        (#"{"faults":[{"operation":"signUp","kind":"latency","delayMillis":60001}]}"#, "latency needs delayMillis"),
        (#"{"faults":[{"operation":"signUp","kind":"unavailable","delayMillis":5}]}"#, "takes no delayMillis"),
        (#"{"faults":[{"operation":"signUp","kind":"hang","delayMillis":0}]}"#, "hang's delayMillis"),
        (#"{"faults":[{"operation":"signUp","kind":"unavailable","remaining":0}]}"#, "remaining is from"),
        (
            #"{"faults":[{"operation":"signUp","kind":"unavailable"},{"operation":"signUp","kind":"latency","delayMillis":1}]}"#,
            "has two faults"
        ),
    ])
    func badFaultsAreRefusedWhole(body: String, message: String) async throws {
        try await withEmulator { h in
            let answer = try await h.raw(
                .put, "/emulator/v1/faults", body: Data(body.utf8),
                headers: [.contentType: "application/json", .authorization: "Bearer owner"])
            #expect(
                answer.status == 400 && answer.errorMessage?.contains(message) == true, "\(answer.errorMessage ?? "")")
            #expect(try await Self.helpers(h).listFaults().faults == [])
        }
    }

    /// Faults are owner-only: neither a web page nor a stray harness
    /// request (no `Origin`, which other helpers accept) sets or clears them.
    @Test func onlyTheOwnerSetsOrClearsFaults() async throws {
        try await withEmulator { h in
            let body = Data(#"{"faults":[{"operation":"*","kind":"unavailable"}]}"#.utf8)
            for headers: HTTPFields in [
                [.contentType: "application/json", .origin: "http://localhost:3000"],
                [.contentType: "application/json"],
            ] {
                #expect(try await h.raw(.put, "/emulator/v1/faults", body: body, headers: headers).status == 401)
            }
            #expect(try await Self.helpers(h).listFaults().faults == [])
            _ = try await Self.helpers(h).setFaults(
                EmulatorFaults(faults: [EmulatorFault(operation: "signUp", kind: .unavailable)]))
            #expect(try await h.raw(.delete, "/emulator/v1/faults").status == 401)
            #expect(try await Self.helpers(h).listFaults().faults?.count == 1)
        }
    }

    @Test func thePageListsTheFaults() async throws {
        try await withEmulator(configure: {
            $0.faults = [EmulatorFault(operation: "lookup", kind: .latency, delayMillis: 250, remaining: 3)]
        }) { h in
            let page = String(decoding: try await h.raw(.get, "/emulator/ui").body, as: UTF8.self)
            #expect(
                page.contains("<h2>Faults</h2>")
                    && page.contains("<code>lookup</code></td><td>latency</td><td>250 ms</td><td>3</td>"))
        }
    }

    @Test func aFaultAtStartMustNameAnOperation() {
        var settings = EmulatorConfiguration(port: 0, projectID: "demo-faults")
        settings.faults = [EmulatorFault(operation: "signup", kind: .unavailable)]
        #expect(throws: EmulatorConfigurationError.self) { try IdentityToolkitEmulator(configuration: settings) }
    }
}
