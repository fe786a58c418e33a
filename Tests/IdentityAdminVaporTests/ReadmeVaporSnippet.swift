// A README snippet, verbatim (ReadmeSnippetTests compares them): the Vapor middleware.
import IdentityAdmin
import IdentityAdminVapor
import Vapor

/// `GET /api/me` behind the middleware: the caller's uid.
func protectAPI(of app: Application, with admin: IdentityAdmin) {
    let api = app.grouped("api").grouped(FirebaseAuthenticator(admin, options: .init(checkRevoked: true)))
    api.get("me") { req in try req.auth.require(FirebaseUser.self).uid }
}
