import Foundation
import IdentitySupport
import IdentityToolkit
import IdentityToolkitEmulator
import Testing

/// Passkeys as Google's emulator serves them (the credential id stands for
/// the authenticator), and what the emulator checks beyond: a response's
/// client data must name an unused challenge of the same ceremony.
@Suite struct PasskeyTests {
    private static func registration(_ id: String, clientData: String? = nil) -> AuthenticatorRegistrationResponse {
        AuthenticatorRegistrationResponse(
            id: id, response: clientData.map { AuthenticatorAttestationResponse(clientDataJSON: $0) })
    }

    private static func assertion(_ id: String, clientData: String? = nil) -> AuthenticatorAuthenticationResponse {
        AuthenticatorAuthenticationResponse(
            id: id, response: clientData.map { AuthenticatorAssertionResponse(clientDataJSON: $0) })
    }

    /// WebAuthn client data naming `challengeBytes` (base64url), as an
    /// authenticator's client writes it.
    private static func clientData(_ type: String, challengeBytes: Data) -> String {
        Data(#"{"type":"\#(type)","challenge":"\#(challengeBytes.base64URLEncoded)","origin":"http://localhost"}"#.utf8)
            .base64URLEncoded
    }

    /// A web client decodes the challenge's text to bytes.
    private static func webClientData(_ type: String, challenge: String) throws -> String {
        clientData(type, challengeBytes: try #require(Data(lenientBase64URLEncoded: challenge)))
    }

    @Test func aPasskeyEnrollsSignsInAndIsRemoved() async throws {
        try await withEmulator { h in
            let session = try await h.verifiedUser("pia@example.com")
            let started = try await h.accounts.startPasskeyEnrollment(
                StartPasskeyEnrollmentRequest(idToken: session.idToken))
            let options = try #require(started.credentialCreationOptions)
            #expect(
                options.rp?.id == "localhost" && options.challenge?.isEmpty == false && options.attestation == "none")
            #expect(
                options.user?.id == Data(session.uid.utf8).base64EncodedString()
                    && options.user?.name == "pia@example.com")
            #expect(options.pubKeyCredParams?.compactMap(\.alg) == [-7, -257] && options.excludeCredentials == nil)

            let enrolled = try await h.accounts.finalizePasskeyEnrollment(
                FinalizePasskeyEnrollmentRequest(
                    idToken: session.idToken, authenticatorRegistrationResponse: Self.registration("cred-A"),
                    name: "Laptop"))
            #expect(enrolled.localId == session.uid)
            let enrolledClaims = try jwtClaims(try #require(enrolled.idToken))
            #expect((enrolledClaims["firebase"] as? [String: Any])?["sign_in_provider"] as? String == "passkey")
            _ = try await h.accounts.finalizePasskeyEnrollment(
                FinalizePasskeyEnrollmentRequest(
                    idToken: session.idToken, authenticatorRegistrationResponse: Self.registration("cred-B"),
                    displayName: "Phone"))
            var user = try #require(
                try await h.accounts.lookup(GetAccountInfoRequest(idToken: session.idToken)).users?.first)
            #expect(
                user.passkeyInfo?.map(\.credentialId) == ["cred-A", "cred-B"]
                    && user.passkeyInfo?.map(\.name) == ["Laptop", "Phone"])
            let again = try await h.accounts.startPasskeyEnrollment(
                StartPasskeyEnrollmentRequest(idToken: session.idToken))
            #expect(again.credentialCreationOptions?.excludeCredentials?.compactMap(\.id) == ["cred-A", "cred-B"])

            let requestOptions = try #require(
                try await h.accounts.startPasskeySignIn(StartPasskeySignInRequest()).credentialRequestOptions)
            #expect(
                requestOptions.rpId == "localhost" && requestOptions.userVerification == "required"
                    && requestOptions.challenge?.isEmpty == false)
            let signedIn = try await h.accounts.finalizePasskeySignIn(
                FinalizePasskeySignInRequest(
                    authenticatorAuthenticationResponse: Self.assertion("cred-B")))
            let claims = try jwtClaims(try #require(signedIn.idToken))
            #expect(claims["user_id"] as? String == session.uid)
            #expect((claims["firebase"] as? [String: Any])?["sign_in_provider"] as? String == "passkey")
            #expect(signedIn.refreshToken?.isEmpty == false)

            _ = try await h.accounts.update(
                SetAccountInfoRequest(idToken: session.idToken, deletePasskey: ["cred-A", "not-mine"]))
            user = try #require(
                try await h.accounts.lookup(GetAccountInfoRequest(idToken: session.idToken)).users?.first)
            #expect(user.passkeyInfo?.map(\.credentialId) == ["cred-B"])
            await expectServerError("PASSKEY_CREDENTIAL_NOT_FOUND") {
                try await h.accounts.finalizePasskeySignIn(
                    FinalizePasskeySignInRequest(authenticatorAuthenticationResponse: Self.assertion("cred-A")))
            }
            _ = try await h.accounts.update(SetAccountInfoRequest(idToken: session.idToken, deletePasskey: ["cred-B"]))
            user = try #require(
                try await h.accounts.lookup(GetAccountInfoRequest(idToken: session.idToken)).users?.first)
            #expect(user.passkeyInfo == nil)
        }
    }

    /// WebAuthn reads `timeout` as a number: it is one on the wire (an
    /// int64 would be a proto3 string, which schemathesis caught).
    @Test func theOptionsTimeoutIsAJSONNumber() async throws {
        try await withEmulator { h in
            let answer = try await h.raw(
                .post, "/identitytoolkit.googleapis.com/v2/accounts/passkeySignIn:start?key=k", body: Data("{}".utf8),
                headers: [.contentType: "application/json"])
            let options = try #require(answer.json["credentialRequestOptions"] as? [String: Any])
            #expect(options["timeout"] as? Int == 60_000 && !(options["timeout"] is String))
        }
    }

    @Test func aPasskeyIsNamedByItsNameElseTheDisplayNameElseUnnamed() async throws {
        try await withEmulator { h in
            let session = try await h.verifiedUser("names@example.com")
            for (id, name, displayName) in [
                ("n1", "Given", "Display"), ("n2", nil, "Display"), ("n3", nil, nil), ("n4", "", ""),
            ] {
                _ = try await h.accounts.finalizePasskeyEnrollment(
                    FinalizePasskeyEnrollmentRequest(
                        idToken: session.idToken, authenticatorRegistrationResponse: Self.registration(id), name: name,
                        displayName: displayName))
            }
            let user = try #require(
                try await h.accounts.lookup(GetAccountInfoRequest(idToken: session.idToken)).users?.first)
            #expect(user.passkeyInfo?.map(\.name) == ["Given", "Display", "Unnamed Passkey", "Unnamed Passkey"])
        }
    }

    @Test func missingAndBadFieldsAreRefusedInGooglesOrder() async throws {
        try await withEmulator { h in
            let session = try await h.verifiedUser("fields@example.com")
            for body in [#"{}"#, #"{"authenticatorRegistrationResponse":{"id":"x"}}"#] {
                let answer = try await h.raw(
                    .post, "/identitytoolkit.googleapis.com/v2/accounts/passkeyEnrollment:finalize?key=k",
                    body: Data(body.utf8),
                    headers: [.contentType: "application/json"])
                #expect(answer.status == 400 && answer.errorMessage == "MISSING_ID_TOKEN", "\(body)")
            }
            let start = try await h.raw(
                .post, "/identitytoolkit.googleapis.com/v2/accounts/passkeyEnrollment:start?key=k",
                body: Data("{}".utf8),
                headers: [.contentType: "application/json"])
            #expect(start.errorMessage == "MISSING_ID_TOKEN")
            await expectServerError("MISSING_AUTHENTICATOR_RESPONSE") {
                try await h.accounts.finalizePasskeyEnrollment(
                    FinalizePasskeyEnrollmentRequest(idToken: "not-checked-yet"))
            }
            await expectServerError("MISSING_AUTHENTICATOR_RESPONSE") {
                try await h.accounts.finalizePasskeySignIn(FinalizePasskeySignInRequest())
            }
            await expectServerError("INVALID_CREDENTIAL_ID") {
                try await h.accounts.finalizePasskeyEnrollment(
                    FinalizePasskeyEnrollmentRequest(
                        idToken: session.idToken, authenticatorRegistrationResponse: Self.registration("")))
            }
            await expectServerError("INVALID_CREDENTIAL_ID") {
                try await h.accounts.finalizePasskeyEnrollment(
                    FinalizePasskeyEnrollmentRequest(
                        idToken: session.idToken,
                        authenticatorRegistrationResponse: Self.registration(String(repeating: "a", count: 1365))))
            }
            await expectServerError("INVALID_ARGUMENT") {
                try await h.accounts.finalizePasskeyEnrollment(
                    FinalizePasskeyEnrollmentRequest(
                        idToken: session.idToken, authenticatorRegistrationResponse: Self.registration("ctl"),
                        name: "bad\u{7}name"))
            }
            await expectServerError("INVALID_ID_TOKEN") {
                try await h.accounts.finalizePasskeyEnrollment(
                    FinalizePasskeyEnrollmentRequest(
                        idToken: "forged", authenticatorRegistrationResponse: Self.registration("cred")))
            }
        }
    }

    @Test func aCredentialBelongsToOneAccountAndAnAccountHasAtMostTen() async throws {
        try await withEmulator { h in
            let first = try await h.verifiedUser("one@example.com")
            let second = try await h.verifiedUser("two@example.com")
            _ = try await h.accounts.finalizePasskeyEnrollment(
                FinalizePasskeyEnrollmentRequest(
                    idToken: first.idToken, authenticatorRegistrationResponse: Self.registration("shared")))
            for session in [first, second] {
                await expectServerError("CREDENTIAL_ALREADY_IN_USE") {
                    try await h.accounts.finalizePasskeyEnrollment(
                        FinalizePasskeyEnrollmentRequest(
                            idToken: session.idToken, authenticatorRegistrationResponse: Self.registration("shared")))
                }
            }
            for index in 1..<EmulatorLimitsProbe.maximumPasskeys {
                _ = try await h.accounts.finalizePasskeyEnrollment(
                    FinalizePasskeyEnrollmentRequest(
                        idToken: first.idToken, authenticatorRegistrationResponse: Self.registration("k\(index)")))
            }
            await expectServerError("INVALID_ARGUMENT") {
                try await h.accounts.finalizePasskeyEnrollment(
                    FinalizePasskeyEnrollmentRequest(
                        idToken: first.idToken, authenticatorRegistrationResponse: Self.registration("one-too-many")))
            }
            // A deleted account's credential is free again.
            _ = try await h.accounts.deleteOwnAccount(DeleteAccountRequest(idToken: first.idToken))
            _ = try await h.accounts.finalizePasskeyEnrollment(
                FinalizePasskeyEnrollmentRequest(
                    idToken: second.idToken, authenticatorRegistrationResponse: Self.registration("shared")))
        }
    }

    @Test func aDisabledAccountsPasskeyDoesNotSignIn() async throws {
        try await withEmulator { h in
            let session = try await h.verifiedUser("off@example.com")
            _ = try await h.accounts.finalizePasskeyEnrollment(
                FinalizePasskeyEnrollmentRequest(
                    idToken: session.idToken, authenticatorRegistrationResponse: Self.registration("off-key")))
            _ = try await h.admin.updateAccount(
                targetProjectId: Harness.project, body: SetAccountInfoRequest(localId: session.uid, disableUser: true))
            await expectServerError("USER_DISABLED") {
                try await h.accounts.finalizePasskeySignIn(
                    FinalizePasskeySignInRequest(authenticatorAuthenticationResponse: Self.assertion("off-key")))
            }
        }
    }

    /// A passkey of one tenant does not sign in to another, nor to the project.
    @Test func aPasskeyBelongsToItsTenant() async throws {
        try await withEmulator { h in
            let tenant = String(
                try await h.admin.createTenant(
                    project: Harness.project, body: Tenant(displayName: "Shop", allowPasswordSignup: true)
                )
                .name?.split(separator: "/").last ?? "")
            let session = try await h.verifiedUser("tenant@example.com", tenant: tenant)
            _ = try await h.accounts.finalizePasskeyEnrollment(
                FinalizePasskeyEnrollmentRequest(
                    idToken: session.idToken, tenantId: tenant,
                    authenticatorRegistrationResponse: Self.registration("tenant-key")))
            await expectServerError("PASSKEY_CREDENTIAL_NOT_FOUND") {
                try await h.accounts.finalizePasskeySignIn(
                    FinalizePasskeySignInRequest(authenticatorAuthenticationResponse: Self.assertion("tenant-key")))
            }
            let signedIn = try await h.accounts.finalizePasskeySignIn(
                FinalizePasskeySignInRequest(
                    tenantId: tenant, authenticatorAuthenticationResponse: Self.assertion("tenant-key")))
            #expect(
                (try jwtClaims(try #require(signedIn.idToken))["firebase"] as? [String: Any])?["tenant"] as? String
                    == tenant)
        }
    }

    /// Client data, when sent, must name a challenge this emulator gave for
    /// the same ceremony; each works once and lapses after the timeout.
    @Test func clientDataMustNameAnUnusedChallengeOfItsCeremony() async throws {
        try await withEmulator { h in
            let session = try await h.verifiedUser("webauthn@example.com")
            let creation = try #require(
                try await h.accounts.startPasskeyEnrollment(StartPasskeyEnrollmentRequest(idToken: session.idToken))
                    .credentialCreationOptions?.challenge)
            // A sign-in's type, or a challenge never given, is refused.
            for clientData in [
                try Self.webClientData("webauthn.get", challenge: creation),
                Self.clientData("webauthn.create", challengeBytes: Data(repeating: 7, count: 32)), "not base64 !",
                Data("{}".utf8).base64URLEncoded,
            ] {
                await expectServerError("INVALID_ARGUMENT") {
                    try await h.accounts.finalizePasskeyEnrollment(
                        FinalizePasskeyEnrollmentRequest(
                            idToken: session.idToken,
                            authenticatorRegistrationResponse: Self.registration("web-key", clientData: clientData)))
                }
            }
            let good = try Self.webClientData("webauthn.create", challenge: creation)
            _ = try await h.accounts.finalizePasskeyEnrollment(
                FinalizePasskeyEnrollmentRequest(
                    idToken: session.idToken,
                    authenticatorRegistrationResponse: Self.registration("web-key", clientData: good)))
            await expectServerError("INVALID_ARGUMENT") {
                try await h.accounts.finalizePasskeyEnrollment(
                    FinalizePasskeyEnrollmentRequest(
                        idToken: session.idToken,
                        authenticatorRegistrationResponse: Self.registration("web-key-2", clientData: good)))
            }
            // Firebase's Apple SDK signs the challenge text's UTF-8: taken too.
            let request = try #require(
                try await h.accounts.startPasskeySignIn(StartPasskeySignInRequest()).credentialRequestOptions?.challenge
            )
            let apple = Self.clientData("webauthn.get", challengeBytes: Data(request.utf8))
            let signedIn = try await h.accounts.finalizePasskeySignIn(
                FinalizePasskeySignInRequest(
                    authenticatorAuthenticationResponse: Self.assertion("web-key", clientData: apple)))
            #expect(signedIn.idToken != nil)
            await expectServerError("INVALID_ARGUMENT") {
                try await h.accounts.finalizePasskeySignIn(
                    FinalizePasskeySignInRequest(
                        authenticatorAuthenticationResponse: Self.assertion("web-key", clientData: apple)))
            }
            // Another user's enrollment challenge does not enroll for this one.
            let other = try await h.verifiedUser("other@example.com")
            let othersChallenge = try #require(
                try await h.accounts.startPasskeyEnrollment(StartPasskeyEnrollmentRequest(idToken: other.idToken))
                    .credentialCreationOptions?.challenge)
            await expectServerError("INVALID_ARGUMENT") {
                try await h.accounts.finalizePasskeyEnrollment(
                    FinalizePasskeyEnrollmentRequest(
                        idToken: session.idToken,
                        authenticatorRegistrationResponse: Self.registration(
                            "stolen", clientData: try Self.webClientData("webauthn.create", challenge: othersChallenge))
                    ))
            }
            // A challenge lapses with the ceremony's timeout.
            let late = try #require(
                try await h.accounts.startPasskeySignIn(StartPasskeySignInRequest()).credentialRequestOptions?.challenge
            )
            #expect(h.clock.advance(by: 61))
            await expectServerError("INVALID_ARGUMENT") {
                try await h.accounts.finalizePasskeySignIn(
                    FinalizePasskeySignInRequest(
                        authenticatorAuthenticationResponse: Self.assertion(
                            "web-key", clientData: try Self.webClientData("webauthn.get", challenge: late))))
            }
        }
    }

    @Test func passkeysSurviveAnExportAndImport() async throws {
        let folder = ImportExportTests.temporaryFolder("passkeys")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withEmulator(configure: { $0.exportDirectory = folder.path }) { h in
            let session = try await h.verifiedUser("kept@example.com")
            _ = try await h.accounts.finalizePasskeyEnrollment(
                FinalizePasskeyEnrollmentRequest(
                    idToken: session.idToken, authenticatorRegistrationResponse: Self.registration("kept-key"),
                    name: "Kept"))
            _ = try await h.emulator.export(to: folder.path)
        }
        try await withEmulator(configure: { $0.importDirectory = folder.path }) { h in
            let signedIn = try await h.accounts.finalizePasskeySignIn(
                FinalizePasskeySignInRequest(
                    authenticatorAuthenticationResponse: Self.assertion("kept-key")))
            let signedInIDToken = try #require(signedIn.idToken)
            let user = try #require(
                try await h.accounts.lookup(GetAccountInfoRequest(idToken: signedInIDToken)).users?.first)
            #expect(user.email == "kept@example.com" && user.passkeyInfo?.first?.name == "Kept")
        }
    }
}

/// The bound the tests hold the emulator to (`EmulatorRules` is internal).
private enum EmulatorLimitsProbe {
    static let maximumPasskeys = 10
}
