// Memory of an idle signed-in Auth + User: restores 10,000 sessions into
// 10,000 independent Auth instances and reports the resident-memory growth
// per pair (/proc/self/statm). Target: ≤ 16 KB.
//
//   swift run -c release SDKFootprint
import Foundation
import MultiFactorAuth

let options = FirebaseOptions(googleAppID: "1:1:ios:1", gcmSenderID: "1")
options.apiKey = "footprint"
FirebaseApp.configure(name: "footprint", options: options)
let app = FirebaseApp.app(name: "footprint")!
// A realistic ID token: about 900 bytes, as the emulator's and Firebase's are.
let idToken = String(repeating: "x", count: 900)
func session(_ index: Int) -> AuthSession {
    AuthSession(
        uid: "uid-\(index)-\(UUID().uuidString)", email: "user\(index)@example.com", displayName: nil,
        isEmailVerified: true,
        isAnonymous: false, tenantID: nil, idToken: idToken + "\(index)",
        refreshToken: UUID().uuidString + UUID().uuidString,
        idTokenExpiration: Date().addingTimeInterval(3600),
        factors: [
            .init(
                uid: UUID().uuidString, displayName: "app", enrollmentDate: Date(), factorID: "totp", phoneNumber: nil)
        ])
}

/// Resident bytes of this process (Linux).
func residentBytes() -> Int? {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
    let fields = statm.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
    return pages * 4096
}

let count = 10_000
let sessions = (0..<count).map(session)
var pairs: [(Auth, User)] = []
pairs.reserveCapacity(count)
guard let before = residentBytes() else {
    print("SDKFootprint reads /proc/self/statm (Linux)")
    exit(1)
}
for index in 0..<count {
    let auth = Auth(app: app)
    pairs.append((auth, auth.restore(sessions[index])))
}
let after = residentBytes() ?? before
print(
    String(
        format:
            "idle signed-in Auth + User: %.0f bytes each (resident growth over %d instances; tokens and profile included)",
        Double(after - before) / Double(count), count))
withExtendedLifetime(pairs) {}
