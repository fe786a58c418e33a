import AdminTestSupport
import Foundation
import HTTPTypes
import IdentityAdmin
import IdentityOTP
import IdentityToolkit
import IdentityToolkitAsyncHTTPClient
import IdentityToolkitEmulator
import IdentityToolkitTestSupport
import Testing
import _CryptoExtras

@Suite struct ValidationTests {
    static let prefix = #"{"providerConfigs":[{"state":"ENABLED","totpProviderConfig":{"adjacentIntervals":"#

    @Test(arguments: [
        (
            prefix + "-1}}]}",
            #""multiFactorConfig.providerConfigs[0].totpProviderConfig.adjacentIntervals" must be an integer from 0 to 10"#
        ),
        (
            prefix + "11}}]}",
            #""multiFactorConfig.providerConfigs[0].totpProviderConfig.adjacentIntervals" must be an integer from 0 to 10"#
        ),
        (
            prefix + "1.5}}]}",
            #""multiFactorConfig.providerConfigs[0].totpProviderConfig.adjacentIntervals" must be an integer from 0 to 10"#
        ),
        (
            prefix + #""a"}}]}"#,
            #""multiFactorConfig.providerConfigs[0].totpProviderConfig.adjacentIntervals" must be an integer from 0 to 10"#
        ),
        (
            prefix + "null}}]}",
            #""multiFactorConfig.providerConfigs[0].totpProviderConfig.adjacentIntervals" must be an integer from 0 to 10"#
        ),
        (
            prefix + "true}}]}",
            #""multiFactorConfig.providerConfigs[0].totpProviderConfig.adjacentIntervals" must be an integer from 0 to 10"#
        ),
        (
            #"{"providerConfigs":[{"state":"ENABLED"}]}"#,
            #""multiFactorConfig.providerConfigs[0].totpProviderConfig" is required"#
        ),
        (
            #"{"providerConfigs":[{"state":"MANDATORY","totpProviderConfig":{}}]}"#,
            #""multiFactorConfig.providerConfigs[0].state" must be "ENABLED" or "DISABLED""#
        ),
        (#"{"state":"MANDATORY"}"#, #""multiFactorConfig.state" must be "ENABLED" or "DISABLED""#),
        (
            #"{"providerConfigs":[{"state":"ENABLED","totpProviderConfig":{"adjacentInterval":3}}]}"#,
            #""multiFactorConfig.providerConfigs[0].totpProviderConfig.adjacentInterval" is not a valid field"#
        ),
        (#"{"factorIds":["totp"]}"#, #""multiFactorConfig.factorIds[0]" must be "phone", not "totp""#),
        (#"{"providerConfigs":{}}"#, #""multiFactorConfig.providerConfigs" must be an array"#),
        ("[]", #""multiFactorConfig" must be an object"#),
    ])
    func refusedWithAPreciseMessage(json: String, message: String) {
        #expect(throws: AdminValidationError.self) { try MultiFactorConfig(json: Data(json.utf8)) }
        do {
            _ = try MultiFactorConfig(json: Data(json.utf8))
        } catch {
            #expect(error.description == message)
        }
    }

    @Test(arguments: [0, 5, 10])
    func acceptedIntervals(value: Int) throws {
        let config = try MultiFactorConfig(json: Data((Self.prefix + "\(value)}}]}").utf8))
        #expect(config == .totpEnabled(adjacentIntervals: value))
    }

    @Test func invalidConfigsSendNoRequest() async throws {
        let transport = RecordingTransport()
        let admin = IdentityAdmin(
            projectID: "p", credential: StaticAccessTokenCredential(token: "t"),
            configuration: ClientConfiguration(transport: transport, emulatorHost: nil))
        await #expect(throws: AdminValidationError.self) {
            try await admin.projectConfigManager().updateProjectConfig(
                UpdateProjectConfigRequest(multiFactorConfig: .totpEnabled(adjacentIntervals: 11)))
        }
        await #expect(throws: AdminValidationError.self) {
            try await admin.tenantManager().updateTenant(
                "t",
                TenantRequest(
                    multiFactorConfig: MultiFactorConfig(providerConfigs: [
                        .init(state: .enabled, totpProviderConfig: nil)
                    ])))
        }
        // An update that sets nothing would be sent without a mask, which the
        // server reads as "replace every field": refused before sending.
        await #expect(throws: AdminValidationError.self) {
            try await admin.tenantManager().updateTenant("t", TenantRequest())
        }
        await #expect(throws: AdminValidationError.self) {
            try await admin.projectConfigManager().updateProjectConfig(
                UpdateProjectConfigRequest(multiFactorConfig: nil))
        }
        #expect(await transport.requests.isEmpty)
    }

