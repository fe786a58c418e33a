// The README's Vapor server, verbatim: ReadmeSnippetTests checks the README
// shows it, and VaporQuickStartTests runs its routes against an emulator.
import IdentityAdmin
import IdentityAdminVapor
import Vapor

/// A second factor of the caller's, as `GET /api/factors` lists it.
struct MyFactor: Content {
    let id: String
    let name: String?
    let kind: String
}

/// `GET /api/me` (the uid) and `GET /api/factors`, for an ID token whose sign-in used a second factor.
func protectAPI(of app: Application, with admin: IdentityAdmin) {
    // The refresher keeps Google's signing keys warm from boot to shutdown.
    app.lifecycle.use(SigningKeyRefresherLifecycle(admin.signingKeyRefresher))
    let api = app.grouped("api").grouped(FirebaseAuthenticator(admin, options: .init(requireSecondFactor: true)))
    api.get("me") { req in try req.auth.require(FirebaseUser.self).uid }
    api.get("factors") { req async throws -> [MyFactor] in
        let user = try await admin.getUser(uid: try req.auth.require(FirebaseUser.self).uid)
        return user.multiFactor.enrolledFactors.map { MyFactor(id: $0.uid, name: $0.displayName, kind: $0.factorID) }
    }
}
