import Foundation
import IdentityAdmin
import IdentityAdminVapor
import IdentityToolkit
import Vapor
import VaporTesting

// A protected route, called once with a token the emulator issued and once without.
guard let host = ProcessInfo.processInfo.environment["FIREBASE_AUTH_EMULATOR_HOST"] else {
    print("set FIREBASE_AUTH_EMULATOR_HOST to the emulator's host:port")
    exit(2)
}
let project = "demo-consumers"
let admin = IdentityAdmin.emulator(projectID: project, hostAndPort: host)
let accounts = AccountsClient(apiKey: "consumer-key", configuration: ClientConfiguration(emulatorHost: host))
let signUp = try await accounts.signUp(
    SignUpRequest(
        email: "vapor-\(UUID().uuidString.prefix(8).lowercased())@example.com",
        password: "correct horse", returnSecureToken: true))
guard let idToken = signUp.idToken else {
    print("no ID token")
    exit(1)
}

let app = try await Application.make(.testing)
app.grouped("api").grouped(FirebaseAuthenticator(admin, options: .init(checkRevoked: true)))
    .get("me") { req in try req.auth.require(FirebaseUser.self).uid }
var failure: String?
try await app.testing().test(.GET, "api/me", headers: ["Authorization": "Bearer \(idToken)"]) { response in
    if response.status != .ok || response.body.string != signUp.localId {
        failure = "the middleware refused a valid token: \(response.status)"
    }
}
try await app.testing().test(.GET, "api/me") { response in
    if response.status != .unauthorized { failure = "no token, yet \(response.status)" }
}
try await app.asyncShutdown()
if let failure {
    print(failure)
    exit(1)
}
print("VaporApp: FirebaseAuthenticator let \(signUp.localId) in and refused a request without a token")
