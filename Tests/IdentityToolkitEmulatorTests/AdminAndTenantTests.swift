import Foundation
import HTTPTypes
import IdentityToolkit
import IdentityToolkitAsyncHTTPClient
import Testing

@Suite struct AdminConfigTests {
    @Test func projectConfigWithUpdateMasks() async throws {
        try await withEmulator { h in
            let initial = try await h.admin.getProjectConfig(project: Harness.project)
            #expect(initial.name == "projects/\(Harness.project)/config")
            #expect(initial.mfa == nil)
            try await h.enableTOTP(window: 3)
            var config = try await h.admin.getProjectConfig(project: Harness.project)
            #expect(config.mfa?.providerConfigs?.first?.totpProviderConfig?.adjacentIntervals == 3)
            // A masked update touches only the named field.
            _ = try await h.admin.updateProjectConfig(
                project: Harness.project, updateMask: "mfa.state",
                body: ProjectConfig(mfa: MultiFactorAuthConfig(state: .enabled)))
            config = try await h.admin.getProjectConfig(project: Harness.project)
            #expect(config.mfa?.state == .enabled)
            #expect(config.mfa?.providerConfigs?.count == 1)
            // Read back with a raw GET, as the wire has it (int32 as a number).
            let raw = try await h.raw(
                .get, "/identitytoolkit.googleapis.com/v2/projects/\(Harness.project)/config",
                headers: [.authorization: "Bearer owner"])
            let mfa = try #require(raw.json["mfa"] as? [String: Any])
            #expect(mfa["state"] as? String == "ENABLED")
            let providers = try #require(mfa["providerConfigs"] as? [[String: Any]])
            #expect((providers.first?["totpProviderConfig"] as? [String: Any])?["adjacentIntervals"] as? Int == 3)
        }
    }

    @Test func invalidConfigsAreRefused() async throws {
        try await withEmulator { h in
            let bad = ProjectConfig(
                mfa: MultiFactorAuthConfig(providerConfigs: [
                    MfaProviderConfig(state: .enabled, totpProviderConfig: .init(adjacentIntervals: 11))
                ]))
            await expectServerError("INVALID_ARGUMENT") {
                try await h.admin.updateProjectConfig(project: Harness.project, updateMask: "mfa", body: bad)
            }
            let missing = ProjectConfig(
                mfa: MultiFactorAuthConfig(providerConfigs: [MfaProviderConfig(state: .enabled)]))
            await expectServerError("INVALID_ARGUMENT") {
                try await h.admin.updateProjectConfig(project: Harness.project, updateMask: "mfa", body: missing)
            }
            await expectServerError("INVALID_ARGUMENT") {
                try await h.admin.updateProjectConfig(
                    project: Harness.project, updateMask: "displayName", body: ProjectConfig())
            }
            let unauthorized = AdminClient(
                accessToken: { "not-owner" },
                configuration: ClientConfiguration(transport: h.transport, emulatorHost: h.hostAndPort))
            await expectServerError("UNAUTHENTICATED", status: 401) {
                try await unauthorized.getProjectConfig(project: Harness.project)
            }
            // The adjacentIntervals string form of proto3 JSON is accepted.
            let body = Data(
                #"{"mfa":{"providerConfigs":[{"state":"ENABLED","totpProviderConfig":{"adjacentIntervals":"4"}}]}}"#
                    .utf8)
            let response = try await h.raw(
                .patch, "/identitytoolkit.googleapis.com/v2/projects/\(Harness.project)/config?updateMask=mfa",
                body: body,
                headers: [.authorization: "Bearer owner", .contentType: "application/json"])
            #expect(response.status == 200)
            let config = try await h.admin.getProjectConfig(project: Harness.project)
            #expect(config.mfa?.providerConfigs?.first?.totpProviderConfig?.adjacentIntervals == 4)
            // Values the spec's enums do not list are refused, naming the field.
            let unknown = Data(#"{"mfaConfig":{"providerConfigs":[{"state":"AAA"}]}}"#.utf8)
            let refused = try await h.raw(
                .post, "/identitytoolkit.googleapis.com/v2/projects/\(Harness.project)/tenants", body: unknown,
                headers: [.authorization: "Bearer owner", .contentType: "application/json"])
            #expect(refused.status == 400)
            #expect(refused.errorMessage == "INVALID_ARGUMENT : invalid value for mfaConfig.providerConfigs[0].state")
        }
    }
}

/// The emulator's routes on Hummingbird's trie: Google's `{name}:verb`
/// custom methods, percent-encoded values, and what matches nothing.
@Suite struct RoutingTests {
    @Test func customMethodsPercentEncodingAndColons() async throws {
        try await withEmulator { h in
            let tenant = try await h.admin.createTenant(project: Harness.project, body: Tenant(displayName: "Team R"))
            let tenantID = try #require(tenant.name?.split(separator: "/").last.map(String.init))
            let base = "/identitytoolkit.googleapis.com/v2/projects/\(Harness.project)/tenants"
            // A value arrives percent-encoded and reaches the rule decoded.
            let encoded = tenantID.replacingOccurrences(of: "-", with: "%2D")
            #expect(encoded != tenantID)
            let found = try await h.raw(.get, "\(base)/\(encoded)", headers: Harness.owner)
            #expect(found.status == 200)
            #expect(found.json["displayName"] as? String == "Team R")
            // `{tenant}` never takes a value with a colon (a verb no route has).
            let verb = try await h.raw(.get, "\(base)/\(tenantID):nothing", headers: Harness.owner)
            #expect(verb.status == 404)
            #expect(verb.errorMessage?.hasPrefix("NOT_FOUND") == true)
            // `{targetProjectId}:createSessionCookie` beside `{targetProjectId}/accounts`: the verb's route answers
            // (its own error: no ID token), not a 404.
            let cookie = try await h.raw(
                .post, "/identitytoolkit.googleapis.com/v1/projects/\(Harness.project):createSessionCookie",
                body: Data("{}".utf8), headers: [.authorization: "Bearer owner", .contentType: "application/json"])
            #expect(cookie.status == 400)
            #expect(cookie.errorMessage == "MISSING_ID_TOKEN")
            // Another standard method on a known path is 405; an unknown path, in Google's error shape, 404.
            #expect(try await h.raw(.delete, "/identitytoolkit.googleapis.com/v1/accounts:signUp").status == 405)
            let unknown = try await h.raw(.get, "/identitytoolkit.googleapis.com/v9/nothing/here")
            #expect(unknown.status == 404)
            #expect(
                unknown.errorMessage
                    == "NOT_FOUND : no such operation: GET /identitytoolkit.googleapis.com/v9/nothing/here")
        }
    }