    @Test func bodiesAndUpdateMasks() async throws {
        let transport = RecordingTransport(body: #"{"name":"projects/p/tenants/t1"}"#)
        let admin = IdentityAdmin(
            projectID: "p", credential: StaticAccessTokenCredential(token: "tok"),
            configuration: ClientConfiguration(transport: transport, emulatorHost: nil))
        _ = try await admin.projectConfigManager().updateProjectConfig(
            UpdateProjectConfigRequest(
                multiFactorConfig: MultiFactorConfig(
                    state: .enabled, factorIds: ["phone"],
                    providerConfigs: [.init(state: .enabled, totpProviderConfig: .init(adjacentIntervals: 2))])))
        let project = try #require(await transport.requests.first)
        #expect(project.method == .patch)
        #expect(
            project.path == "/v2/projects/p/config?updateMask=mfa.state%2Cmfa.enabledProviders%2Cmfa.providerConfigs")
        #expect(project.headerFields[.authorization] == "Bearer tok")
        let projectBody = try #require(await transport.bodies.first ?? nil)
        #expect(
            String(decoding: projectBody, as: UTF8.self)
                == #"{"mfa":{"enabledProviders":["PHONE_SMS"],"providerConfigs":[{"state":"ENABLED","totpProviderConfig":{"adjacentIntervals":2}}],"state":"ENABLED"}}"#
        )
        _ = try await admin.tenantManager().updateTenant("t1", TenantRequest(multiFactorConfig: .totpEnabled()))
        let tenant = try #require(await transport.requests.last)
        #expect(tenant.path == "/v2/projects/p/tenants/t1?updateMask=mfaConfig.providerConfigs")
        let tenantBody = try #require(await transport.bodies.last ?? nil)
        #expect(
            String(decoding: tenantBody, as: UTF8.self)
                == #"{"mfaConfig":{"providerConfigs":[{"state":"ENABLED","totpProviderConfig":{}}]}}"#)
    }
}

