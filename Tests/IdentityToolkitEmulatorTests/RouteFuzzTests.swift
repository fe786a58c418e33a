import Foundation
import HTTPTypes
import IdentityToolkit
import SeededRandom
import Testing

@testable import IdentityToolkitEmulator

/// Random JSON with extreme values (Int64 and Double limits, huge strings,
/// deep nesting, nulls, wrong types) and odd update masks, sent to every
/// route `Spec/` gives the emulator and to its helpers: every answer is a
/// 2xx or a 4xx, never a 5xx, and the process lives on. Seeded, so a
/// failure names an input that reproduces.
@Suite struct RouteFuzzTests {
    static let keys = [
        "email", "password", "idToken", "refreshToken", "grantType", "grant_type", "refresh_token", "tenantId",
        "displayName",
        "mfaPendingCredential", "mfaEnrollmentId", "totpVerificationInfo", "verificationCode", "sessionInfo",
        "requestType",
        "oobCode", "mfa", "mfaConfig", "state", "providerConfigs", "totpProviderConfig", "adjacentIntervals",
        "enabledProviders",
        "returnSecureToken", "phoneEnrollmentInfo", "phoneNumber", "totpEnrollmentInfo", "setMillis", "advanceSeconds",
        "release",
        "clientEmail", "publicKeyPem", "allowPasswordSignup", "disableAuth", "name", "x_y",
    ]

    static func value(_ rng: inout SeededGenerator, depth: Int) -> Any {
        switch Int.random(in: 0..<14, using: &rng) {
        case 0: return Int64.max
        case 1: return Int64.min
        case 2: return Double.greatestFiniteMagnitude
        case 3: return -1e300
        case 4: return NSNull()
        case 5: return Bool.random(using: &rng)
        case 6: return String(repeating: "x", count: Int.random(in: 0...70_000, using: &rng))
        case 7:
            return [
                "ENABLED", "MANDATORY", "PHONE_SMS", "VERIFY_EMAIL", "refresh_token", "", "\u{0}", "\u{202E}", "a@b.c",
            ].randomElement(using: &rng)!
        case 8: return "\(Int.random(in: -10...10, using: &rng))"
        case 9: return Int.random(in: -1_000_000...1_000_000, using: &rng)
        case 10 where depth < 6:
            return (0..<Int.random(in: 0...4, using: &rng)).map { _ in value(&rng, depth: depth + 1) }
        case 11 where depth < 6, 12 where depth < 6:
            return object(&rng, depth: depth + 1)
        default: return "v\(rng.next() % 1000)"
        }
    }

    static func object(_ rng: inout SeededGenerator, depth: Int) -> [String: Any] {
        var object: [String: Any] = [:]
        for _ in 0..<Int.random(in: 0...6, using: &rng) {
            object[keys.randomElement(using: &rng)!] = value(&rng, depth: depth)
        }
        return object
    }

    static let masks = [
        "", ".", "%20", "mfa", "mfaConfig", "mfa.state", "mfa.nope", "displayName,mfaConfig.providerConfigs", ",,",
        "a.b.c", "%00",
    ]
    static let segments = ["demo-mfa", "t", "%2F", "..", "x%00y", String(repeating: "p", count: 300), "%F0%9F%98%80"]

    @Test(arguments: [1, 2, 3, 4])
    func everyRouteAnswersRandomJSONWithoutAServerError(seed: UInt64) async throws {
        try await withEmulator { h in
            var rng = SeededGenerator(seed: seed)
            var paths = h.emulator.routes.map { ($0.method, $0.prefix + $0.path) }
            paths += [
                (.post, "/emulator/v1/clock"), (.post, "/emulator/v1/serviceAccounts"),
                (.post, "/oauth2.googleapis.com/token"),
                (.get, "/emulator/v1/projects/demo-mfa/oobCodes"),
                (.delete, "/emulator/v1/projects/demo-mfa/tenants/t/accounts"),
            ]
            for round in 0..<120 {
                let (method, template) = paths[round % paths.count]
                let path = template.split(separator: "/", omittingEmptySubsequences: false).map { segment -> String in
                    segment.hasPrefix("{") ? Self.segments.randomElement(using: &rng)! : String(segment)
                }.joined(separator: "/")
                let query = "?key=k&updateMask=\(Self.masks.randomElement(using: &rng)!)"
                let body: Data
                switch Int.random(in: 0..<5, using: &rng) {
                case 0:
                    body = Data(
                        (0..<Int.random(in: 0...200, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
                case 1: body = Data("[1,2,3]".utf8)
                default: body = try JSONSerialization.data(withJSONObject: Self.object(&rng, depth: 0))
                }
                let response = try await h.raw(
                    method, path + query, body: body,
                    headers: [.authorization: "Bearer owner", .contentType: "application/json"])
                #expect(
                    (200..<500).contains(response.status),
                    "seed \(seed) round \(round): \(method) \(path) → \(response.status) \(response.errorMessage ?? "")"
                )
                // Leave the clock where it was, so later rounds see a sane time.
                h.clock.release()
            }
            #expect(try await h.raw(.get, "/emulator/v1/clock").status == 200)
        }
    }
}
