import Foundation
import HTTPTypes
import Hummingbird
import IdentityToolkit

/// The `/emulator/v1/...` helpers: not part of the Identity Toolkit API, so
/// their shapes live here rather than in Spec/.
struct OobCodeListing: Codable {
    struct Entry: Codable {
        var email: String
        var oobCode: String
        var oobLink: String
        var requestType: String
    }

    var oobCodes: [Entry]
}

struct VerificationCodeListing: Codable {
    struct Entry: Codable {
        var phoneNumber: String
        var sessionInfo: String
        var code: String
    }

    var verificationCodes: [Entry]
}

struct ServiceAccountRegistration: Codable {
    var clientEmail: String
    var publicKeyPem: String
}

struct ClockState: Codable {
    var nowMillis: Int64
}

struct ClockChange: Codable {
    var setMillis: Int64?
    var advanceSeconds: Double?
    var release: Bool?
}

extension IdentityToolkitEmulator {
    func helper(method: HTTPRequest.Method, path: String, body: Data) async -> Response {
        let parts = path.split(separator: "/").map(String.init)
        // emulator v1 projects {p} [tenants {t}] resource
        do {
            if parts.count == 3 && parts[2] == "clock" {
                return try await clockHelper(method: method, body: body)
            }
            if parts.count == 3 && parts[2] == "serviceAccounts" && method == .post {
                guard let registration = try? JSONDecoder().decode(ServiceAccountRegistration.self, from: body) else {
                    throw APIServerError.invalidArgument("expected {\"clientEmail\", \"publicKeyPem\"}")
                }
                do {
                    try oauth.register(email: registration.clientEmail, publicKeyPEM: registration.publicKeyPem)
                } catch {
                    throw APIServerError.invalidArgument("publicKeyPem is not an RSA public key in PEM form")
                }
                return Self.json(status: 200, Data("{}".utf8))
            }
            if parts.count == 3 && parts[2] == "jwks" && method == .get {
                return Self.json(status: 200, try JSONEncoder().encode(tokens.issuer.jwks))
            }
            guard parts.count >= 5, parts[0] == "emulator", parts[1] == "v1", parts[2] == "projects" else {
                throw APIServerError(status: 404, "NOT_FOUND", detail: "no such emulator endpoint", reason: "notFound")
            }
            let project = parts[3]
            var tenant: String?
            var resource = parts[4]
            if parts.count == 7 && parts[4] == "tenants" {
                tenant = parts[5]
                resource = parts[6]
            } else if parts.count != 5 {
                throw APIServerError(status: 404, "NOT_FOUND", detail: "no such emulator endpoint", reason: "notFound")
            }
            switch (method, resource) {
            case (.get, "oobCodes"):
                let base = links.value
                let entries = await store.listOobCodes(project: project, tenant: tenant).map { code in
                    OobCodeListing.Entry(
                        email: code.email, oobCode: code.code,
                        oobLink: "\(base)/emulator/action?mode=\(Self.mode(code.requestType))&lang=en&oobCode=\(code.code)&apiKey=fake-api-key"
                            + (tenant.map { "&tenantId=\($0)" } ?? ""),
                        requestType: code.requestType.rawValue)
                }
                return Self.json(status: 200, try JSONEncoder().encode(OobCodeListing(oobCodes: entries)))
            case (.get, "verificationCodes"):
                let entries = await store.listVerificationCodes(project: project, tenant: tenant).map {
                    VerificationCodeListing.Entry(phoneNumber: $0.phoneNumber, sessionInfo: $0.sessionInfo, code: $0.code)
                }
                return Self.json(status: 200, try JSONEncoder().encode(VerificationCodeListing(verificationCodes: entries)))
            case (.delete, "accounts"):
                await store.deleteAccounts(project: project, tenant: tenant)
                return Self.json(status: 200, Data("{}".utf8))
            default:
                throw APIServerError(status: 404, "NOT_FOUND", detail: "no such emulator endpoint", reason: "notFound")
            }
        } catch let error as APIServerError {
            return Self.error(error)
        } catch {
            return Self.error(APIServerError.invalidArgument("malformed request"))
        }
    }

    private func clockHelper(method: HTTPRequest.Method, body: Data) async throws -> Response {
        if method == .post {
            let change: ClockChange
            do {
                change = try JSONDecoder().decode(ClockChange.self, from: body)
            } catch {
                throw APIServerError.invalidArgument("expected {\"setMillis\": N}, {\"advanceSeconds\": N} or {\"release\": true}")
            }
            // Every number is range-checked before it becomes a date: the
            // clock stays within EmulatorClock.validRange whatever is sent.
            if let millis = change.setMillis {
                let date = Date(timeIntervalSince1970: TimeInterval(millis) / 1000)
                guard EmulatorClock.validRange.contains(date) else {
                    throw APIServerError.invalidArgument("setMillis must be between 0 and \(EmulatorClock.validRangeMillis.upperBound)")
                }
            }
            if let seconds = change.advanceSeconds {
                guard seconds.isFinite, abs(seconds) <= EmulatorClock.maximumStep else {
                    throw APIServerError.invalidArgument("advanceSeconds must be a finite number of at most \(Int(EmulatorClock.maximumStep)) in size")
                }
            }
            if change.release == true { clock.release() }
            if let millis = change.setMillis { clock.set(Date(timeIntervalSince1970: TimeInterval(millis) / 1000)) }
            if let seconds = change.advanceSeconds {
                guard clock.advance(by: seconds) else {
                    throw APIServerError.invalidArgument("advanceSeconds would move the clock outside 1970 to 9999")
                }
            }
        } else if method != .get {
            throw APIServerError(status: 405, "METHOD_NOT_ALLOWED")
        }
        let now = ClockState(nowMillis: Int64((clock.now.timeIntervalSince1970 * 1000).rounded()))
        return Self.json(status: 200, try JSONEncoder().encode(now))
    }

    /// The `mode` of an action link (the Firebase action-URL parameter).
    private static func mode(_ requestType: OobRequestType) -> String {
        switch requestType {
        case .verifyEmail: return "verifyEmail"
        case .passwordReset: return "resetPassword"
        case .emailSignin: return "signIn"
        default: return "verifyAndChangeEmail"
        }
    }
}
