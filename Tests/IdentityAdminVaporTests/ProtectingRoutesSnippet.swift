// The Vapor snippet of IdentityAdmin's "Protecting routes" article, verbatim
// (ArticleSnippetTests compares them), compiled and run by the tests here.
import IdentityAdmin
import IdentityAdminVapor
import Vapor

func routes(_ app: Application, admin: IdentityAdmin) {
    app.get("health") { _ in "ok" }
    let api = app.grouped("api")
        .grouped(FirebaseAuthenticator(admin, options: .init(checkRevoked: true, requireSecondFactor: true)))
    api.get("me") { req in
        let user = try req.auth.require(FirebaseUser.self)
        return "\(user.uid) signed in with \(user.token.signInSecondFactor ?? "one factor")"
    }
}
