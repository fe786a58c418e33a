public import Foundation
import IdentitySupport
import IdentityToolkit

// What a multi-factor flow passes around: enrolled factors, assertions, the session, the resolver and the sign-in's result.

/// An enrolled second factor.
public class MultiFactorInfo: @unchecked Sendable, CustomStringConvertible {
    /// The factor's id (`mfaEnrollmentId`).
    public let uid: String
    /// The name the user gave it.
    public let displayName: String?
    /// When it was enrolled.
    public let enrollmentDate: Date
    /// ``TOTPMultiFactorID`` or ``PhoneMultiFactorID``.
    public let factorID: String

    init(uid: String, displayName: String?, enrollmentDate: Date, factorID: String) {
        self.uid = uid
        self.displayName = displayName
        self.enrollmentDate = enrollmentDate
        self.factorID = factorID
    }

    /// The factor's kind, ID, name and factor ID.
    public var description: String {
        "\(type(of: self))(uid: \(uid), displayName: \(displayName ?? "nil"), factorID: \(factorID))"
    }

    var stored: AuthSession.Factor {
        AuthSession.Factor(
            uid: uid, displayName: displayName, enrollmentDate: enrollmentDate, factorID: factorID,
            phoneNumber: (self as? PhoneMultiFactorInfo)?.phoneNumber)
    }

    static func make(_ factor: AuthSession.Factor) -> MultiFactorInfo {
        if factor.factorID == PhoneMultiFactorID {
            return PhoneMultiFactorInfo(
                uid: factor.uid, displayName: factor.displayName, enrollmentDate: factor.enrollmentDate,
                phoneNumber: factor.phoneNumber ?? "")
        }
        return TOTPMultiFactorInfo(
            uid: factor.uid, displayName: factor.displayName, enrollmentDate: factor.enrollmentDate,
            factorID: factor.factorID)
    }

    /// The factors of a response; unknown kinds are skipped, a factor without
    /// an id or an enrollment time is an error.
    static func factors(from enrollments: [MfaEnrollment]) throws -> [MultiFactorInfo] {
        try enrollments.compactMap { enrollment in
            guard enrollment.totpInfo != nil || enrollment.phoneInfo != nil else { return nil }
            guard let uid = enrollment.mfaEnrollmentId, let date = enrollment.enrolledAt else {
                throw AuthErrorCode(
                    .internalError, message: "The server sent a second factor without an id or an enrollment time.")
            }
            if let phone = enrollment.phoneInfo {
                return PhoneMultiFactorInfo(
                    uid: uid, displayName: enrollment.displayName, enrollmentDate: date, phoneNumber: phone)
            }
            return TOTPMultiFactorInfo(
                uid: uid, displayName: enrollment.displayName, enrollmentDate: date, factorID: TOTPMultiFactorID)
        }
    }
}

/// A TOTP second factor.
public final class TOTPMultiFactorInfo: MultiFactorInfo, @unchecked Sendable {}

/// An SMS second factor.
public final class PhoneMultiFactorInfo: MultiFactorInfo, @unchecked Sendable {
    /// The phone number (masked in sign-in hints).
    public let phoneNumber: String

    init(uid: String, displayName: String?, enrollmentDate: Date, phoneNumber: String) {
        self.phoneNumber = phoneNumber
        super.init(uid: uid, displayName: displayName, enrollmentDate: enrollmentDate, factorID: PhoneMultiFactorID)
    }
}

/// Proof of a second factor, for enrolling it or signing in with it.
public class MultiFactorAssertion: @unchecked Sendable {
    /// The kind of factor.
    public let factorID: String

    init(factorID: String) {
        self.factorID = factorID
    }
}

/// A TOTP code, for enrollment (with a secret) or sign-in (with an enrollment id).
public final class TOTPMultiFactorAssertion: MultiFactorAssertion, @unchecked Sendable, CustomReflectable {
    let secret: TOTPSecret?
    let enrollmentID: String?
    let oneTimePassword: String

    init(secret: TOTPSecret?, enrollmentID: String?, oneTimePassword: String) {
        self.secret = secret
        self.enrollmentID = enrollmentID
        self.oneTimePassword = oneTimePassword
        super.init(factorID: TOTPMultiFactorID)
    }
}

/// An SMS code. This SDK does not send SMS codes; the type exists for API parity.
public final class PhoneMultiFactorAssertion: MultiFactorAssertion, @unchecked Sendable {
    init() {
        super.init(factorID: PhoneMultiFactorID)
    }
}

/// The context of an enrollment (the user's ID token) or of a sign-in (the
/// pending credential of the first factor). Opaque.
public final class MultiFactorSession: Sendable, CustomReflectable {
    enum Kind: Sendable {
        case enrollment(idToken: String)
        case signIn(pendingCredential: String)
    }

