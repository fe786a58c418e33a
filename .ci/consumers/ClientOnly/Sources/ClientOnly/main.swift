import Foundation
import MultiFactorAuth

// Signs a new user up, then in, against the emulator FIREBASE_AUTH_EMULATOR_HOST names.
guard let host = ProcessInfo.processInfo.environment["FIREBASE_AUTH_EMULATOR_HOST"],
    let colon = host.lastIndex(of: ":"),
    let port = Int(host[host.index(after: colon)...])
else {
    print("set FIREBASE_AUTH_EMULATOR_HOST to the emulator's host:port")
    exit(2)
}
let options = FirebaseOptions(googleAppID: "1:1234567890:ios:abcdef", gcmSenderID: "1234567890")
options.apiKey = "consumer-key"
options.projectID = "demo-consumers"
FirebaseApp.configure(options: options)
Auth.auth().useEmulator(withHost: String(host[..<colon]), port: port)
let email = "client-\(UUID().uuidString.prefix(8).lowercased())@example.com"
// Top-level code needs the type to pick the async call over its completion twin (issue 40).
let created: AuthDataResult = try await Auth.auth().createUser(withEmail: email, password: "correct horse")
let signedIn: AuthDataResult = try await Auth.auth().signIn(withEmail: email, password: "correct horse")
guard signedIn.user.uid == created.user.uid else {
    print("signed in as another user")
    exit(1)
}
print("ClientOnly: signed up and in as \(signedIn.user.uid)")
