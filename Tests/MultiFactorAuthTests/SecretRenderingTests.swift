import Foundation
import IdentityOTP
import IdentityToolkit
import Testing

@testable import MultiFactorAuth

/// No secret in any rendering: `print`, string interpolation,
/// `String(reflecting:)` and `dump` of every public type that holds one.
@Suite struct SecretRenderingTests {
    static let marker = "SECRET-MARKER-7f3a"

    /// Every way a value can end up in a log.
    static func renderings(of value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        return [String(describing: value), "\(value)", String(reflecting: value), dumped]
    }

    static func expectNoMarker(_ value: Any, _ label: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for (index, text) in renderings(of: value).enumerated() {
            #expect(!text.contains(marker), "\(label), rendering \(index): \(text)", sourceLocation: sourceLocation)
        }
        // Base32 of the marker bytes, the form a TOTP secret takes in a URI.
        let encoded = Base32.encode(Array(marker.utf8))
        for text in renderings(of: value) {
            #expect(!text.contains(encoded), "\(label) shows the secret in base32", sourceLocation: sourceLocation)
        }
    }

    @Test func handWrittenTypes() {
        let session = AuthSession(
            uid: "u", email: "a@example.com", displayName: nil, isEmailVerified: true, isAnonymous: false,
            tenantID: nil,
            idToken: Self.marker, refreshToken: Self.marker + "r", idTokenExpiration: Date(), factors: [])
        Self.expectNoMarker(session, "AuthSession")
        let uri = OTPAuthURI(issuer: "Acme", account: "a@example.com", secret: Array(Self.marker.utf8))
        Self.expectNoMarker(uri, "OTPAuthURI")
        let secret = TOTPSecret(
            secret: Array(Self.marker.utf8), sessionInfo: Self.marker, hashingAlgorithm: "SHA1", codeLength: 6,
            codeIntervalSeconds: 30, enrollmentCompletionDeadline: Date())
        Self.expectNoMarker(secret, "TOTPSecret")
        Self.expectNoMarker(secret.snapshot, "TOTPSecret.Snapshot")
        let resolver = MultiFactorResolver(
            hints: [],
            session: MultiFactorSession(
                kind: .signIn(pendingCredential: Self.marker), tenantID: nil, context: Auth.auth().context),
            auth: Auth.auth())
        Self.expectNoMarker(resolver.snapshot, "MultiFactorResolver.Snapshot")
        Self.expectNoMarker(
            TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: "e", oneTimePassword: Self.marker),
            "TOTPMultiFactorAssertion")
        Self.expectNoMarker(
            TOTPMultiFactorGenerator.assertionForEnrollment(with: secret, oneTimePassword: Self.marker),
            "enrollment assertion")
    }

    @Test func generatedModelsWithSensitiveFields() {
        let m = Self.marker
        let values: [(String, Any)] = [
            ("SignUpRequest", SignUpRequest(email: "a@example.com", password: m)),
            ("SignInWithPasswordRequest", SignInWithPasswordRequest(email: "a@example.com", password: m)),
            ("SignUpResponse", SignUpResponse(localId: "u", idToken: m, refreshToken: m)),
            (
                "StartMfaPhoneRequestInfo",
                StartMfaPhoneRequestInfo(
                    phoneNumber: "+15555550100", iosReceipt: m, iosSecret: m, recaptchaToken: m, playIntegrityToken: m)
            ),
            (
                "FinalizeTotpMfaEnrollmentRequestInfo",
                FinalizeTotpMfaEnrollmentRequestInfo(sessionInfo: m, verificationCode: m)
            ),
            ("MfaTotpSignInRequestInfo", MfaTotpSignInRequestInfo(verificationCode: m)),
            (
                "StartTotpMfaEnrollmentResponseInfo",
                StartTotpMfaEnrollmentResponseInfo(sharedSecretKey: m, sessionInfo: m)
            ),
            ("SetAccountInfoRequest", SetAccountInfoRequest(oobCode: m, idToken: m, password: m)),
        ]
        for (name, value) in values { Self.expectNoMarker(value, name) }
    }
}
