// The snippet of IdentityAdmin's "Blocking functions" article, verbatim
// (BlockingFunctionArticleTests compares them), compiled and run there.
import Hummingbird
import IdentityAdmin
import IdentityAdminHummingbird

/// `beforeSignIn`: staff must have an authenticator app; everyone's ID
/// token carries their role.
func blockingFunctionRouter(admin: IdentityAdmin, staffTenant: String, roles: [String: String]) -> Router<
    BasicRequestContext
> {
    let beforeSignIn = BlockingFunctionHandler(
        auth: admin, functionURL: "https://auth.example.com/blocking/before-sign-in",
        beforeSignIn: { signIn in
            let user = signIn.event.user
            let hasTOTP = user.multiFactor?.enrolledFactors?.contains { $0.factorID == "totp" } ?? false
            if signIn.event.tenantID == staffTenant, !hasTOTP {
                return .deny(message: "Staff accounts need an authenticator app.")
            }
            return .allow(
                updating: BlockingFunctionUpdate(customClaims: ["role": .string(roles[user.uid] ?? "member")]))
        })
    let router = Router()
    router.post("blocking/before-sign-in", blockingFunction: beforeSignIn)
    return router
}