    /// The OAuth2 token endpoint declares RFC 6749's error body; the
    /// emulator renders its errors in it, the other routes in Google's.
    @Test func errorsTakeTheShapeTheRouteDeclares() async throws {
        try await withEmulator { h in
            let token = try await h.raw(
                .post, "/oauth2.googleapis.com/token", body: Data("grant_type=nothing".utf8),
                headers: [.contentType: "application/x-www-form-urlencoded"])
            #expect(token.status == 400)
            #expect(token.json["error"] is String)
            #expect(token.json["error"] as? [String: Any] == nil)
            let api = try await h.raw(
                .post, "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k", body: Data("[]".utf8))
            #expect(api.status == 400)
            #expect((api.json["error"] as? [String: Any])?["status"] as? String == "INVALID_ARGUMENT")
        }
    }
}

@Suite struct TenantTests {
    @Test func tenantsHaveTheirOwnUsersConfigsAndCodes() async throws {
        try await withEmulator { h in
            let tenant = try await h.admin.createTenant(
                project: Harness.project, body: Tenant(displayName: "Team A", allowPasswordSignup: true))
            let name = try #require(tenant.name)
            #expect(name.hasPrefix("projects/\(Harness.project)/tenants/team"))
            let tenantID = String(name.split(separator: "/").last ?? "")
            #expect(try await h.admin.getTenant(project: Harness.project, tenant: tenantID).displayName == "Team A")
            await expectServerError("TENANT_NOT_FOUND", status: 404) {
                try await h.admin.getTenant(project: Harness.project, tenant: "nope")
            }
            await expectServerError("TENANT_NOT_FOUND") {
                try await h.accounts.signUp(
                    SignUpRequest(email: "a@example.com", password: "secret1", tenantId: "nope"))
            }

            // The same email in the project and in the tenant are different users.
            let projectUser = try await h.verifiedUser()
            let tenantUser = try await h.verifiedUser(tenant: tenantID)
            #expect(projectUser.uid != tenantUser.uid)
            #expect(try await h.oobCodes().isEmpty)
            #expect(try await h.oobCodes(tenant: tenantID).isEmpty)
            let claims = try jwtClaims(tenantUser.idToken)
            #expect((claims["firebase"] as? [String: Any])?["tenant"] as? String == tenantID)

            // TOTP on in the tenant only.
            try await h.enableTOTP(window: 1, tenant: tenantID)
            await expectServerError("OPERATION_NOT_ALLOWED") {
                try await h.accounts.startMfaEnrollment(
                    StartMfaEnrollmentRequest(idToken: projectUser.idToken, totpEnrollmentInfo: .init()))
            }
            let enrolled = try await h.enrollTOTP(tenantUser, tenant: tenantID)
            await expectServerError("TENANT_ID_MISMATCH") {
                try await h.accounts.lookup(GetAccountInfoRequest(idToken: enrolled.session.idToken, tenantId: "other"))
            }
            // Signing in without the tenant finds the project's user, who has no factor.
            let projectSignIn = try await h.accounts.signInWithPassword(
                SignInWithPasswordRequest(email: projectUser.email, password: projectUser.password))
            #expect(projectSignIn.idToken != nil)
            let (credential, hints) = try await h.pendingCredential(enrolled.session, tenant: tenantID)
            #expect(hints.count == 1)
            h.clock.advance(by: 30)
            _ = try await h.accounts.finalizeMfaSignIn(
                FinalizeMfaSignInRequest(
                    mfaPendingCredential: credential, mfaEnrollmentId: enrolled.enrollmentID,
                    tenantId: tenantID, totpVerificationInfo: .init(verificationCode: try h.code(enrolled.secret))))

            // Tenant updates with masks.
            let updated = try await h.admin.updateTenant(
                project: Harness.project, tenant: tenantID, updateMask: "displayName",
                body: Tenant(displayName: "Team B", allowPasswordSignup: false))
            #expect(updated.displayName == "Team B")
            #expect(updated.allowPasswordSignup == true)
            #expect(updated.mfaConfig?.providerConfigs?.first?.totpProviderConfig?.adjacentIntervals == 1)
            // A mask reads as the project config's does: an empty path is refused.
            for mask in ["displayName,,disableAuth", "displayName,", "mfaConfig."] {
                await expectServerError("INVALID_ARGUMENT") {
                    try await h.admin.updateTenant(
                        project: Harness.project, tenant: tenantID, updateMask: mask,
                        body: Tenant(displayName: "Team Z"))
                }
            }
            // Without a mask every settable field is replaced, as Google
            // documents: the emulator takes such a PATCH (a raw one: the
            // generated client never sends it), and the client refuses an
            // empty mask before sending.
            await #expect(
                performing: {
                    _ = try await h.admin.updateTenant(
                        project: Harness.project, tenant: tenantID, updateMask: "", body: Tenant(displayName: "Team X"))
                }, throws: { ($0 as? IdentityToolkitError)?.code == .invalidRequest })
            let raw = try await h.raw(
                .patch, "/identitytoolkit.googleapis.com/v2/projects/\(Harness.project)/tenants/\(tenantID)",
                body: Data(#"{"displayName":"Team C"}"#.utf8),
                headers: [.authorization: "Bearer owner", .contentType: "application/json"])
            #expect(raw.status == 200)
            let replaced = try await h.admin.getTenant(project: Harness.project, tenant: tenantID)
            #expect(replaced.displayName == "Team C")
            // What the body leaves out takes production's default: off.
            #expect(replaced.allowPasswordSignup == false)
            #expect(replaced.mfaConfig == MultiFactorAuthConfig(state: .disabled, enabledProviders: []))
        }
    }

