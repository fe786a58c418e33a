// The README's Hummingbird server, verbatim: ReadmeSnippetTests checks the
// README shows it and runs its routes against an emulator.
import Hummingbird
import HummingbirdAuth
import IdentityAdmin
import IdentityAdminHummingbird

/// A second factor of the caller's, as `GET /api/factors` lists it.
struct MyFactor: ResponseCodable {
    let id: String
    let name: String?
    let kind: String
}

/// `GET /api/me` (the uid) and `GET /api/factors`, for an ID token whose sign-in used a second factor.
func quickStartApp(emulator: String = "127.0.0.1:9099") -> some ApplicationProtocol {
    let admin = IdentityAdmin.emulator(projectID: "demo-mfa", hostAndPort: emulator)
    // In production: IdentityAdmin(projectID: "my-project", credential: ApplicationDefaultCredential(),
    //     configuration: ClientConfiguration(transport: AsyncHTTPClientTransport()))
    let router = Router(context: BasicAuthRequestContext<DecodedIDToken>.self)
    let api = router.group("api").add(
        middleware: FirebaseAuthenticator(admin, options: .init(requireSecondFactor: true)))
    api.get("me") { _, context in try context.requireIdentity().uid }
    api.get("factors") { _, context in
        let user = try await admin.getUser(uid: try context.requireIdentity().uid)
        return user.multiFactor.enrolledFactors.map { MyFactor(id: $0.uid, name: $0.displayName, kind: $0.factorID) }
    }
    // The refresher keeps Google's signing keys warm, beside the server, until shutdown.
    return Application(
        router: router, configuration: .init(address: .hostname("127.0.0.1", port: 8080)),
        services: [admin.signingKeyRefresher])
}
