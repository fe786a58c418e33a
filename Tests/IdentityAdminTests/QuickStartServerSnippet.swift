// The README's quick start (the server), verbatim: ReadmeSnippetTests checks
// the README shows it and runs its route against an emulator.
import Hummingbird
import HummingbirdAuth
import IdentityAdmin
import IdentityAdminHummingbird

/// `GET /api/me` answers the caller's uid, for an ID token whose sign-in used a second factor.
func quickStartApp(emulator: String = "127.0.0.1:9099") -> some ApplicationProtocol {
    let admin = IdentityAdmin.emulator(projectID: "demo-mfa", hostAndPort: emulator)
    // In production: IdentityAdmin(projectID: "my-project", credential: ApplicationDefaultCredential())
    let router = Router(context: BasicAuthRequestContext<DecodedIDToken>.self)
    router.group("api")
        .add(middleware: FirebaseAuthenticator(admin, options: .init(requireSecondFactor: true)))
        .get("me") { _, context in try context.requireIdentity().uid }
    return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 8080)))
}