    let kind: Kind
    let tenantID: String?
    let context: AuthContext

    init(kind: Kind, tenantID: String?, context: AuthContext) {
        self.kind = kind
        self.tenantID = tenantID
        self.context = context
    }
}

/// Completes a sign-in that needs a second factor. A *second factor
/// required* error carries it under ``AuthErrorUserInfoMultiFactorResolverKey``.
public final class MultiFactorResolver: Sendable {
    /// The factors the user can complete the sign-in with.
    public let hints: [MultiFactorInfo]
    /// The sign-in's session.
    public let session: MultiFactorSession
    /// The `Auth` that started the sign-in.
    public let auth: Auth

    /// The uid of the user a re-authentication is for: a sign-in of any
    /// other user is refused before it is saved.
    let reauthenticating: String?

    init(hints: [MultiFactorInfo], session: MultiFactorSession, auth: Auth, reauthenticating: String? = nil) {
        self.hints = hints
        self.session = session
        self.auth = auth
        self.reauthenticating = reauthenticating
    }

    /// Signs in with a second factor, from
    /// ``TOTPMultiFactorGenerator/assertionForSignIn(withEnrollmentID:oneTimePassword:)``.
    public func resolveSignIn(with assertion: MultiFactorAssertion) async throws -> AuthDataResult {
        guard case .signIn(let pendingCredential) = session.kind else {
            throw AuthErrorCode(
                .invalidMultiFactorSession, message: "This session is for enrollment, not for signing in.")
        }
        guard let totp = assertion as? TOTPMultiFactorAssertion else {
            throw AuthErrorCode(
                .operationNotAllowed, message: "Only TOTP second factors can complete a sign-in with this SDK.")
        }
        guard let enrollmentID = totp.enrollmentID else {
            throw AuthErrorCode(
                .missingMultiFactorInfo,
                message:
                    "This assertion is for enrollment: make it with assertionForSignIn(withEnrollmentID:oneTimePassword:)."
            )
        }
        let backend = try auth.context.backend()
        let tenant = session.tenantID
        let response = try await AuthErrorMapping.perform {
            try await backend.accounts.finalizeMfaSignIn(
                FinalizeMfaSignInRequest(
                    mfaPendingCredential: pendingCredential, mfaEnrollmentId: enrollmentID, tenantId: tenant,
                    totpVerificationInfo: MfaTotpSignInRequestInfo(verificationCode: totp.oneTimePassword)))
        }
        guard let idToken = response.idToken, let refreshToken = response.refreshToken else {
            throw AuthErrorCode(.internalError, message: "The sign-in response has no tokens.")
        }
        // A re-authentication keeps its user: another user's tokens are
        // never saved (Firebase's ERROR_USER_MISMATCH).
        if let reauthenticating, IDToken.claims(of: idToken)?.sub != reauthenticating {
            throw AuthErrorCode(.userMismatch)
        }
        let user = try await auth.completeSignIn(
            idToken: idToken, refreshToken: refreshToken, expiresIn: nil, tenantID: tenant)
        // The first factor of this sign-in, as the server recorded it (the
        // resolver may finish a sign-in that did not start with a password).
        let provider = IDToken.claims(of: idToken)?.firebase.signInProvider ?? EmailAuthProvider.id
        return AuthDataResult(
            user: user, additionalUserInfo: AdditionalUserInfo(providerID: provider, isNewUser: false))
    }
}

/// The result of a sign-in.
public final class AuthDataResult: Sendable {
    /// The signed-in user.
    public let user: User
    /// What the provider said about the sign-in.
    public let additionalUserInfo: AdditionalUserInfo?

    init(user: User, additionalUserInfo: AdditionalUserInfo?) {
        self.user = user
        self.additionalUserInfo = additionalUserInfo
    }
}

/// Provider details of a sign-in.
public final class AdditionalUserInfo: Sendable {
    /// `password`, `anonymous`, …
    public let providerID: String
    /// Whether the sign-in created the user.
    public let isNewUser: Bool

    init(providerID: String, isNewUser: Bool) {
        self.providerID = providerID
        self.isNewUser = isNewUser
    }
}

extension TOTPMultiFactorAssertion {
    /// What `dump` and debuggers show: the code redacted.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "factorID": factorID, "enrollmentID": enrollmentID as Any,
                "oneTimePassword": RedactedValue(oneTimePassword),
            ],
            displayStyle: .class)
    }
}

extension MultiFactorSession {
    /// What `dump` and debuggers show: the ID token or pending credential redacted.
    public var customMirror: Mirror {
        let purpose: String
        switch kind {
        case .enrollment: purpose = "enrollment"
        case .signIn: purpose = "signIn"
        }
        return Mirror(
            self, children: ["purpose": purpose, "credential": RedactedValue("present"), "tenantID": tenantID as Any],
            displayStyle: .class)
    }
}
