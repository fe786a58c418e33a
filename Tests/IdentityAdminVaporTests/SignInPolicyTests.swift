import AdminTestSupport
import Foundation
import IdentityAdmin
import IdentityAdminVapor
import IdentityToolkit
import Testing
import Vapor
import VaporTesting

/// Every sign-in policy on the emulator's real tokens through the Vapor
/// middleware: the same table (`SignInPolicyCases`) and the same answers as
/// the Hummingbird middleware's.
@Suite struct SignInPolicyTests {
    @Test func eachPolicyAnswersEachSignInAsItSays() async throws {
        try await EmulatorSetup.with(project: "demo-vapor-policies") { setup in
            let table = try await SignInPolicyCases.make(setup)
            for policyCase in table.cases {
                let app = try await Application.make(.testing)
                app.logger = LogLines.logger()
                app.grouped(FirebaseAuthenticator(setup.admin, options: .init(policy: policyCase.policy))).get("me") {
                    req -> String in
                    let user = try req.auth.require(FirebaseUser.self)
                    return SignInPolicyCases.body(
                        uid: user.uid, factor: user.token.signInSecondFactor, due: user.token.secondFactorEnrollmentDue)
                }
                do {
                    try await app.testing().test(.GET, "me", headers: ["Authorization": "Bearer \(policyCase.token)"]) {
                        response in
                        #expect(Int(response.status.code) == policyCase.status, "\(policyCase)")
                        let challenge = response.headers.first(name: .wwwAuthenticate).flatMap(
                            StepUpChallenge.init(wwwAuthenticate:))
                        #expect(challenge == policyCase.challenge, "\(policyCase)")
                        if policyCase.status == 200 {
                            #expect(
                                response.body.string.hasSuffix(policyCase.enrollmentDue ? " due" : " -"),
                                "\(policyCase)")
                        } else {
                            #expect(FirebaseAuthenticatorTests.reason(response) == policyCase.reason, "\(policyCase)")
                            #expect(!response.body.string.contains(policyCase.token))
                        }
                    }
                } catch {
                    try await app.asyncShutdown()
                    throw error
                }
                try await app.asyncShutdown()
            }
        }
    }
}
