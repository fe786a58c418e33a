import Foundation
import HTTPTypes
import IdentityToolkit
import IdentityToolkitTestSupport
import Testing

/// For every operation: the exact method, URL (production and emulator
/// form), headers and JSON body the generated client sends.
@Suite struct ClientRequestTests {
    struct Expected: Sendable {
        var method: HTTPRequest.Method
        var host: String
        /// Path and query, without the API key.
        var pathAndQuery: String
        var body: String?
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var call: @Sendable (AccountsClient, SecureTokenClient, AdminClient) async throws -> Void
        var expected: Expected
        var testDescription: String { name }
    }

    static let identity = "identitytoolkit.googleapis.com"
    static let secureToken = "securetoken.googleapis.com"

    static let cases: [Case] = [
        Case(
            name: "signUp",
            call: { accounts, _, _ in
                _ = try await accounts.signUp(
                    SignUpRequest(email: "ada@example.com", password: "pw", returnSecureToken: true, tenantId: "t1"))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v1/accounts:signUp",
                body: #"{"email":"ada@example.com","password":"pw","returnSecureToken":true,"tenantId":"t1"}"#)),
        Case(
            name: "signUp anonymous",
            call: { accounts, _, _ in
                _ = try await accounts.signUp(SignUpRequest(returnSecureToken: true))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v1/accounts:signUp", body: #"{"returnSecureToken":true}"#
            )),
        Case(
            name: "deleteOwnAccount",
            call: { accounts, _, _ in
                _ = try await accounts.deleteOwnAccount(DeleteAccountRequest(idToken: "id-token"))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v1/accounts:delete", body: #"{"idToken":"id-token"}"#)),
        Case(
            name: "resetPassword",
            call: { accounts, _, _ in
                _ = try await accounts.resetPassword(ResetPasswordRequest(oobCode: "code", newPassword: "new-pw"))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v1/accounts:resetPassword",
                body: #"{"newPassword":"new-pw","oobCode":"code"}"#)),
        Case(
            name: "createAuthUri",
            call: { accounts, _, _ in
                _ = try await accounts.createAuthUri(
                    CreateAuthUriRequest(identifier: "a@b.c", continueUri: "http://localhost"))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v1/accounts:createAuthUri",
                body: #"{"continueUri":"http://localhost","identifier":"a@b.c"}"#)),
        Case(
            name: "createAuthUri with its session",
            call: { accounts, _, _ in
                _ = try await accounts.createAuthUri(
                    CreateAuthUriRequest(identifier: "a@b.c", continueUri: "http://localhost", sessionId: "s-1"))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v1/accounts:createAuthUri",
                body: #"{"continueUri":"http://localhost","identifier":"a@b.c","sessionId":"s-1"}"#)),
        Case(
            name: "getRecaptchaParams",
            call: { accounts, _, _ in
                _ = try await accounts.getRecaptchaParams()
            }, expected: Expected(method: .get, host: identity, pathAndQuery: "/v1/recaptchaParams", body: nil)),
        Case(
            name: "sendVerificationCode",
            call: { accounts, _, _ in
                _ = try await accounts.sendVerificationCode(SendVerificationCodeRequest(phoneNumber: "+15555550100"))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v1/accounts:sendVerificationCode",
                body: #"{"phoneNumber":"+15555550100"}"#)),
        Case(
            name: "signInWithPhoneNumber",
            call: { accounts, _, _ in
                _ = try await accounts.signInWithPhoneNumber(
                    SignInWithPhoneNumberRequest(sessionInfo: "s", code: "123456"))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v1/accounts:signInWithPhoneNumber",
                body: #"{"code":"123456","sessionInfo":"s"}"#)),
        Case(
            name: "signInWithEmailLink",
            call: { accounts, _, _ in
                _ = try await accounts.signInWithEmailLink(SignInWithEmailLinkRequest(email: "a@b.c", oobCode: "code"))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v1/accounts:signInWithEmailLink",
                body: #"{"email":"a@b.c","oobCode":"code"}"#)),
        Case(
            name: "signInWithIdp",
            call: { accounts, _, _ in
                _ = try await accounts.signInWithIdp(
                    SignInWithIdpRequest(
                        requestUri: "http://localhost", postBody: "providerId=google.com", returnSecureToken: true))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v1/accounts:signInWithIdp",
                body: #"{"postBody":"providerId=google.com","requestUri":"http://localhost","returnSecureToken":true}"#)
        ),
        Case(
            name: "signInWithPassword",
            call: { accounts, _, _ in
                _ = try await accounts.signInWithPassword(
                    SignInWithPasswordRequest(email: "ada@example.com", password: "pw", returnSecureToken: true))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v1/accounts:signInWithPassword",
                body: #"{"email":"ada@example.com","password":"pw","returnSecureToken":true}"#)),
        Case(
            name: "signInWithCustomToken",
            call: { accounts, _, _ in
                _ = try await accounts.signInWithCustomToken(
                    SignInWithCustomTokenRequest(token: "custom", returnSecureToken: true))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v1/accounts:signInWithCustomToken",
                body: #"{"returnSecureToken":true,"token":"custom"}"#)),
        Case(
            name: "lookup",
            call: { accounts, _, _ in
                _ = try await accounts.lookup(GetAccountInfoRequest(idToken: "id-token"))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v1/accounts:lookup", body: #"{"idToken":"id-token"}"#)),
        Case(
            name: "sendOobCode",
            call: { accounts, _, _ in
                _ = try await accounts.sendOobCode(GetOobCodeRequest(requestType: .verifyEmail, idToken: "id-token"))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v1/accounts:sendOobCode",
                body: #"{"idToken":"id-token","requestType":"VERIFY_EMAIL"}"#)),
        Case(
            name: "update (apply oob code)",
            call: { accounts, _, _ in
                _ = try await accounts.update(SetAccountInfoRequest(oobCode: "oob"))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v1/accounts:update", body: #"{"oobCode":"oob"}"#)),
        Case(
            name: "startMfaEnrollment",
            call: { accounts, _, _ in
                _ = try await accounts.startMfaEnrollment(
                    StartMfaEnrollmentRequest(
                        idToken: "id-token", tenantId: "t1", totpEnrollmentInfo: StartTotpMfaEnrollmentRequestInfo()))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v2/accounts/mfaEnrollment:start",
                body: #"{"idToken":"id-token","tenantId":"t1","totpEnrollmentInfo":{}}"#)),
        Case(
            name: "finalizeMfaEnrollment",
            call: { accounts, _, _ in
                _ = try await accounts.finalizeMfaEnrollment(
                    FinalizeMfaEnrollmentRequest(
                        idToken: "id-token", displayName: "My phone",
                        totpVerificationInfo: FinalizeTotpMfaEnrollmentRequestInfo(
                            sessionInfo: "s", verificationCode: "123456")))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v2/accounts/mfaEnrollment:finalize",
                body:
                    #"{"displayName":"My phone","idToken":"id-token","totpVerificationInfo":{"sessionInfo":"s","verificationCode":"123456"}}"#
            )),
        Case(
            name: "startPasskeyEnrollment",
            call: { accounts, _, _ in
                _ = try await accounts.startPasskeyEnrollment(
                    StartPasskeyEnrollmentRequest(idToken: "id-token", tenantId: "t1"))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v2/accounts/passkeyEnrollment:start",
                body: #"{"idToken":"id-token","tenantId":"t1"}"#)),
        Case(
            name: "finalizePasskeyEnrollment",
            call: { accounts, _, _ in
                _ = try await accounts.finalizePasskeyEnrollment(
                    FinalizePasskeyEnrollmentRequest(
                        idToken: "id-token",
                        authenticatorRegistrationResponse: AuthenticatorRegistrationResponse(
                            id: "cred",
                            response: AuthenticatorAttestationResponse(clientDataJSON: "cd", attestationObject: "ao")),
                        name: "Laptop"))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v2/accounts/passkeyEnrollment:finalize",
                body:
                    #"{"authenticatorRegistrationResponse":{"id":"cred","response":{"attestationObject":"ao","clientDataJSON":"cd"}},"idToken":"id-token","name":"Laptop"}"#
            )),
        Case(
            name: "startPasskeySignIn",
            call: { accounts, _, _ in
                _ = try await accounts.startPasskeySignIn(StartPasskeySignInRequest())
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v2/accounts/passkeySignIn:start", body: "{}")),
        Case(
            name: "finalizePasskeySignIn",
            call: { accounts, _, _ in
                _ = try await accounts.finalizePasskeySignIn(
                    FinalizePasskeySignInRequest(
                        authenticatorAuthenticationResponse: AuthenticatorAuthenticationResponse(
                            id: "cred",
                            response: AuthenticatorAssertionResponse(
                                clientDataJSON: "cd", authenticatorData: "ad", signature: "sig", userHandle: "uh"))))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v2/accounts/passkeySignIn:finalize",
                body:
                    #"{"authenticatorAuthenticationResponse":{"id":"cred","response":{"authenticatorData":"ad","clientDataJSON":"cd","signature":"sig","userHandle":"uh"}}}"#
            )),
        Case(
            name: "withdrawMfa",
            call: { accounts, _, _ in
                _ = try await accounts.withdrawMfa(WithdrawMfaRequest(idToken: "id-token", mfaEnrollmentId: "totp-1"))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v2/accounts/mfaEnrollment:withdraw",
                body: #"{"idToken":"id-token","mfaEnrollmentId":"totp-1"}"#)),
        Case(
            name: "startMfaSignIn (phone)",
            call: { accounts, _, _ in
                _ = try await accounts.startMfaSignIn(
                    StartMfaSignInRequest(
                        mfaPendingCredential: "p", mfaEnrollmentId: "phone-1",
                        phoneSignInInfo: StartMfaPhoneRequestInfo(phoneNumber: "+15555550100")))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v2/accounts/mfaSignIn:start",
                body:
                    #"{"mfaEnrollmentId":"phone-1","mfaPendingCredential":"p","phoneSignInInfo":{"phoneNumber":"+15555550100"}}"#
            )),
        Case(
            name: "finalizeMfaSignIn (TOTP)",
            call: { accounts, _, _ in
                _ = try await accounts.finalizeMfaSignIn(
                    FinalizeMfaSignInRequest(
                        mfaPendingCredential: "p", mfaEnrollmentId: "totp-1", tenantId: "t1",
                        totpVerificationInfo: MfaTotpSignInRequestInfo(verificationCode: "654321")))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v2/accounts/mfaSignIn:finalize",
                body:
                    #"{"mfaEnrollmentId":"totp-1","mfaPendingCredential":"p","tenantId":"t1","totpVerificationInfo":{"verificationCode":"654321"}}"#
            )),
        Case(
            name: "grantToken",
            call: { _, token, _ in
                _ = try await token.grantToken(GrantTokenRequest(grantType: "refresh_token", refreshToken: "r"))
            },
            expected: Expected(
                method: .post, host: secureToken, pathAndQuery: "/v1/token",
                body: #"{"grantType":"refresh_token","refreshToken":"r"}"#)),
        Case(
            name: "getProjectConfig",
            call: { _, _, admin in
                _ = try await admin.getProjectConfig(project: "demo-mfa")
            }, expected: Expected(method: .get, host: identity, pathAndQuery: "/v2/projects/demo-mfa/config", body: nil)
        ),
        Case(
            name: "updateProjectConfig",
            call: { _, _, admin in
                let config = ProjectConfig(
                    mfa: MultiFactorAuthConfig(providerConfigs: [
                        MfaProviderConfig(
                            state: .enabled, totpProviderConfig: TotpMfaProviderConfig(adjacentIntervals: 3))
                    ]))
                _ = try await admin.updateProjectConfig(
                    project: "demo-mfa", updateMask: "mfa.providerConfigs", body: config)
            },
            expected: Expected(
                method: .patch, host: identity,
                pathAndQuery: "/v2/projects/demo-mfa/config?updateMask=mfa.providerConfigs",
                body: #"{"mfa":{"providerConfigs":[{"state":"ENABLED","totpProviderConfig":{"adjacentIntervals":3}}]}}"#
            )),
        Case(
            name: "createTenant",
            call: { _, _, admin in
                _ = try await admin.createTenant(
                    project: "demo-mfa", body: Tenant(displayName: "team-a", allowPasswordSignup: true))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v2/projects/demo-mfa/tenants",
                body: #"{"allowPasswordSignup":true,"displayName":"team-a"}"#)),
        Case(
            name: "getTenant",
            call: { _, _, admin in
                _ = try await admin.getTenant(project: "demo-mfa", tenant: "team-a-1x2y")
            },
            expected: Expected(
                method: .get, host: identity, pathAndQuery: "/v2/projects/demo-mfa/tenants/team-a-1x2y", body: nil)),
        Case(
            name: "updateTenant",
            call: { _, _, admin in
                let tenant = Tenant(mfaConfig: MultiFactorAuthConfig(state: .enabled, enabledProviders: [.phoneSms]))
                _ = try await admin.updateTenant(
                    project: "demo-mfa", tenant: "t/../x", updateMask: "mfaConfig.state,mfaConfig.enabledProviders",
                    body: tenant)
            },
            expected: Expected(
                method: .patch, host: identity,
                pathAndQuery:
                    "/v2/projects/demo-mfa/tenants/t%2F..%2Fx?updateMask=mfaConfig.state%2CmfaConfig.enabledProviders",
                body: #"{"mfaConfig":{"enabledProviders":["PHONE_SMS"],"state":"ENABLED"}}"#)),
        Case(
            name: "lookupAccounts",
            call: { _, _, admin in
                _ = try await admin.lookupAccounts(
                    targetProjectId: "demo-mfa",
                    body: GetAccountInfoRequest(localId: ["u1"], email: ["a@b.c"], tenantId: "t1"))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v1/projects/demo-mfa/accounts:lookup",
                body: #"{"email":["a@b.c"],"localId":["u1"],"tenantId":"t1"}"#)),
        Case(
            name: "updateAccount",
            call: { _, _, admin in
                _ = try await admin.updateAccount(
                    targetProjectId: "demo-mfa",
                    body: SetAccountInfoRequest(localId: "u1", disableUser: true, validSince: 1_800_000_000))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v1/projects/demo-mfa/accounts:update",
                body: #"{"disableUser":true,"localId":"u1","validSince":"1800000000"}"#)),
        Case(
            name: "createAccount",
            call: { _, _, admin in
                _ = try await admin.createAccount(
                    targetProjectId: "demo-mfa",
                    body: SignUpRequest(
                        email: "a@b.c", password: "pw", tenantId: "t1", localId: "u1", emailVerified: true))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v1/projects/demo-mfa/accounts",
                body: #"{"email":"a@b.c","emailVerified":true,"localId":"u1","password":"pw","tenantId":"t1"}"#)),
        Case(
            name: "batchGetAccounts",
            call: { _, _, admin in
                _ = try await admin.batchGetAccounts(
                    targetProjectId: "demo-mfa", maxResults: 500, nextPageToken: "p+2", tenantId: "t1")
            },
            expected: Expected(
                method: .get, host: identity,
                pathAndQuery: "/v1/projects/demo-mfa/accounts:batchGet?maxResults=500&nextPageToken=p%2B2&tenantId=t1",
                body: nil)),
        Case(
            name: "deleteAccount",
            call: { _, _, admin in
                _ = try await admin.deleteAccount(
                    targetProjectId: "demo-mfa", body: DeleteAccountRequest(localId: "u1"))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v1/projects/demo-mfa/accounts:delete",
                body: #"{"localId":"u1"}"#)),
        Case(
            name: "createSessionCookie",
            call: { _, _, admin in
                _ = try await admin.createSessionCookie(
                    targetProjectId: "demo-mfa",
                    body: CreateSessionCookieRequest(idToken: "id-token", validDuration: 3600))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v1/projects/demo-mfa:createSessionCookie",
                body: #"{"idToken":"id-token","validDuration":"3600"}"#)),
        Case(
            name: "sendAccountOobCode",
            call: { _, _, admin in
                _ = try await admin.sendAccountOobCode(
                    targetProjectId: "demo-mfa",
                    body: GetOobCodeRequest(requestType: .verifyEmail, email: "a@b.c", returnOobLink: true))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v1/projects/demo-mfa/accounts:sendOobCode",
                body: #"{"email":"a@b.c","requestType":"VERIFY_EMAIL","returnOobLink":true}"#)),
        Case(
            name: "createTenantAccount",
            call: { _, _, admin in
                _ = try await admin.createTenantAccount(
                    targetProjectId: "demo-mfa", tenantId: "t1", body: SignUpRequest(localId: "u1"))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v1/projects/demo-mfa/tenants/t1/accounts",
                body: #"{"localId":"u1"}"#)),
        Case(
            name: "batchGetTenantAccounts",
            call: { _, _, admin in
                _ = try await admin.batchGetTenantAccounts(targetProjectId: "demo-mfa", tenantId: "t1", maxResults: 2)
            },
            expected: Expected(
                method: .get, host: identity,
                pathAndQuery: "/v1/projects/demo-mfa/tenants/t1/accounts:batchGet?maxResults=2", body: nil)),
        Case(
            name: "deleteTenantAccount",
            call: { _, _, admin in
                _ = try await admin.deleteTenantAccount(
                    targetProjectId: "demo-mfa", tenantId: "t1", body: DeleteAccountRequest(localId: "u1"))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v1/projects/demo-mfa/tenants/t1/accounts:delete",
                body: #"{"localId":"u1"}"#)),
        Case(
            name: "lookupTenantAccounts",
            call: { _, _, admin in
                _ = try await admin.lookupTenantAccounts(
                    targetProjectId: "demo-mfa", tenantId: "t1", body: GetAccountInfoRequest(localId: ["u1"]))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v1/projects/demo-mfa/tenants/t1/accounts:lookup",
                body: #"{"localId":["u1"]}"#)),
        Case(
            name: "updateTenantAccount",
            call: { _, _, admin in
                _ = try await admin.updateTenantAccount(
                    targetProjectId: "demo-mfa", tenantId: "t1",
                    body: SetAccountInfoRequest(localId: "u1", disableUser: false))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v1/projects/demo-mfa/tenants/t1/accounts:update",
                body: #"{"disableUser":false,"localId":"u1"}"#)),
        Case(
            name: "sendTenantAccountOobCode",
            call: { _, _, admin in
                _ = try await admin.sendTenantAccountOobCode(
                    targetProjectId: "demo-mfa", tenantId: "t1",
                    body: GetOobCodeRequest(requestType: .passwordReset, email: "a@b.c"))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v1/projects/demo-mfa/tenants/t1/accounts:sendOobCode",
                body: #"{"email":"a@b.c","requestType":"PASSWORD_RESET"}"#)),
        Case(
            name: "createTenantSessionCookie",
            call: { _, _, admin in
                _ = try await admin.createTenantSessionCookie(
                    targetProjectId: "demo-mfa", tenantId: "t1",
                    body: CreateSessionCookieRequest(idToken: "id-token", validDuration: 600))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v1/projects/demo-mfa/tenants/t1:createSessionCookie",
                body: #"{"idToken":"id-token","validDuration":"600"}"#)),
        Case(
            name: "importAccounts",
            call: { _, _, admin in
                _ = try await admin.importAccounts(
                    targetProjectId: "demo-mfa",
                    body: UploadAccountRequest(
                        users: [UserInfo(localId: "u1", passwordHash: "aGFzaA", salt: "c2FsdA")],
                        hashAlgorithm: .scrypt, signerKey: "a2V5", saltSeparator: "Bw",
                        rounds: 8, memoryCost: 14))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v1/projects/demo-mfa/accounts:batchCreate",
                body:
                    #"{"hashAlgorithm":"SCRYPT","memoryCost":14,"rounds":8,"saltSeparator":"Bw","signerKey":"a2V5","users":[{"localId":"u1","passwordHash":"aGFzaA","salt":"c2FsdA"}]}"#
            )),
        Case(
            name: "importTenantAccounts",
            call: { _, _, admin in
                _ = try await admin.importTenantAccounts(
                    targetProjectId: "demo-mfa", tenantId: "t1",
                    body: UploadAccountRequest(users: [UserInfo(localId: "u1")]))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v1/projects/demo-mfa/tenants/t1/accounts:batchCreate",
                body: #"{"users":[{"localId":"u1"}]}"#)),
        Case(
            name: "batchDeleteAccounts",
            call: { _, _, admin in
                _ = try await admin.batchDeleteAccounts(
                    targetProjectId: "demo-mfa", body: BatchDeleteAccountsRequest(localIds: ["u1", "u2"], force: true))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v1/projects/demo-mfa/accounts:batchDelete",
                body: #"{"force":true,"localIds":["u1","u2"]}"#)),
        Case(
            name: "batchDeleteTenantAccounts",
            call: { _, _, admin in
                _ = try await admin.batchDeleteTenantAccounts(
                    targetProjectId: "demo-mfa", tenantId: "t1", body: BatchDeleteAccountsRequest(localIds: ["u1"]))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v1/projects/demo-mfa/tenants/t1/accounts:batchDelete",
                body: #"{"localIds":["u1"]}"#)),
        Case(
            name: "queryAccounts",
            call: { _, _, admin in
                _ = try await admin.queryAccounts(
                    targetProjectId: "demo-mfa", body: QueryUserInfoRequest(returnUserInfo: false))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v1/projects/demo-mfa/accounts:query",
                body: #"{"returnUserInfo":false}"#)),
        Case(
            name: "queryTenantAccounts",
            call: { _, _, admin in
                _ = try await admin.queryTenantAccounts(
                    targetProjectId: "demo-mfa", tenantId: "t1", body: QueryUserInfoRequest(limit: 10, offset: 20))
            },
            expected: Expected(
                method: .post, host: identity, pathAndQuery: "/v1/projects/demo-mfa/tenants/t1/accounts:query",
                body: #"{"limit":"10","offset":"20"}"#)),
        Case(
            name: "listTenants",
            call: { _, _, admin in
                _ = try await admin.listTenants(project: "demo-mfa", pageSize: 2)
            },
            expected: Expected(
                method: .get, host: identity, pathAndQuery: "/v2/projects/demo-mfa/tenants?pageSize=2", body: nil)),
        Case(
            name: "deleteTenant",
            call: { _, _, admin in
                _ = try await admin.deleteTenant(project: "demo-mfa", tenant: "team-a-1x2y")
            },
            expected: Expected(
                method: .delete, host: identity, pathAndQuery: "/v2/projects/demo-mfa/tenants/team-a-1x2y", body: nil)),
    ]

    func clients(_ transport: RecordingTransport, emulator: String?) -> (AccountsClient, SecureTokenClient, AdminClient)
    {
        let configuration = ClientConfiguration(
            transport: transport, emulatorHost: emulator,
            headers: [HTTPField.Name("X-Client-Version")!: "swift-identity-mfa/test"]
        )
        return (
            AccountsClient(apiKey: "api-key", configuration: configuration),
            SecureTokenClient(apiKey: "api-key", configuration: configuration),
            AdminClient(accessToken: { "admin-token" }, configuration: configuration)
        )
    }

    @Test(arguments: cases)
    func productionRequest(_ testCase: Case) async throws {
        let transport = RecordingTransport(body: "{}")
        let (accounts, token, admin) = clients(transport, emulator: nil)
        // Some responses have required fields; the request is what is checked here.
        try? await testCase.call(accounts, token, admin)
        let request = try #require(await transport.requests.first)
        let body = await transport.bodies.first ?? nil
        try check(
            request, body: body, testCase.expected, scheme: "https", authority: testCase.expected.host, prefix: "")
    }

    @Test(arguments: cases)
    func emulatorRequest(_ testCase: Case) async throws {
        let transport = RecordingTransport(body: "{}")
        let (accounts, token, admin) = clients(transport, emulator: "127.0.0.1:9099")
        try? await testCase.call(accounts, token, admin)
        let request = try #require(await transport.requests.first)
        let body = await transport.bodies.first ?? nil
        try check(
            request, body: body, testCase.expected, scheme: "http", authority: "127.0.0.1:9099",
            prefix: "/" + testCase.expected.host)
    }

    func check(
        _ request: HTTPRequest, body: Data?, _ expected: Expected, scheme: String, authority: String, prefix: String
    ) throws {
        #expect(request.method == expected.method)
        #expect(request.scheme == scheme)
        #expect(request.authority == authority)
        let isAdmin =
            expected.pathAndQuery.hasPrefix("/v2/projects/") || expected.pathAndQuery.hasPrefix("/v1/projects/")
        if isAdmin {
            #expect(request.path == prefix + expected.pathAndQuery)
            #expect(request.headerFields[.authorization] == "Bearer admin-token")
        } else {
            let separator = expected.pathAndQuery.contains("?") ? "&" : "?"
            #expect(request.path == prefix + expected.pathAndQuery + separator + "key=api-key")
            #expect(request.headerFields[.authorization] == nil)
        }
        #expect(request.headerFields[.accept] == "application/json")
        #expect(request.headerFields[HTTPField.Name("X-Client-Version")!] == "swift-identity-mfa/test")
        if let expectedBody = expected.body {
            #expect(request.headerFields[.contentType] == "application/json")
            #expect(body.map { String(decoding: $0, as: UTF8.self) } == expectedBody)
        } else {
            #expect(body == nil)
            #expect(request.headerFields[.contentType] == nil)
        }
    }

    @Test func everyOperationOfTheSpecIsCovered() throws {
        // The spec's operation ids, read from the documents, against the cases above.
        let specFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Spec")
        var operationIDs: Set<String> = []
        for file in ["identitytoolkit-accounts.yaml", "securetoken.yaml", "identitytoolkit-admin.yaml"] {
            let text = try String(contentsOf: specFolder.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") where line.contains("operationId:") {
                operationIDs.insert(line.split(separator: ":").last!.trimmingCharacters(in: .whitespaces))
            }
        }
        let covered = Set(Self.cases.map { String($0.name.split(separator: " ").first!) })
        #expect(operationIDs == covered)
    }
}
