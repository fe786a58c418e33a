// The Hummingbird snippet of IdentityAdmin's "Protecting routes" article,
// verbatim (ProtectingRoutesArticleTests compares them), compiled and run here.
import Hummingbird
import HummingbirdAuth
import IdentityAdmin
import IdentityAdminHummingbird

typealias APIContext = BasicAuthRequestContext<DecodedIDToken>

func apiRouter(admin: IdentityAdmin) -> Router<APIContext> {
    let router = Router(context: APIContext.self)
    router.get("health") { _, _ in "ok" }
    router.group("api")
        .add(middleware: FirebaseAuthenticator(admin, options: .init(checkRevoked: true, requireSecondFactor: true)))
        .get("me") { _, context in
            let token = try context.requireIdentity()
            return "\(token.uid) signed in with \(token.signInSecondFactor ?? "one factor")"
        }
    return router
}