@Suite struct EmulatorAdminTests {
    @Test func enableDisableAndShowForProjectsAndTenants() async throws {
        try await IdentityToolkitEmulator(
            configuration: EmulatorConfiguration(port: 0, projectID: "demo-admin")
        ).serving { running in
            let transport = AsyncHTTPClientTransport()
            let admin = IdentityAdmin.emulator(
                projectID: "demo-admin", hostAndPort: running.hostAndPort, transport: transport)
            let updated = try await admin.projectConfigManager().updateProjectConfig(
                UpdateProjectConfigRequest(multiFactorConfig: .totpEnabled(adjacentIntervals: 0)))
            #expect(updated.multiFactorConfig == .totpEnabled(adjacentIntervals: 0))
            #expect(
                try await admin.projectConfigManager().getProjectConfig().multiFactorConfig
                    == .totpEnabled(adjacentIntervals: 0))
            // Read back with a raw GET.
            var request = HTTPRequest(
                method: .get, scheme: nil, authority: nil, path: nil, headerFields: [.authorization: "Bearer owner"])
            request.url = URL(string: "\(running.baseURL)/identitytoolkit.googleapis.com/v2/projects/demo-admin/config")
            let (_, data) = try await transport.send(
                request, body: nil, options: TransportOptions(timeout: .seconds(30), maxResponseBytes: 1 << 20))
            #expect(String(decoding: data, as: UTF8.self).contains(#""adjacentIntervals":0"#))

            // The emulator now applies a window of 0: a code one step old is refused.
            let accounts = AccountsClient(
                apiKey: "k", configuration: ClientConfiguration(transport: transport, emulatorHost: running.hostAndPort)
            )
            running.emulator.clock.set(Date(timeIntervalSince1970: 2_000_000_010))
            let created = try await accounts.signUp(
                SignUpRequest(email: "a@example.com", password: "secret-pw", returnSecureToken: true))
            let idToken = try #require(created.idToken)
            _ = try await accounts.sendOobCode(GetOobCodeRequest(requestType: .verifyEmail, idToken: idToken))
            var codes = HTTPRequest(method: .get, scheme: nil, authority: nil, path: nil)
            codes.url = URL(string: "\(running.baseURL)/emulator/v1/projects/demo-admin/oobCodes")
            let (_, listing) = try await transport.send(
                codes, body: nil, options: TransportOptions(timeout: .seconds(30), maxResponseBytes: 1 << 20))
            let oob = try #require(
                (try JSONSerialization.jsonObject(with: listing) as? [String: [[String: String]]])?["oobCodes"]?.first?[
                    "oobCode"])
            _ = try await accounts.update(SetAccountInfoRequest(oobCode: oob))
            let started = try await accounts.startMfaEnrollment(
                StartMfaEnrollmentRequest(idToken: idToken, totpEnrollmentInfo: .init()))
            let totp = try TOTP(key: try Base32.decode(try #require(started.totpSessionInfo?.sharedSecretKey)))
            let step = try totp.step(at: 2_000_000_010)
            do {
                _ = try await accounts.finalizeMfaEnrollment(
                    FinalizeMfaEnrollmentRequest(
                        idToken: idToken, displayName: "app",
                        totpVerificationInfo: .init(
                            sessionInfo: try #require(started.totpSessionInfo?.sessionInfo),
                            verificationCode: totp.code(step: step - 1))))
                Issue.record("a code outside a window of 0 was accepted")
            } catch let failure as IdentityToolkitError where failure.code == .server {
                let error = try #require(failure.serverError)
                #expect(error.shortCode == "INVALID_CODE")
            }

            // Tenants.
            let tenant = try await admin.tenantManager().createTenant(
                TenantRequest(displayName: "Team", multiFactorConfig: .totpEnabled(adjacentIntervals: 7)))
            #expect(tenant.displayName == "Team")
            // The server fills in what the request left out (SMS off), as production does.
            let stored = try #require(try await admin.tenantManager().getTenant(tenant.tenantID).multiFactorConfig)
            #expect(
                stored.providerConfigs == MultiFactorConfig.totpEnabled(adjacentIntervals: 7).providerConfigs
                    && stored.state == .disabled)
            let disabled = try await admin.tenantManager().updateTenant(
                tenant.tenantID, TenantRequest(multiFactorConfig: .totpDisabled))
            #expect(disabled.multiFactorConfig?.providerConfigs?.first?.state == .disabled)
            #expect(disabled.displayName == "Team")
        }
    }
}

@Suite struct ServiceAccountTests {
    struct KeyFile {
        let email = "mfa-admin@demo-admin.iam.gserviceaccount.com"
        let key: _RSA.Signing.PrivateKey
        let json: Data

        init(email: String = "mfa-admin@demo-admin.iam.gserviceaccount.com", tokenURI: String) throws {
            key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            let object: [String: String] = [
                "type": "service_account", "project_id": "demo-admin", "private_key_id": "key-1",
                "private_key": key.pemRepresentation, "client_email": email, "token_uri": tokenURI,
            ]
            json = try JSONSerialization.data(withJSONObject: object)
        }
    }

