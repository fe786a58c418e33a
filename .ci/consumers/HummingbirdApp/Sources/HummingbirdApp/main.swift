import Foundation
import Hummingbird
import HummingbirdAuth
import HummingbirdTesting
import IdentityAdmin
import IdentityAdminHummingbird
import IdentityToolkit

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
        email: "hb-\(UUID().uuidString.prefix(8).lowercased())@example.com",
        password: "correct horse", returnSecureToken: true))
guard let idToken = signUp.idToken else {
    print("no ID token")
    exit(1)
}

typealias APIContext = BasicAuthRequestContext<DecodedIDToken>
let router = Router(context: APIContext.self)
router.group("api")
    .add(middleware: FirebaseAuthenticator(admin, options: .init(checkRevoked: true)))
    .get("me") { _, context in try context.requireIdentity().uid }
let app = Application(router: router)
try await app.test(.router) { client in
    try await client.execute(uri: "/api/me", method: .get, headers: [.authorization: "Bearer \(idToken)"]) { response in
        guard response.status == .ok, String(buffer: response.body) == signUp.localId else {
            print("the middleware refused a valid token: \(response.status)")
            exit(1)
        }
    }
    try await client.execute(uri: "/api/me", method: .get) { response in
        guard response.status == .unauthorized else {
            print("no token, yet \(response.status)")
            exit(1)
        }
    }
}
print("HummingbirdApp: FirebaseAuthenticator let \(signUp.localId) in and refused a request without a token")
