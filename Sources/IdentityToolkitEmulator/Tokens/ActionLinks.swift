#if Emulator
import Foundation
import IdentityToolkit
import IdentitySupport

/// Where out-of-band links point (the emulator's own address, known once
/// it listens), and the one place that builds them.
final class ActionLinks: Sendable {
    private let base = Locked("http://127.0.0.1:\(EmulatorConfiguration.defaultPort)")

    /// `http://HOST:PORT` of the running emulator.
    var baseURL: String {
        get { base.current }
        set { base.withLock { $0 = newValue } }
    }

    /// The action link of a code, in Google's emulator's form, at the route
    /// `Spec/emulator.yaml` gives the page (`openActionLink`):
    /// `/emulator/action?mode=…&lang=en&oobCode=…&apiKey=…[&tenantId=…]`.
    func link(for code: OutOfBandCode) -> String {
        var components = URLComponents()
        components.path = HelperRoutes.openActionLinkPath
        components.queryItems =
            [
                URLQueryItem(name: "mode", value: Self.mode(code.requestType).rawValue),
                URLQueryItem(name: "lang", value: "en"),
                URLQueryItem(name: "oobCode", value: code.code),
                URLQueryItem(name: "apiKey", value: "fake-api-key"),
            ] + (code.continueUrl.map { [URLQueryItem(name: "continueUrl", value: $0)] } ?? [])
            + (code.realm.tenant.map { [URLQueryItem(name: "tenantId", value: $0)] } ?? [])
        return baseURL + (components.string ?? HelperRoutes.openActionLinkPath)
    }

    /// Each kind of code and the `mode` of its action link (the Firebase
    /// action-URL parameter), read both ways.
    static let modes: [(requestType: OobRequestType, mode: EmailActionMode)] = [
        (.verifyEmail, .verifyEmail), (.passwordReset, .resetPassword), (.emailSignin, .signIn),
        (.verifyAndChangeEmail, .verifyAndChangeEmail),
        (.recoverEmail, .recoverEmail), (.revertSecondFactorAddition, .revertSecondFactorAddition),
    ]

    /// The `mode` of a code's action link.
    static func mode(_ requestType: OobRequestType) -> EmailActionMode {
        modes.first { $0.requestType == requestType }?.mode ?? .verifyAndChangeEmail
    }

    /// The kind of code an action link's `mode` is for; nil for an unknown mode.
    static func requestType(_ mode: EmailActionMode) -> OobRequestType? {
        modes.first { $0.mode == mode }?.requestType
    }
}
#endif