    /// Counts the token endpoint's requests.
    final class CountingTransport: HTTPTransport, @unchecked Sendable {
        let base = AsyncHTTPClientTransport()
        private let lock = NSLock()
        private var tokenRequests = 0
        func send(_ request: HTTPRequest, body: Data?, options: TransportOptions) async throws -> (HTTPResponse, Data) {
            if request.path?.hasPrefix("/oauth2.googleapis.com/token") == true { lock.withLock { tokenRequests += 1 } }
            return try await base.send(request, body: body, options: options)
        }
        var count: Int { lock.withLock { tokenRequests } }
    }

    @Test func endToEndWithCachingAndCoalescing() async throws {
        let emulator = try IdentityToolkitEmulator(
            configuration: EmulatorConfiguration(port: 0, projectID: "demo-admin"))
        try await emulator.serving { running in
            let tokenURI = "\(running.baseURL)/oauth2.googleapis.com/token"
            let file = try KeyFile(tokenURI: tokenURI)
            var register = HTTPRequest(
                method: .post, scheme: nil, authority: nil, path: nil, headerFields: [.authorization: "Bearer owner"])
            register.url = URL(string: "\(running.baseURL)/emulator/v1/serviceAccounts")
            let registration = try JSONSerialization.data(withJSONObject: [
                "clientEmail": file.email, "publicKeyPem": file.key.publicKey.pemRepresentation,
            ])
            _ = try await AsyncHTTPClientTransport().send(
                register, body: registration,
                options: TransportOptions(timeout: .seconds(30), maxResponseBytes: 1 << 20))

            let transport = CountingTransport()
            let clock = emulator.clock
            // Frozen, so that only the advances below move it: running, it let a
            // slow run (under the thread sanitizer) cross the refresh margin early.
            clock.set(Date())
            let credential = try ServiceAccountCredential(json: file.json, transport: transport, now: { clock.now })
            #expect(credential.tokenEndpoint == tokenURI)
            // 100 concurrent callers: one fetch.
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<100 { group.addTask { try await credential.accessToken() } }
                var all: Set<String> = []
                for try await token in group { all.insert(token) }
                return all
            }
            #expect(tokens.count == 1)
            #expect(transport.count == 1)
            // The emulator's admin routes accept the issued token.
            let admin = IdentityAdmin(
                projectID: "demo-admin", credential: credential,
                configuration: ClientConfiguration(transport: transport, emulatorHost: running.hostAndPort))
            _ = try await admin.projectConfigManager().updateProjectConfig(
                UpdateProjectConfigRequest(multiFactorConfig: .totpEnabled(adjacentIntervals: 4)))
            #expect(transport.count == 1)
            // Cached until five minutes before expiry, then fetched again.
            clock.advance(by: 3600 - 301)
            _ = try await credential.accessToken()
            #expect(transport.count == 1)
            clock.advance(by: 2)
            _ = try await credential.accessToken()
            #expect(transport.count == 2)
        }
    }

    @Test func theTokenEndpointChecksTheAssertion() async throws {
        let emulator = try IdentityToolkitEmulator(
            configuration: EmulatorConfiguration(port: 0, projectID: "demo-admin"))
        try await emulator.serving { running in
            let tokenURI = "\(running.baseURL)/oauth2.googleapis.com/token"
            let trusted = try KeyFile(tokenURI: tokenURI)
            let impostor = try KeyFile(tokenURI: tokenURI)
            var register = HTTPRequest(
                method: .post, scheme: nil, authority: nil, path: nil, headerFields: [.authorization: "Bearer owner"])
            register.url = URL(string: "\(running.baseURL)/emulator/v1/serviceAccounts")
            _ = try await AsyncHTTPClientTransport().send(
                register,
                body: try JSONSerialization.data(withJSONObject: [
                    "clientEmail": trusted.email, "publicKeyPem": trusted.key.publicKey.pemRepresentation,
                ]),
                options: TransportOptions(timeout: .seconds(30), maxResponseBytes: 1 << 20))
            // Same issuer, another key: the signature check fails.
            let forged = try ServiceAccountCredential(json: impostor.json, transport: AsyncHTTPClientTransport())
            do {
                _ = try await forged.accessToken()
                Issue.record("a forged assertion was accepted")
            } catch let error as AdminError {
                #expect(error.code == .tokenEndpointRefused)
                #expect(error.detail == "HTTP 400, invalid_grant: Invalid JWT Signature.")
                #expect(!"\(error)".contains("PRIVATE KEY"))
            }
            // An unknown issuer.
            let stranger = try ServiceAccountCredential(
                json: try KeyFile(email: "other@x.iam.gserviceaccount.com", tokenURI: tokenURI).json,
                transport: AsyncHTTPClientTransport())
            let unknownIssuer = await #expect(throws: AdminError.self) { try await stranger.accessToken() }
            #expect(unknownIssuer?.code == .tokenEndpointRefused)
            #expect(unknownIssuer?.detail == "HTTP 400, invalid_grant: unknown issuer other@x.iam.gserviceaccount.com")
            // An assertion from a skewed clock (issued two hours ago) is refused.
            let skewed = try ServiceAccountCredential(
                json: trusted.json, transport: AsyncHTTPClientTransport(), now: { Date().addingTimeInterval(-7200) })
            let skew = await #expect(throws: AdminError.self) { try await skewed.accessToken() }
            #expect(skew?.code == .tokenEndpointRefused)
            let good = try ServiceAccountCredential(json: trusted.json, transport: AsyncHTTPClientTransport())
            #expect(try await good.accessToken().hasPrefix("emulator-"))
        }
    }

    @Test func keyFileErrors() throws {
        let unreadable = #expect(throws: AdminValidationError.self) {
            try ServiceAccountCredential(keyFile: "/nonexistent/key.json")
        }
        #expect(unreadable?.field == "/nonexistent/key.json")
        #expect(unreadable?.message.hasPrefix("cannot be read as a service account key file: ") == true)
        let endless = #expect(throws: AdminValidationError.self) {
            try ServiceAccountCredential(keyFile: "/dev/zero")
        }
        #expect(endless?.message == "holds more than 1 MiB: it is not a service account key file")
        let notJSON = #expect(throws: AdminValidationError.self) {
            try ServiceAccountCredential(json: Data("not json".utf8))
        }
        #expect(
            notJSON?.description
                == #""keyFile" is not a service account key: expected JSON with type, client_email and private_key"#)
        let badKey = try JSONSerialization.data(withJSONObject: [
            "type": "service_account", "client_email": "a@b",
            "private_key": "-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----\n",
        ])
        let notRSA = #expect(throws: AdminValidationError.self) { try ServiceAccountCredential(json: badKey) }
        #expect(notRSA?.message == "has a private_key that is not an RSA private key in PEM form")
        let user = try JSONSerialization.data(withJSONObject: ["type": "authorized_user", "client_email": "a@b"])
        let notServiceAccount = #expect(throws: AdminValidationError.self) { try ServiceAccountCredential(json: user) }
        #expect(notServiceAccount?.message == #"has type "authorized_user", not "service_account""#)
        let unset = #expect(throws: AdminValidationError.self) {
            try ServiceAccountCredential.applicationDefault(environment: [:])
        }
        #expect(unset?.field == "GOOGLE_APPLICATION_CREDENTIALS")
    }

    /// The README's line, `IdentityAdmin(projectID:credential: ApplicationDefaultCredential())`:
    /// in emulator mode nothing asks for the key, so no key is needed; in
    /// production the missing variable is reported with what to do; with a
    /// key file, the account is read once and signs custom tokens.
    @Test func theApplicationDefaultCredentialIsReadOnlyWhenNeeded() async throws {
        try await EmulatorSetup.with(project: "demo-adc") { setup in
            let noKey = ApplicationDefaultCredential(environment: [:])
            let emulated = IdentityAdmin(projectID: "demo-adc", credential: noKey, configuration: setup.configuration)
            _ = try await emulated.projectConfigManager().getProjectConfig()
            #expect(try emulated.createCustomToken(uid: "u1").hasSuffix(".")) // unsigned, as the emulator takes it

            let production = IdentityAdmin(projectID: "my-project", credential: noKey)
            do {
                _ = try await production.projectConfigManager().getProjectConfig()
                Issue.record("a call without a credential succeeded")
            } catch {
                let text = "\(error)"
                #expect(
                    text.contains(#""GOOGLE_APPLICATION_CREDENTIALS" is not set"#) && text.contains("Service accounts")
                        && text.contains("IdentityAdmin.emulator"), "\(text)")
            }
            let unsigned = #expect(throws: AdminValidationError.self) {
                _ = try production.createCustomToken(uid: "u1")
            }
            #expect(unsigned?.field == "GOOGLE_APPLICATION_CREDENTIALS")

            let file = try KeyFile(tokenURI: "https://oauth2.googleapis.com/token")
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("adc-\(UUID().uuidString).json")
            try file.json.write(to: path)
            defer { try? FileManager.default.removeItem(at: path) }
            let withKey = ApplicationDefaultCredential(environment: ["GOOGLE_APPLICATION_CREDENTIALS": path.path])
            #expect(try withKey.serviceAccount() === withKey.serviceAccount())
            let signed = try IdentityAdmin(projectID: "demo-admin", credential: withKey).createCustomToken(uid: "u1")
            // Signed with the key file's account (an unsigned token ends with an empty signature).
            #expect(signed.split(separator: ".", omittingEmptySubsequences: false).last?.isEmpty == false)
        }
    }

    @Test func theAssertionCarriesTheRequiredClaims() throws {
        let file = try KeyFile(tokenURI: "https://oauth2.googleapis.com/token")
        let credential = try ServiceAccountCredential(
            json: file.json, now: { Date(timeIntervalSince1970: 1_700_000_000) })
        let parts = try credential.assertion().split(separator: ".").map(String.init)
        func decode(_ part: String) throws -> [String: Any] {
            var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while base64.count % 4 != 0 { base64 += "=" }
            let data = try #require(Data(base64Encoded: base64))
            return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        }
        let header = try decode(parts[0])
        #expect(header["alg"] as? String == "RS256")
        #expect(header["typ"] as? String == "JWT")
        #expect(header["kid"] as? String == "key-1")
        let claims = try decode(parts[1])
        #expect(claims["iss"] as? String == file.email)
        #expect(claims["scope"] as? String == "https://www.googleapis.com/auth/cloud-platform")
        #expect(claims["aud"] as? String == "https://oauth2.googleapis.com/token")
        #expect(claims["iat"] as? Int == 1_700_000_000)
        #expect(claims["exp"] as? Int == 1_700_003_600)
    }
}

/// Credentials never show a key or a token in any rendering.
@Suite struct CredentialRenderingTests {
    static func renderings(of value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        return [String(describing: value), "\(value)", String(reflecting: value), dumped]
    }

    @Test func noKeyOrTokenInAnyRendering() async throws {
        let marker = "TOKEN-MARKER-91c2"
        for text in Self.renderings(of: StaticAccessTokenCredential(token: marker)) {
            #expect(!text.contains(marker), "\(text)")
        }
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let json = try JSONSerialization.data(withJSONObject: [
            "type": "service_account", "client_email": "sa@example.iam.gserviceaccount.com",
            "private_key": key.pemRepresentation,
            "private_key_id": "kid", "project_id": "p",
        ])
        let credential = try ServiceAccountCredential(json: json)
        let keyLine = String(key.pemRepresentation.split(separator: "\n")[1])
        for text in Self.renderings(of: credential) {
            #expect(!text.contains("PRIVATE KEY") && !text.contains(keyLine), "\(text)")
        }
    }
}
