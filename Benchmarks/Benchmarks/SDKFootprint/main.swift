// Memory of an idle signed-in Auth + User: restores 1,000 sessions into
// 1,000 independent Auth instances and reports the heap growth per pair
// (glibc mallinfo2, in-use bytes). Target: ≤ 16 KB.
//
//   swift run -c release SDKFootprint
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MultiFactorAuth

let options = FirebaseOptions(googleAppID: "1:1:ios:1", gcmSenderID: "1")
options.apiKey = "footprint"
FirebaseApp.configure(name: "footprint", options: options)
let app = FirebaseApp.app(name: "footprint")!
// A realistic ID token: about 900 bytes, as the emulator's and Firebase's are.
let idToken = String(repeating: "x", count: 900)
func session(_ index: Int) -> AuthSession {
    AuthSession(uid: "uid-\(index)-\(UUID().uuidString)", email: "user\(index)@example.com", displayName: nil, isEmailVerified: true,
                isAnonymous: false, tenantID: nil, idToken: idToken + "\(index)", refreshToken: UUID().uuidString + UUID().uuidString,
                idTokenExpiration: Date().addingTimeInterval(3600),
                factors: [.init(uid: UUID().uuidString, displayName: "app", enrollmentDate: Date(), factorID: "totp", phoneNumber: nil)])
}

#if canImport(Glibc)
func heapInUse() -> Int { Int(mallinfo2().uordblks) }
let count = 1_000
let sessions = (0..<count).map(session)
var pairs: [(Auth, User)] = []
pairs.reserveCapacity(count)
let before = heapInUse()
for index in 0..<count {
    let auth = Auth(app: app)
    pairs.append((auth, auth.restore(sessions[index])))
}
let after = heapInUse()
let perPair = Double(after - before) / Double(count)
print(String(format: "idle signed-in Auth + User: %.0f bytes each (%d instances; tokens and profile included)", perPair, count))
withExtendedLifetime(pairs) {}
#else
print("SDKFootprint needs glibc's mallinfo2 (Linux)")
#endif
