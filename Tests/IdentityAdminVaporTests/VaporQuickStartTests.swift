import AdminTestSupport
import Foundation
import IdentityAdmin
import IdentityAdminVapor
import Testing
import Vapor
import VaporTesting

/// The README's Vapor quick start, run as written against an emulator: no
/// token is 401, a password-only sign-in 401 with a step-up challenge, a
/// TOTP sign-in gets its uid and its factors; the refresher runs while the
/// app does.
@Suite struct VaporQuickStartTests {
    @Test func theQuickStartProtectsItsRoutes() async throws {
        try await EmulatorSetup.with(project: "demo-mfa") { setup in
            let tokens = try await MiddlewareTokens.make(setup)
            let app = try await Application.make(.testing)
            protectAPI(of: app, with: setup.admin)
            func bearer(_ token: String) -> HTTPHeaders { ["Authorization": "Bearer \(token)"] }
            do {
                try await app.testing().test(.GET, "api/me") { #expect($0.status == .unauthorized) }
                try await app.testing().test(.GET, "api/me", headers: bearer(tokens.password)) { response in
                    #expect(response.status == .unauthorized)
                    #expect(
                        response.headers.first(name: .wwwAuthenticate)?.contains(
                            #"error="insufficient_user_authentication""#) == true)
                }
                try await app.testing().test(.GET, "api/me", headers: bearer(tokens.totp)) {
                    #expect($0.body.string == tokens.uid)
                }
                try await app.testing().test(.GET, "api/factors", headers: bearer(tokens.totp)) { response in
                    #expect(response.status == .ok)
                    let factors = try response.content.decode([MyFactor].self)
                    #expect(factors.map(\.kind) == ["totp"] && factors.first?.name == "Phone app")
                }
            } catch {
                try await app.asyncShutdown()
                throw error
            }
            try await app.asyncShutdown()
        }
    }
}
