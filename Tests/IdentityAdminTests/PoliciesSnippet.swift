// The "Policies" snippet of IdentityAdmin's "Protecting routes" article,
// verbatim (PoliciesArticleTests compares them), compiled and run there.
import Foundation
import Hummingbird
import HummingbirdAuth
import IdentityAdmin
import IdentityAdminHummingbird

func policyRouter(admin: IdentityAdmin, enrollBy deadline: Date) -> Router<APIContext> {
    let router = Router(context: APIContext.self)
    let api = router.group("api")
    // Every user must enrol a second factor by `deadline`; new accounts get a week.
    api.group("account")
        .add(
            middleware: FirebaseAuthenticator(
                admin,
                options: .init(
                    policy: .init(secondFactor: .required(enrollBy: deadline, snooze: .seconds(7 * 86_400)))))
        )
        .get { _, context in
            let token = try context.requireIdentity()
            guard let due = token.secondFactorEnrollmentDue else { return "welcome" }
            return "welcome; enrol a second factor by \(due.formatted(.iso8601))"
        }
    // Who has a factor must use it, and a payout needs a sign-in of the last five minutes.
    api.group("payouts")
        .add(
            middleware: FirebaseAuthenticator(
                admin,
                options: .init(
                    checkRevoked: true,
                    policy: .init(secondFactor: .ifEnrolled, maximumAuthenticationAge: .seconds(300))))
        )
        .post { _, context in "paid to \(try context.requireIdentity().uid)" }
    return router
}