    @Test func wipingAccountsIsPerRealm() async throws {
        try await withEmulator { h in
            let tenant = try await h.admin.createTenant(
                project: Harness.project, body: Tenant(displayName: "t", allowPasswordSignup: true))
            let tenantID = String(try #require(tenant.name).split(separator: "/").last ?? "")
            let projectUser = try await h.verifiedUser()
            let tenantUser = try await h.verifiedUser(tenant: tenantID)
            let wiped = try await h.raw(
                .delete, "/emulator/v1/projects/\(Harness.project)/accounts", headers: Harness.owner)
            #expect(wiped.status == 200)
            await expectServerError("USER_NOT_FOUND") {
                try await h.accounts.lookup(GetAccountInfoRequest(idToken: projectUser.idToken))
            }
            _ = try await h.accounts.lookup(GetAccountInfoRequest(idToken: tenantUser.idToken, tenantId: tenantID))
        }
    }
}

@Suite struct RobustnessTests {
    @Test(arguments: [
        ("{not json", "the body is not valid JSON"),
        (#"{"email": 5, "password": "secret1"}"#, "invalid value for email: expected String"),
        (#"["a"]"#, "the body must be a JSON object"),
        (#""text""#, "the body must be a JSON object"),
        // An absent required field reaches the operation, which names it with production's code.
        (#"{"email":"a@b.co"}"#, "MISSING_PASSWORD"),
        // A null is the field's default, as proto3 JSON reads it (Google-compatible mode refuses it).
        (#"{"email":"a@b.co","password":null}"#, "MISSING_PASSWORD"),
    ])
    func badBodiesAre400(body: String, detail: String) async throws {
        try await withEmulator { h in
            let response = try await h.raw(
                .post, "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k", body: Data(body.utf8),
                headers: [.contentType: "application/json"])
            #expect(response.status == 400)
            #expect(response.errorMessage == (detail.hasPrefix("MISSING_") ? detail : "INVALID_ARGUMENT : \(detail)"))
        }
    }

    @Test func routingAndLimits() async throws {
        try await withEmulator { h in
            #expect(try await h.raw(.post, "/identitytoolkit.googleapis.com/v1/accounts:nothing").status == 404)
            #expect(try await h.raw(.get, "/identitytoolkit.googleapis.com/v1/accounts:signUp").status == 405)
            #expect(try await h.raw(.get, "/emulator/v1/nothing").status == 404)
            let huge = Data(repeating: 0x20, count: 2 << 20)
            let response = try await h.raw(
                .post, "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k", body: huge,
                headers: [.contentType: "application/json"])
            #expect(response.status == 413)
            #expect(response.errorMessage?.hasPrefix("INVALID_ARGUMENT") == true)
            // The caller is checked before the body is read: no key, no read.
            let keyless = try await h.raw(
                .post, "/identitytoolkit.googleapis.com/v1/accounts:signUp", body: huge,
                headers: [.contentType: "application/json"])
            #expect(keyless.status == 403)
            let anonymousAdmin = try await h.raw(
                .post, "/identitytoolkit.googleapis.com/v2/projects/\(Harness.project)/tenants", body: huge,
                headers: [.contentType: "application/json"])
            #expect(anonymousAdmin.status == 401)
            // JSON with curl's default form content type is still read as JSON.
            let curlStyle = try await h.raw(
                .post, "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k",
                body: Data(#"{"email":"c@example.com","password":"secret1"}"#.utf8),
                headers: [.contentType: "application/x-www-form-urlencoded"])
            #expect(curlStyle.status == 200)
            // snake_case field names are read like their camelCase forms (proto3 JSON).
            let snake = try await h.raw(
                .post, "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k",
                body: Data(#"{"email":"c@example.com","password":"secret1","return_secure_token":true}"#.utf8))
            #expect(snake.status == 200)
        }
    }

    @Test func clockEndpoint() async throws {
        try await withEmulator { h in
            let set = try await h.raw(
                .post, "/emulator/v1/clock", body: Data(#"{"setMillis": 1700000000000}"#.utf8), headers: Harness.owner)
            #expect(set.json["nowMillis"] as? Int == 1_700_000_000_000)
            let advanced = try await h.raw(
                .post, "/emulator/v1/clock", body: Data(#"{"advanceSeconds": 90}"#.utf8), headers: Harness.owner)
            #expect(advanced.json["nowMillis"] as? Int == 1_700_000_090_000)
            #expect(try await h.raw(.get, "/emulator/v1/clock").json["nowMillis"] as? Int == 1_700_000_090_000)
            #expect(
                try await h.raw(.post, "/emulator/v1/clock", body: Data("nope".utf8), headers: Harness.owner).status
                    == 400)
            _ = try await h.raw(
                .post, "/emulator/v1/clock", body: Data(#"{"release": true}"#.utf8), headers: Harness.owner)
            #expect(abs(h.clock.now.timeIntervalSinceNow) < 5)
        }
    }

    @Test func concurrentRequestsAreSafe() async throws {
        try await withEmulator { h in
            try await h.enableTOTP()
            let uids = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<64 {
                    group.addTask {
                        let created = try await h.accounts.signUp(
                            SignUpRequest(
                                email: "user\(index)@example.com", password: "secret1", returnSecureToken: true))
                        _ = try await h.accounts.signInWithPassword(
                            SignInWithPasswordRequest(email: "user\(index)@example.com", password: "secret1"))
                        return created.localId
                    }
                }
                var all: Set<String> = []
                for try await uid in group { all.insert(uid) }
                return all
            }
            #expect(uids.count == 64)
            // Concurrent sign-ups with one email: exactly one wins.
            let results = await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        (try? await h.accounts.signUp(SignUpRequest(email: "same@example.com", password: "secret1")))
                            != nil
                    }
                }
                var wins = 0
                for await won in group where won { wins += 1 }
                return wins
            }
            #expect(results == 1)
        }
    }
}
