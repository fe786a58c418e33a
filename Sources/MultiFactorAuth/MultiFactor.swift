import Foundation
import IdentitySupport
import IdentityToolkit

/// A user's second factors: list, enroll, unenroll.
public final class MultiFactor: Sendable {
    let context: AuthContext
    private let owner = Locked<WeakUser?>(nil)

    init(context: AuthContext) {
        self.context = context
    }

    var user: WeakUser? {
        get { owner.current }
        set { owner.withLock { $0 = newValue } }
    }

    private func currentUser() throws -> User {
        guard let user = owner.current?.user else { throw AuthErrorCode(.nullUser) }
        return user
    }

    /// The enrolled factors, as of the last sign-in, change or `reload()`.
    public var enrolledFactors: [MultiFactorInfo] {
        (owner.current?.user?.state.current.factors ?? []).map(MultiFactorInfo.make)
    }

    /// A session for enrolling a factor. Sends no request: it captures the
    /// current ID token, refreshed first when it is near expiry.
    public func session() async throws -> MultiFactorSession {
        let user = try currentUser()
        let idToken = try await user.getIDToken()
        return MultiFactorSession(kind: .enrollment(idToken: idToken), tenantID: user.tenantID, context: context)
    }

    /// Completes an enrollment with an assertion from
    /// ``TOTPMultiFactorGenerator/assertionForEnrollment(with:oneTimePassword:)``.
    /// Production refuses a TOTP factor without a name, so a nil or empty
    /// `displayName` is sent as ``TOTPMultiFactorGenerator/defaultDisplayName``.
    /// - Throws: ``AuthErrorCode`` — `invalidVerificationCode` for a wrong or
    ///   reused code, `missingMultiFactorInfo` for an assertion that is not for enrollment, …
    public func enroll(with assertion: MultiFactorAssertion, displayName: String?) async throws {
        let user = try currentUser()
        guard let totp = assertion as? TOTPMultiFactorAssertion else {
            throw AuthErrorCode(
                .operationNotAllowed, message: "Only TOTP second factors can be enrolled with this SDK.")
        }
        guard let secret = totp.secret else {
            throw AuthErrorCode(
                .missingMultiFactorInfo,
                message:
                    "This assertion is not for enrollment: make it with assertionForEnrollment(with:oneTimePassword:) and a secret."
            )
        }
        let idToken = try await user.getIDToken()
        let backend = try context.backend()
        let tenant = user.tenantID
        let response = try await AuthErrorMapping.perform {
            try await backend.accounts.finalizeMfaEnrollment(
                FinalizeMfaEnrollmentRequest(
                    idToken: idToken,
                    displayName: displayName.flatMap { $0.isEmpty ? nil : $0 }
                        ?? TOTPMultiFactorGenerator.defaultDisplayName, tenantId: tenant,
                    totpVerificationInfo: FinalizeTotpMfaEnrollmentRequestInfo(
                        sessionInfo: secret.sessionInfo, verificationCode: totp.oneTimePassword)))
        }
        guard let newToken = response.idToken else {
            throw AuthErrorCode(.internalError, message: "The enrollment response has no ID token.")
        }
        try await user.updateTokens(idToken: newToken, refreshToken: response.refreshToken, expiresIn: nil)
        try await user.reload()
    }

    /// Removes a factor. The user's other sessions end (their next refresh
    /// fails with `userTokenExpired`); this one gets fresh tokens.
    public func unenroll(with factorInfo: MultiFactorInfo) async throws {
        try await unenroll(withFactorUID: factorInfo.uid)
    }

    /// Removes the factor with id `factorUID`.
    public func unenroll(withFactorUID factorUID: String) async throws {
        let user = try currentUser()
        let idToken = try await user.getIDToken()
        let backend = try context.backend()
        let tenant = user.tenantID
        let response = try await AuthErrorMapping.perform {
            try await backend.accounts.withdrawMfa(
                WithdrawMfaRequest(idToken: idToken, mfaEnrollmentId: factorUID, tenantId: tenant))
        }
        // No tokens: the server ended every session, this one included (the
        // most recently enrolled of several factors was withdrawn). As
        // Firebase does, the user is signed out and the call fails.
        guard let newToken = response.idToken else {
            context.sessionEnded(for: user.uid)
            throw AuthErrorCode(.invalidUserToken)
        }
        try await user.updateTokens(idToken: newToken, refreshToken: response.refreshToken, expiresIn: nil)
        try await user.reload()
    }
}
