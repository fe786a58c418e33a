import Foundation
import HTTPTypes
import IdentityToolkit
import IdentityToolkitTestSupport
import Testing

@testable import IdentityToolkitEmulator

/// Input the emulator does not control, read totally: a provider's
/// `postBody`, times far outside its clock's years, a blocking function's
/// answer, and where a trigger may point.
@Suite struct UntrustedInputTests {
    static let ownerJSON: HTTPFields = [.authorization: "Bearer owner", .contentType: "application/json"]

    /// `postBody` was assigned to `URLComponents.percentEncodedQuery`,
    /// which traps on any character a form must escape: JSON in `id_token`
    /// (as Google's own suites and clients send it) killed the process.
    @Test func aProvidersPostBodyIsReadAsAFormWhateverItHolds() async throws {
        try await withEmulator { h in
            func signIn(_ postBody: String) async throws -> SignInWithIdpResponse {
                try await h.accounts.signInWithIdp(
                    SignInWithIdpRequest(requestUri: "http://localhost", postBody: postBody, returnSecureToken: true))
            }
            let json = try await signIn(
                #"providerId=google.com&id_token={"sub":"raw-1","email":"raw@example.com","email_verified":true}"#)
            #expect(json.email == "raw@example.com" && json.idToken != nil)
            // `+` is a space, escapes are decoded, a stray `%` stays as it is.
            let spaced = try await signIn(
                #"providerId=google.com&id_token={"sub":"raw-2","name":"Ada+Lovelace%21","email":"a%zz@example.com"}"#)
            #expect(spaced.displayName == "Ada Lovelace!")
            for hostile in ["%", "%zz", "=&=&&", "id_token=%E0%A4%A"] {
                await expectServerError("INVALID_CREDENTIAL_OR_PROVIDER_ID") { try await signIn(hostile) }
            }
            for hostile in [
                "providerId=google.com&id_token=\u{0}", "providerId=\u{202E}&id_token=%7B%22sub",
                "providerId=x&id_token=" + String(repeating: "[", count: 5000),
            ] {
                await expectServerError("INVALID_IDP_RESPONSE") { try await signIn(hostile) }
            }
            #expect(try await h.raw(.get, "/").status == 200, "still serving")
        }
    }

    /// The one form reader, as the WHATWG URL standard (and so Node's
    /// `URLSearchParams`) reads `application/x-www-form-urlencoded`.
    @Test func formsAreReadAsBrowsersReadThem() {
        #expect(
            APIServerRequest.formFields("a=1&b=x+y&c=%41%zz&d&=e&a=2") == [
                "a": "1", "b": "x y", "c": "A%zz", "d": "", "": "e",
            ])
        #expect(APIServerRequest.formFields(#"id_token={"sub":"x"}&q=%"#) == ["id_token": #"{"sub":"x"}"#, "q": "%"])
        #expect(APIServerRequest.formFields(Data([0x61, 0x3d, 0xff, 0x25, 0x43, 0x30])) == ["a": "\u{FFFD}\u{FFFD}"])
        #expect(APIServerRequest.formFields("") == [:])
    }

    /// A time in milliseconds whose conversion back to `Int64` traps
    /// (`Int64(2⁶³ as Double)`): an admin's update and an import refuse it
    /// instead of storing it for the next lookup to crash on.
    @Test func timesOutsideTheClocksYearsAreRefused() async throws {
        try await withEmulator { h in
            let user = try await h.accounts.signUp(
                SignUpRequest(email: "times@example.com", password: "secret-pw", returnSecureToken: true))
            let localId = user.localId
            for field in ["createdAt", "lastLoginAt"] {
                let update = try await h.raw(
                    .post, "/identitytoolkit.googleapis.com/v1/projects/\(Harness.project)/accounts:update",
                    body: Data(#"{"localId":"\#(localId)","\#(field)":"9223372036854775807"}"#.utf8),
                    headers: Self.ownerJSON)
                #expect(update.status == 400, "\(field): \(update.errorMessage ?? "")")
            }
            let looked = try await h.accounts.lookup(GetAccountInfoRequest(idToken: user.idToken))
            #expect(looked.users?.first?.localId == localId, "the account still reads")
            let upload = try await h.raw(
                .post, "/identitytoolkit.googleapis.com/v1/projects/\(Harness.project)/accounts:batchCreate",
                body: Data(
                    #"{"users":[{"localId":"far","createdAt":"9223372036854775807"},{"localId":"near","lastLoginAt":"-9223372036854775808"}]}"#
                        .utf8),
                headers: Self.ownerJSON)
            #expect(upload.status == 200)
            #expect((upload.json["error"] as? [[String: Any]])?.count == 2, "each user refused: \(upload.json)")
        }
    }

    /// A function's answer is input too: a name or photo URL past the
    /// bounds `accounts:update` applies failed nothing, was stored, and
    /// made the next ID token larger than any verifier accepts.
    @Test func aFunctionsProfileUpdateIsBoundedAsAnUpdateIs() async throws {
        let longName = String(repeating: "n", count: 60_000)
        let badPhoto = "javascript:" + String(repeating: "p", count: 3_000) + "\u{7}"
        for (name, photo) in [(longName, "https://example.com/a.png"), ("Ada", badPhoto)] {
            let answer = try JSONSerialization.data(withJSONObject: [
                "userRecord": ["updateMask": "displayName,photoURL", "displayName": name, "photoURL": photo]
            ])
            let function = try await HostileHTTPServer(.json(200, String(decoding: answer, as: UTF8.self)))
            try await withEmulator { h in
                _ = try await h.accounts.signUp(SignUpRequest(email: "fn@example.com", password: "secret-pw"))
                _ = try await h.admin.updateProjectConfig(
                    project: Harness.project, updateMask: "blockingFunctions",
                    body: ProjectConfig(
                        blockingFunctions: BlockingFunctionsConfig(triggers: [
                            "beforeSignIn": BlockingFunctionTrigger(functionUri: "http://\(function.hostAndPort)/fn")
                        ])))
                await expectServerError("BLOCKING_FUNCTION_ERROR_RESPONSE") {
                    try await h.accounts.signInWithPassword(
                        SignInWithPasswordRequest(
                            email: "fn@example.com", password: "secret-pw", returnSecureToken: true))
                }
                #expect(function.requests.count == 1)
                let stored = try await h.emulator.services.run { state, _ in
                    state.accounts(in: Realm(project: Harness.project, tenant: nil)).user(email: "fn@example.com")
                }
                #expect(stored?.displayName == nil && stored?.photoUrl == nil, "nothing of the answer was stored")
            }
            try await function.shutdown()
        }
    }

    /// A trigger at a link-local address or a cloud metadata service is
    /// refused: the emulator would fetch it from its own host.
    @Test func triggersAtLinkLocalAndMetadataAddressesAreRefused() async throws {
        for host in [
            "169.254.169.254", "2852039166", "0xa9.0xfe.0xa9.0xfe", "169.254.1", "[fe80::1]", "[fd00:ec2::254]",
            "[::ffff:169.254.169.254]",
            "[64:ff9b::a9fe:a9fe]", "metadata.google.internal", "METADATA.google.internal.", "metadata",
            "100.100.100.200",
        ] {
            #expect(TriggerAddressRules.isLinkLocalOrMetadata(host: host), "\(host)")
        }
        for host in [
            "127.0.0.1", "example.com", "[::1]", "10.0.0.1", "169.255.0.1", "metadata.example.com", "[fe00::1]", "",
        ] {
            #expect(!TriggerAddressRules.isLinkLocalOrMetadata(host: host), "\(host)")
        }
        try await withEmulator { h in
            await expectServerError("INVALID_BLOCKING_FUNCTION") {
                try await h.admin.updateProjectConfig(
                    project: Harness.project, updateMask: "blockingFunctions",
                    body: ProjectConfig(
                        blockingFunctions: BlockingFunctionsConfig(triggers: [
                            "beforeSignIn": BlockingFunctionTrigger(
                                functionUri: "http://169.254.169.254/computeMetadata/v1/")
                        ])))
            }
            // A config that arrived another way (an import) is checked before each call.
            _ = try await h.accounts.signUp(SignUpRequest(email: "meta@example.com", password: "secret-pw"))
            try await h.emulator.services.store.withState { state in
                state.projects[Harness.project, default: ProjectState()].blockingFunctions.triggers =
                    ["beforeSignIn": BlockingFunctionTrigger(functionUri: "http://[fd00:ec2::254]/latest/meta-data/")]
            }
            await expectServerError("BLOCKING_FUNCTION_ERROR_RESPONSE") {
                try await h.accounts.signInWithPassword(
                    SignInWithPasswordRequest(email: "meta@example.com", password: "secret-pw", returnSecureToken: true)
                )
            }
        }
        try await withEmulator(configure: { $0.allowLinkLocalTriggers = true }) { h in
            _ = try await h.admin.updateProjectConfig(
                project: Harness.project, updateMask: "blockingFunctions",
                body: ProjectConfig(
                    blockingFunctions: BlockingFunctionsConfig(triggers: [
                        "beforeSignIn": BlockingFunctionTrigger(functionUri: "http://169.254.169.254/fn")
                    ])))
        }
    }
}
