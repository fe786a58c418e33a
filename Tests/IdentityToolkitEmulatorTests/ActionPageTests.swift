import Foundation
import HTTPTypes
import IdentityToolkit
import Testing

/// The `oobLink`s the emulator lists open a page that applies the code.
@Suite struct ActionPageTests {
    /// The path and query of a listed link (it names the emulator's own address).
    func route(of link: String) throws -> String {
        let url = try #require(URL(string: link))
        return url.path + "?" + (url.query ?? "")
    }

    @Test func aVerificationLinkVerifiesTheAddressOnce() async throws {
        try await withEmulator { harness in
            let created = try await harness.accounts.signUp(
                SignUpRequest(email: "page@example.com", password: "secret-pw", returnSecureToken: true))
            _ = try await harness.accounts.sendOobCode(
                GetOobCodeRequest(requestType: .verifyEmail, idToken: created.idToken))
            let listed = try await EmulatorHelpersClient(
                configuration: ClientConfiguration(transport: harness.transport, emulatorHost: harness.hostAndPort)
            )
            .listOobCodes(project: Harness.project)
            let link = try #require(listed.oobCodes.last?.oobLink)
            #expect(link.hasPrefix(harness.baseURL + "/emulator/action?mode=verifyEmail"))

            let page = try await harness.raw(.get, try route(of: link), headers: [.accept: "text/html"])
            #expect(page.status == 200)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(
                String(decoding: page.body, as: UTF8.self).contains(
                    "The email address page@example.com has been verified.")
            )
            #expect(
                try await harness.accounts.lookup(GetAccountInfoRequest(idToken: created.idToken)).users?.first?
                    .emailVerified == true)
            // A code works once.
            let again = try await harness.raw(.get, try route(of: link))
            #expect(again.status == 400 && again.errorMessage == "INVALID_OOB_CODE")
        }
    }

    @Test func aResetLinkAsksForAndSetsTheNewPassword() async throws {
        try await withEmulator { harness in
            let created = try await harness.accounts.signUp(
                SignUpRequest(email: "reset@example.com", password: "old-password", returnSecureToken: true))
            let code = try await harness.admin.sendAccountOobCode(
                targetProjectId: Harness.project,
                body: GetOobCodeRequest(requestType: .passwordReset, email: "reset@example.com", returnOobLink: true))
            let link = try #require(code.oobLink)
            // Without a new password the page is a form that sends the link back with one.
            let form = String(decoding: try await harness.raw(.get, try route(of: link)).body, as: UTF8.self)
            let oobCode = try #require(code.oobCode)
            #expect(
                form.contains(#"<input type="password" name="newPassword""#)
                    && form.contains(#"name="oobCode" value="\#(oobCode)""#))
            // The generated client opens it too.
            let helpers = EmulatorHelpersClient(
                configuration: ClientConfiguration(transport: harness.transport, emulatorHost: harness.hostAndPort))
            let done = try await helpers.openActionLink(
                mode: EmailActionMode.resetPassword.rawValue, oobCode: oobCode, newPassword: "new-password")
            #expect(done.contains("The password of reset@example.com has been changed."))
            _ = try await harness.accounts.signInWithPassword(
                SignInWithPasswordRequest(email: "reset@example.com", password: "new-password"))
            await expectServerError("INVALID_LOGIN_CREDENTIALS") {
                try await harness.accounts.signInWithPassword(
                    SignInWithPasswordRequest(email: "reset@example.com", password: "old-password"))
            }
            // The reset ended the earlier sessions.
            await expectServerError("TOKEN_EXPIRED") {
                try await harness.tokens.grantToken(
                    GrantTokenRequest(
                        grantType: SecureTokenGrantType.refreshToken.rawValue, refreshToken: created.refreshToken))
            }
        }
    }

    @Test func pagesEscapeWhatTheyAreGivenAndRefuseWrongModes() async throws {
        try await withEmulator { harness in
            _ = try await harness.accounts.signUp(
                SignUpRequest(email: "x@example.com", password: "secret-pw", returnSecureToken: true))
            let code = try #require(
                try await harness.admin.sendAccountOobCode(
                    targetProjectId: Harness.project,
                    body: GetOobCodeRequest(requestType: .passwordReset, email: "x@example.com", returnOobLink: true)
                ).oobCode)
            let hostile = "\"><script>alert(1)</script>"
            let escapedQuery = try #require(hostile.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            let form = String(
                decoding: try await harness.raw(
                    .get, "/emulator/action?mode=resetPassword&oobCode=\(code)&lang=\(escapedQuery)"
                ).body, as: UTF8.self)
            #expect(!form.contains("<script>") && form.contains("&lt;script&gt;"))
            // A code for another purpose, an unknown mode, a javascript: continue link.
            let wrongMode = try await harness.raw(.get, "/emulator/action?mode=verifyEmail&oobCode=\(code)")
            #expect(wrongMode.status == 400 && wrongMode.errorMessage == "INVALID_OOB_CODE")
            #expect(try await harness.raw(.get, "/emulator/action?mode=nope&oobCode=\(code)").status == 400)
            let done = String(
                decoding: try await harness.raw(
                    .get,
                    "/emulator/action?mode=resetPassword&oobCode=\(code)&newPassword=new-password&continueUrl=javascript:alert(1)"
                ).body, as: UTF8.self)
            #expect(done.contains("has been changed") && !done.contains("javascript:"))
        }
    }
}
