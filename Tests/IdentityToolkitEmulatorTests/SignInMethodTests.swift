import Foundation
import HTTPTypes
import IdentityToolkit
import Testing

/// The sign-in methods and routes beyond password and TOTP, as Google's
/// emulator and production have them: phone numbers, email links, IdPs,
/// password resets by code, `createAuthUri`, self-deletion, the legacy v3
/// paths, and the rules every end-user route shares (API keys, admins on
/// the plain paths).
@Suite struct SignInMethodTests {
    static let json: HTTPFields = [.contentType: "application/json"]
    static let ownerJSON: HTTPFields = [.authorization: "bEArEr OWNER", .contentType: "application/json"]

    @Test func endUserRoutesNeedAnAPIKeyUnlessAnAdminCalls() async throws {
        try await withEmulator { h in
            let missing = try await h.raw(
                .post, "/identitytoolkit.googleapis.com/v1/accounts:signUp", body: Data("{}".utf8), headers: Self.json)
            #expect(
                missing.status == 403
                    && (missing.json["error"] as? [String: Any])?["status"] as? String == "PERMISSION_DENIED")
            // A key in the query, read once for the check and the route; an empty one is no key.
            for (query, status) in [("?key=", 403), ("?key=k&key=", 200), ("?other=1&key=k", 200)] {
                let answer = try await h.raw(
                    .post, "/identitytoolkit.googleapis.com/v1/accounts:signUp\(query)", body: Data("{}".utf8),
                    headers: Self.json)
                #expect(answer.status == status, "\(query)")
            }
            var header = Self.json
            header[HTTPField.Name("x-goog-api-key")!] = "any"
            #expect(
                try await h.raw(
                    .post, "/identitytoolkit.googleapis.com/v1/accounts:signUp", body: Data("{}".utf8), headers: header
                ).status == 200)
            // An admin (any letter case of 'Bearer owner') looks an account up by uid on the plain path, and may name the project.
            let created = try await h.admin.createAccount(
                targetProjectId: Harness.project, body: SignUpRequest(email: "a@example.com", localId: "u-1"))
            let found = try await h.raw(
                .post, "/identitytoolkit.googleapis.com/v1/accounts:lookup", body: Data(#"{"localId":["u-1"]}"#.utf8),
                headers: Self.ownerJSON)
            #expect((found.json["users"] as? [[String: Any]])?.first?["localId"] as? String == created.localId)
            // A user may not name a project.
            await expectServerError("INSUFFICIENT_PERMISSION") {
                try await h.accounts.signUp(SignUpRequest(returnSecureToken: true, targetProjectId: "other"))
            }
        }
    }

    @Test func phoneNumbersSignInAndUp() async throws {
        try await withEmulator { h in
            let sent = try await h.accounts.sendVerificationCode(
                SendVerificationCodeRequest(phoneNumber: "+15555550100"))
            let sessionInfo = try #require(sent.sessionInfo)
            let code = try #require(try await h.verificationCodes().last { $0["sessionInfo"] == sessionInfo }?["code"])
            await expectServerError("INVALID_CODE") {
                try await h.accounts.signInWithPhoneNumber(
                    SignInWithPhoneNumberRequest(sessionInfo: sessionInfo, code: "000000" == code ? "111111" : "000000")
                )
            }
            let first = try await h.accounts.signInWithPhoneNumber(
                SignInWithPhoneNumberRequest(sessionInfo: sessionInfo, code: code))
            #expect(first.isNewUser == true && first.phoneNumber == "+15555550100" && first.idToken != nil)
            let claims = try jwtClaims(try #require(first.idToken))
            #expect((claims["firebase"] as? [String: Any])?["sign_in_provider"] as? String == "phone")
            let again = try await h.accounts.sendVerificationCode(
                SendVerificationCodeRequest(phoneNumber: "+15555550100"))
            let againCode = try #require(
                try await h.verificationCodes().last { $0["sessionInfo"] == again.sessionInfo }?["code"])
            let second = try await h.accounts.signInWithPhoneNumber(
                SignInWithPhoneNumberRequest(sessionInfo: again.sessionInfo, code: againCode))
            #expect(second.isNewUser == false && second.localId == first.localId)
            await expectServerError("INVALID_PHONE_NUMBER") {
                try await h.accounts.sendVerificationCode(SendVerificationCodeRequest(phoneNumber: "5555550100"))
            }
        }
    }

    @Test func emailLinksSignInAndUpWithAVerifiedAddress() async throws {
        try await withEmulator { h in
            _ = try await h.accounts.sendOobCode(GetOobCodeRequest(requestType: .emailSignin, email: "New@Example.com"))
            let code = try #require(try await h.oobCodes().last { $0["requestType"] == "EMAIL_SIGNIN" }?["oobCode"])
            await expectServerError("INVALID_EMAIL") {
                try await h.accounts.signInWithEmailLink(
                    SignInWithEmailLinkRequest(email: "other@example.com", oobCode: code))
            }
            let signedIn = try await h.accounts.signInWithEmailLink(
                SignInWithEmailLinkRequest(email: "new@example.com", oobCode: code))
            #expect(signedIn.isNewUser == true && signedIn.email == "new@example.com")
            let idToken = try #require(signedIn.idToken)
            let user = try #require(try await h.accounts.lookup(GetAccountInfoRequest(idToken: idToken)).users?.first)
            #expect(user.emailVerified == true && user.emailLinkSignin == true)
            // A code works once.
            await expectServerError("INVALID_OOB_CODE") {
                try await h.accounts.signInWithEmailLink(
                    SignInWithEmailLinkRequest(email: "new@example.com", oobCode: code))
            }
        }
    }

    @Test func identityProvidersSignInLinkAndAskForConfirmation() async throws {
        try await withEmulator { h in
            func idp(_ claims: String) -> SignInWithIdpRequest {
                var form = URLComponents()
                form.queryItems = [
                    URLQueryItem(name: "providerId", value: "google.com"),
                    URLQueryItem(name: "id_token", value: claims),
                ]
                return SignInWithIdpRequest(
                    requestUri: "http://localhost", postBody: form.percentEncodedQuery, returnSecureToken: true)
            }
            let first = try await h.accounts.signInWithIdp(
                idp(#"{"sub":"g-1","email":"g@example.com","email_verified":true,"name":"G"}"#))
            #expect(first.isNewUser == true && first.email == "g@example.com" && first.idToken != nil)
            let again = try await h.accounts.signInWithIdp(idp(#"{"sub":"g-1"}"#))
            #expect(again.localId == first.localId && again.isNewUser == false)
            let idToken = try #require(again.idToken)
            let user = try #require(try await h.accounts.lookup(GetAccountInfoRequest(idToken: idToken)).users?.first)
            #expect(user.providerUserInfo?.contains { $0.providerId == "google.com" && $0.rawId == "g-1" } == true)
            // An unverified address another account holds: confirm first.
            _ = try await h.accounts.signUp(SignUpRequest(email: "taken@example.com", password: "secret-pw"))
            let confirm = try await h.accounts.signInWithIdp(idp(#"{"sub":"g-2","email":"taken@example.com"}"#))
            #expect(confirm.needConfirmation == true && confirm.idToken == nil)
            await expectServerError("INVALID_IDP_RESPONSE") {
                try await h.accounts.signInWithIdp(idp(#"{"email":"x@example.com"}"#))
            }
        }
    }

    /// What an IdP sign-in answers and keeps, as production and Google's
    /// emulator: google.com's `federatedId` under Google's issuer and its
    /// userinfo-shaped `rawUserInfo`, the `screen_name` as `screenName`, a
    /// real token whose signature was blanked out read all the same (the
    /// emulator checks no IdP signature), and a SAML response's name id
    /// and attribute statements, refused without them.
    @Test func identityProviderAnswersAsGoogleDoes() async throws {
        try await withEmulator { h in
            func idp(_ provider: String, _ fields: [(String, String)]) -> SignInWithIdpRequest {
                var form = URLComponents()
                form.queryItems =
                    [URLQueryItem(name: "providerId", value: provider)]
                    + fields.map { URLQueryItem(name: $0.0, value: $0.1) }
                return SignInWithIdpRequest(
                    requestUri: "http://localhost", postBody: form.percentEncodedQuery, returnSecureToken: true)
            }
            let claims =
                #"{"sub":"g-100","email":"g100@example.com","email_verified":true,"name":"Ada L","given_name":"Ada","family_name":"L","screen_name":"ada-l"}"#
            // A JWT whose signature is 343 zeros: not canonical base64url, never checked.
            let payload = Data(claims.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            let blanked = "eyJhbGciOiJSUzI1NiJ9." + payload + "." + String(repeating: "0", count: 343)
            let google = try await h.accounts.signInWithIdp(idp("google.com", [("id_token", blanked)]))
            #expect(google.federatedId == "https://accounts.google.com/g-100")
            #expect(
                google.fullName == "Ada L" && google.firstName == "Ada" && google.lastName == "L"
                    && google.screenName == "ada-l")
            let raw = try #require(
                try JSONSerialization.jsonObject(with: Data((google.rawUserInfo ?? "").utf8)) as? [String: Any])
            #expect(
                raw["id"] as? String == "g-100" && raw["verified_email"] as? Bool == true
                    && raw["locale"] as? String == "en")
            #expect(raw["given_name"] as? String == "Ada" && raw["family_name"] as? String == "L")
            // Keys in order and slashes as they are, as Google's emulator writes it: the same bytes each time.
            let canonical = try JSONSerialization.data(
                withJSONObject: raw, options: [.sortedKeys, .withoutEscapingSlashes])
            #expect(google.rawUserInfo == String(decoding: canonical, as: UTF8.self))
            #expect(
                (raw["granted_scopes"] as? String)?.split(separator: " ").contains(
                    "https://www.googleapis.com/auth/userinfo.email") == true)
            let googleIDToken = try #require(google.idToken)
            let user = try #require(
                try await h.accounts.lookup(GetAccountInfoRequest(idToken: googleIDToken)).users?.first)
            #expect(
                user.screenName == "ada-l"
                    && user.providerUserInfo?.first { $0.providerId == "google.com" }?.screenName == "ada-l")
            #expect(
                user.providerUserInfo?.first { $0.providerId == "google.com" }?.federatedId
                    == "https://accounts.google.com/g-100")
            let noEmail = try await h.accounts.signInWithIdp(idp("google.com", [("id_token", #"{"sub":"g-102"}"#)]))
            #expect(noEmail.rawUserInfo?.contains("userinfo.email") == false)
            await expectServerError("INVALID_ARGUMENT") {
                try await h.accounts.signInWithIdp(
                    idp("google.com", [("id_token", #"{"sub":"g-101","screen_name":"a\u0000b"}"#)]))
            }
            // SAML: the response's subject names the address; its attributes are the profile.
            let token = #"{"sub":"s-1","email":"first@example.com","email_verified":true}"#
            for broken in [#"{}"#, #"{"assertion":{}}"#, #"{"assertion":{"subject":{}}}"#, "not json"] {
                await expectServerError("INVALID_IDP_RESPONSE") {
                    try await h.accounts.signInWithIdp(
                        idp("saml.acme", [("id_token", token), ("SAMLResponse", broken)]))
                }
            }
            let response =
                #"{"assertion":{"subject":{"nameId":"Named@example.com"},"attributeStatements":{"name":"Jane","mail":"x@example.com"}}}"#
            let saml = try await h.accounts.signInWithIdp(
                idp("saml.acme", [("id_token", token), ("SAMLResponse", response)]))
            #expect(saml.email == "Named@example.com" && saml.federatedId == "s-1")
            let attributes =
                try JSONSerialization.jsonObject(with: Data((saml.rawUserInfo ?? "").utf8)) as? [String: String]
            #expect(attributes == ["name": "Jane", "mail": "x@example.com"])
            let samlToken = try #require(saml.idToken)
            let samlPayload = String(samlToken.split(separator: ".")[1])
            let padded =
                samlPayload.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
                + String(repeating: "=", count: (4 - samlPayload.count % 4) % 4)
            let payloadData = try #require(Data(base64Encoded: padded))
            let idClaims = try #require(try JSONSerialization.jsonObject(with: payloadData) as? [String: Any])
            #expect(
                (idClaims["firebase"] as? [String: Any])?["sign_in_attributes"] as? [String: String] == [
                    "name": "Jane", "mail": "x@example.com",
                ])
        }
    }

    /// `returnIdpCredential` answers a linking conflict with a 200 and
    /// `errorMessage` (the credential comes back, to link elsewhere); a
    /// disabled user is still refused outright, as in production.
    @Test func returnIdpCredentialReturnsOnlyLinkingConflicts() async throws {
        try await withEmulator { h in
            func idp(_ claims: String, idToken: String? = nil) -> SignInWithIdpRequest {
                var form = URLComponents()
                form.queryItems = [
                    URLQueryItem(name: "providerId", value: "google.com"),
                    URLQueryItem(name: "id_token", value: claims),
                ]
                return SignInWithIdpRequest(
                    requestUri: "http://localhost", postBody: form.percentEncodedQuery, returnSecureToken: true,
                    returnIdpCredential: true, idToken: idToken)
            }
            let owner = try await h.accounts.signInWithIdp(idp(#"{"sub":"g-7"}"#))
            let other = try await h.accounts.signUp(SignUpRequest(returnSecureToken: true))
            let conflict = try await h.accounts.signInWithIdp(idp(#"{"sub":"g-7"}"#, idToken: other.idToken))
            #expect(
                conflict.errorMessage == "FEDERATED_USER_ID_ALREADY_LINKED" && conflict.idToken == nil
                    && conflict.oauthIdToken != nil)
            _ = try await h.admin.updateAccount(
                targetProjectId: Harness.project, body: SetAccountInfoRequest(localId: owner.localId, disableUser: true)
            )
            await expectServerError("USER_DISABLED") { try await h.accounts.signInWithIdp(idp(#"{"sub":"g-7"}"#)) }
        }
    }

    /// `createAuthUri` as production answers it: the caller's `sessionId`
    /// comes back, an address that only a linked provider has finds its
    /// account, and where addresses may repeat no IdP method is offered.
    /// `recaptchaParams` answers fake parameters for web phone sign-in.
    @Test func createAuthUriFindsProviderAddressesAndEchoesTheSession() async throws {
        try await withEmulator { h in
            _ = try await h.raw(
                .patch, "/emulator/v1/projects/\(Harness.project)/config",
                body: Data(#"{"emailPrivacyConfig":{"enableImprovedEmailPrivacy":false}}"#.utf8),
                headers: Self.ownerJSON)
            let unknown = try await h.accounts.createAuthUri(
                CreateAuthUriRequest(
                    identifier: "nobody@example.com", continueUri: "http://localhost",
                    sessionId: "my-session-1"))
            #expect(unknown.registered == false && unknown.sessionId == "my-session-1")
            var form = URLComponents()
            form.queryItems = [
                URLQueryItem(name: "providerId", value: "google.com"),
                URLQueryItem(name: "id_token", value: #"{"sub":"g-42","email":"alice@example.com"}"#),
            ]
            let google = try await h.accounts.signInWithIdp(
                SignInWithIdpRequest(
                    requestUri: "http://localhost", postBody: form.percentEncodedQuery,
                    returnSecureToken: true))
            _ = try await h.accounts.update(
                SetAccountInfoRequest(
                    idToken: google.idToken, email: "bob@example.com",
                    password: "secret-pw"))
            for address in ["bob@example.com", "alice@example.com"] {
                let found = try await h.accounts.createAuthUri(
                    CreateAuthUriRequest(identifier: address, continueUri: "http://localhost"))
                #expect(
                    found.registered == true && Set(found.signinMethods ?? []) == ["password", "google.com"],
                    "\(address)")
            }
            _ = try await h.raw(
                .patch, "/emulator/v1/projects/\(Harness.project)/config",
                body: Data(#"{"signIn":{"allowDuplicateEmails":true}}"#.utf8), headers: Self.ownerJSON)
            let duplicates = try await h.accounts.createAuthUri(
                CreateAuthUriRequest(identifier: "alice@example.com", continueUri: "http://localhost"))
            #expect(
                duplicates.registered == true && duplicates.signinMethods == ["password"]
                    && duplicates.allProviders == ["password"])
            let params = try await h.accounts.getRecaptchaParams()
            #expect(params.recaptchaSiteKey?.isEmpty == false && params.recaptchaStoken?.isEmpty == false)
        }
    }

    @Test func createAuthUriResetPasswordAndSelfDeletion() async throws {
        try await withEmulator { h in
            let created = try await h.accounts.signUp(
                SignUpRequest(email: "ada@example.com", password: "secret-pw", returnSecureToken: true))
            // Under improved email privacy (the default) nothing is told; without it, the methods.
            let hidden = try await h.accounts.createAuthUri(
                CreateAuthUriRequest(identifier: "ada@example.com", continueUri: "http://localhost"))
            #expect(hidden.registered == nil && hidden.signinMethods == nil)
            _ = try await h.raw(
                .patch, "/emulator/v1/projects/\(Harness.project)/config",
                body: Data(#"{"emailPrivacyConfig":{"enableImprovedEmailPrivacy":false}}"#.utf8),
                headers: Self.ownerJSON)
            let told = try await h.accounts.createAuthUri(
                CreateAuthUriRequest(identifier: "ada@example.com", continueUri: "http://localhost"))
            #expect(told.registered == true && told.signinMethods == ["password"])
            await expectServerError("INVALID_CONTINUE_URI") {
                try await h.accounts.createAuthUri(
                    CreateAuthUriRequest(identifier: "ada@example.com", continueUri: "not a uri"))
            }
            _ = try await h.accounts.sendOobCode(
                GetOobCodeRequest(requestType: .passwordReset, email: "ada@example.com"))
            let code = try #require(try await h.oobCodes().last?["oobCode"])
            let looked = try await h.accounts.resetPassword(ResetPasswordRequest(oobCode: code))
            #expect(looked.requestType == .passwordReset && looked.email == "ada@example.com")
            h.clock.advance(by: 1) // tokens count in whole seconds
            _ = try await h.accounts.resetPassword(ResetPasswordRequest(oobCode: code, newPassword: "new-secret"))
            // The reset ended the earlier session.
            await expectServerError("TOKEN_EXPIRED") {
                try await h.accounts.lookup(GetAccountInfoRequest(idToken: created.idToken))
            }
            let signedIn = try await h.accounts.signInWithPassword(
                SignInWithPasswordRequest(email: "ada@example.com", password: "new-secret"))
            _ = try await h.accounts.deleteOwnAccount(DeleteAccountRequest(idToken: signedIn.idToken))
            await expectServerError("EMAIL_NOT_FOUND") {
                try await h.accounts.signInWithPassword(
                    SignInWithPasswordRequest(email: "ada@example.com", password: "new-secret"))
            }
        }
    }

    /// The legacy v3 paths older SDKs call, enum numbers as Android's SDK
    /// sends them, the status root.
    @Test func legacyPathsNumbersAndTheRoot() async throws {
        try await withEmulator { h in
            let signUp = try await h.raw(
                .post, "/www.googleapis.com/identitytoolkit/v3/relyingparty/signupNewUser?key=k",
                body: Data(#"{"email":"v3@example.com","password":"secret-pw"}"#.utf8), headers: Self.json)
            #expect(signUp.status == 200)
            let listed = try await h.raw(
                .post, "/www.googleapis.com/identitytoolkit/v3/relyingparty/downloadAccount",
                body: Data(#"{"targetProjectId":"\#(Harness.project)"}"#.utf8), headers: Self.ownerJSON)
            #expect((listed.json["users"] as? [[String: Any]])?.first?["email"] as? String == "v3@example.com")
            let noProject = try await h.raw(
                .post, "/www.googleapis.com/identitytoolkit/v3/relyingparty/downloadAccount", body: Data("{}".utf8),
                headers: Self.ownerJSON)
            #expect(noProject.errorMessage == "INSUFFICIENT_PERMISSION")
            // v3 uploadAccount: v1's import body with the project added, as Google's emulator reads it.
            let uploaded = try await h.raw(
                .post, "/www.googleapis.com/identitytoolkit/v3/relyingparty/uploadAccount",
                body: Data(
                    #"{"targetProjectId":"\#(Harness.project)","users":[{"localId":"v3-imported","email":"imported@example.com"}]}"#
                        .utf8),
                headers: Self.ownerJSON)
            #expect(uploaded.status == 200 && (uploaded.json["error"] as? [Any])?.isEmpty == true, "\(uploaded.json)")
            let imported = try await h.admin.lookupAccounts(
                targetProjectId: Harness.project, body: GetAccountInfoRequest(localId: ["v3-imported"]))
            #expect(imported.users?.first?.email == "imported@example.com")
            let uploadNoProject = try await h.raw(
                .post, "/www.googleapis.com/identitytoolkit/v3/relyingparty/uploadAccount",
                body: Data(#"{"users":[{"localId":"v3-other"}]}"#.utf8), headers: Self.ownerJSON)
            #expect(uploadNoProject.errorMessage == "INSUFFICIENT_PERMISSION")
            // requestType 6 is EMAIL_SIGNIN.
            let numbered = try await h.raw(
                .post, "/identitytoolkit.googleapis.com/v1/accounts:sendOobCode",
                body: Data(#"{"email":"n@example.com","requestType":6,"returnOobLink":true}"#.utf8),
                headers: Self.ownerJSON)
            #expect((numbered.json["oobLink"] as? String)?.contains("mode=signIn") == true)
            let root = try await h.raw(.get, "/")
            #expect((root.json["authEmulator"] as? [String: Any])?["ready"] as? Bool == true)
            // The project API-key calls act on, for apps that must agree with it.
            #expect((root.json["authEmulator"] as? [String: Any])?["projectId"] as? String == Harness.project)
        }
    }

    /// An admin creates a user with phone factors as Google's `MfaFactor`
    /// (a name and a number): the server gives each its id and enrolment
    /// time; an id, a time or a TOTP secret in the body is not part of that
    /// type, and a factor without a number is refused as Google's emulator
    /// refuses it.
    @Test func adminCreatesUsersWithPhoneFactorsOnly() async throws {
        try await withEmulator { h in
            let created = try await h.admin.createAccount(
                targetProjectId: Harness.project,
                body: SignUpRequest(
                    email: "phones@example.com", password: "secret-pw",
                    mfaInfo: [MfaFactor(displayName: "work", phoneInfo: "+15555550142")]))
            let user = try #require(
                try await h.admin.lookupAccounts(
                    targetProjectId: Harness.project,
                    body: GetAccountInfoRequest(localId: [created.localId])
                ).users?.first)
            let factor = try #require(user.mfaInfo?.first)
            #expect(user.mfaInfo?.count == 1 && factor.displayName == "work" && factor.phoneInfo == "+15555550142")
            #expect(
                factor.mfaEnrollmentId?.isEmpty == false
                    && factor.enrolledAt.map { abs($0.timeIntervalSince(h.clock.now)) < 60 } == true)
            let smuggled = try await h.raw(
                .post, "/identitytoolkit.googleapis.com/v1/projects/\(Harness.project)/accounts",
                body: Data(
                    #"{"email":"totp@example.com","password":"secret-pw","mfaInfo":[{"mfaEnrollmentId":"chosen","enrolledAt":"2001-01-01T00:00:00Z","totpInfo":{}}]}"#
                        .utf8),
                headers: Self.ownerJSON)
            #expect(smuggled.errorMessage == "INVALID_MFA_PHONE_NUMBER : Invalid format.")
        }
    }

    @Test func projectConfigFieldsAndBlockingFunctions() async throws {
        try await withEmulator { h in
            let config = try await h.admin.updateProjectConfig(
                project: Harness.project, updateMask: "signIn.allowDuplicateEmails",
                body: ProjectConfig(signIn: SignInConfig(allowDuplicateEmails: true)))
            #expect(config.signIn?.allowDuplicateEmails == true && config.blockingFunctions != nil)
            await expectServerError("INVALID_BLOCKING_FUNCTION") {
                try await h.admin.updateProjectConfig(
                    project: Harness.project, updateMask: "blockingFunctions",
                    body: ProjectConfig(
                        blockingFunctions: BlockingFunctionsConfig(triggers: ["beforeLunch": BlockingFunctionTrigger()])
                    ))
            }
            // Google's shape: a trigger by event name, read back typed.
            let uri = "https://us-central1-demo.cloudfunctions.net/beforeCreate"
            let triggered = try await h.admin.updateProjectConfig(
                project: Harness.project, updateMask: "blockingFunctions.triggers",
                body: ProjectConfig(
                    blockingFunctions: BlockingFunctionsConfig(triggers: [
                        "beforeCreate": BlockingFunctionTrigger(functionUri: uri)
                    ])))
            #expect(triggered.blockingFunctions?.triggers?["beforeCreate"]?.functionUri == uri)
            // No mask: every field replaced, an absent one by its default.
            let reset = try await h.raw(
                .patch, "/identitytoolkit.googleapis.com/v2/projects/\(Harness.project)/config", body: Data("{}".utf8),
                headers: Self.ownerJSON)
            #expect((reset.json["signIn"] as? [String: Any])?["allowDuplicateEmails"] as? Bool == false)
            // A new tenant's switches are off, as production's.
            let tenant = try await h.admin.createTenant(project: Harness.project, body: Tenant(displayName: "Shop"))
            // Production's Tenant is named by its resource name; the emulator
            // also answers `tenantId`, as Google's emulator does (its suites read it).
            let tenantID = try #require(tenant.name?.split(separator: "/").last.map(String.init))
            #expect(
                tenant.allowPasswordSignup == false && tenant.enableAnonymousUser == false
                    && tenant.name == "projects/\(Harness.project)/tenants/\(tenantID)")
            let listed = try await h.raw(
                .get, "/identitytoolkit.googleapis.com/v2/projects/\(Harness.project)/tenants/\(tenantID)",
                headers: Self.ownerJSON)
            #expect(listed.json["name"] as? String == tenant.name && listed.json["tenantId"] as? String == tenantID)
            let page = try await h.raw(
                .get, "/identitytoolkit.googleapis.com/v2/projects/\(Harness.project)/tenants", headers: Self.ownerJSON)
            #expect(
                (page.json["tenants"] as? [[String: Any]])?.contains { $0["tenantId"] as? String == tenantID } == true)
            let patched = try await h.raw(
                .patch,
                "/identitytoolkit.googleapis.com/v2/projects/\(Harness.project)/tenants/\(tenantID)?updateMask=displayName",
                body: Data(#"{"displayName": "Shop 2"}"#.utf8), headers: Self.ownerJSON)
            #expect(
                patched.json["tenantId"] as? String == tenantID && patched.json["displayName"] as? String == "Shop 2")
            await expectServerError("OPERATION_NOT_ALLOWED") {
                try await h.accounts.signUp(
                    SignUpRequest(email: "t@example.com", password: "secret-pw", tenantId: tenantID))
            }
        }
    }
}
