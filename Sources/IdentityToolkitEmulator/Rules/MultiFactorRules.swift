#if Emulator
import Foundation
import IdentityToolkit
import IdentityOTP

/// Second factors, TOTP here and SMS in `PhoneFactorRules.swift`: who may
/// enroll, enrollment, the sign-in challenge after the password, and
/// withdrawal; with production's attempt limit, challenge lifetime and
/// recent-sign-in rule (``SecondFactorRules``).
enum MultiFactorRules {
    /// Refuses an enrollment the user may not make: anonymous users, an
    /// unverified address, the factor limit, a provider the realm does not
    /// enable, a factor of the same kind (or number) already enrolled.
    static func checkCanEnroll(_ state: EmulatorState, _ user: EmulatedUser, phoneNumber: String? = nil) throws {
        if user.isAnonymous {
            throw APIServerError.unsupportedFirstFactor("anonymous users cannot enroll a second factor")
        }
        guard user.email != nil, user.emailVerified else {
            throw APIServerError.unverifiedEmail("Need to verify email first before enrolling second factors.")
        }
        if user.enrollments.count >= IdentityPlatformLimits.maximumSecondFactors {
            throw APIServerError.secondFactorLimitExceeded
        }
        if let phoneNumber {
            guard TenantRules.allowsSMSFactors(state, in: user.realm) else {
                throw APIServerError.operationNotAllowed(
                    "SMS second factors are not enabled: add PHONE_SMS to mfa.enabledProviders")
            }
            if user.enrollments.contains(where: { $0.phoneNumber == phoneNumber }) {
                throw APIServerError.secondFactorExists(
                    "Phone number already enrolled as second factor for this account.")
            }
        } else {
            guard TenantRules.totpWindow(state, of: user.realm) != nil else {
                throw APIServerError.operationNotAllowed(
                    "TOTP is not enabled: set mfa.providerConfigs[].state ENABLED with a totpProviderConfig")
            }
            if user.enrollments.contains(where: \.isTOTP) {
                throw APIServerError.secondFactorExists("a TOTP second factor is already enrolled")
            }
        }
    }

    /// A new TOTP secret for the user of an ID token signed in at `authTime`.
    static func startTotpEnrollment(
        _ state: inout EmulatorState, user: EmulatedUser, authTime: Date,
        _ context: RuleContext
    ) throws -> (sessionInfo: String, secret: [UInt8], deadline: Date) {
        SessionRules.sweepExpiredState(&state, now: context.now)
        try SessionRules.checkRecentSignIn(authTime, context)
        try checkCanEnroll(state, user)
        let secret = try OTPSecret.generate(byteCount: IdentityPlatformLimits.totpSecretBytes)
        let sessionInfo = Data.randomToken(bytes: 32)
        let deadline = context.now.addingTimeInterval(EmulatorRules.enrollmentDeadline)
        state.sessions.enrollmentSessions[sessionInfo] = EnrollmentSession(
            uid: user.localId, realm: user.realm, enrollmentID: Data.randomToken(bytes: 12), secret: secret,
            expiresAt: deadline)
        return (sessionInfo, secret, deadline)
    }

    /// The outcome of checking one TOTP code.
    enum CodeCheck {
        case accepted(step: UInt64)
        /// A wrong or replayed code: `detail` says which; `failures` is the new count.
        case refused(detail: String, failures: Int)
        /// The attempt limit was reached before this code: no code is checked.
        case tooManyAttempts
    }

    /// Checks a TOTP code within the realm's window, refusing replays and
    /// counting failures against the attempt limit.
    static func check(
        _ state: EmulatorState, code: String, secret: [UInt8], lastAccepted: UInt64?, realm: Realm, failures: Int,
        _ context: RuleContext
    ) throws -> CodeCheck {
        guard let window = TenantRules.totpWindow(state, of: realm) else {
            throw APIServerError.operationNotAllowed("TOTP is not enabled")
        }
        let totp = try TOTP(
            key: secret, digits: IdentityPlatformLimits.totpDigits, period: IdentityPlatformLimits.totpPeriodSeconds
        )
        let now = Int64(context.now.timeIntervalSince1970.rounded(.down))
        var count = failures
        let result: TOTPVerifier.Result
        do {
            result = try TOTPVerifier.check(
                code, totp: totp, window: window, at: max(0, now), lastAcceptedStep: lastAccepted,
                failures: &count, limit: context.attemptLimit)
        } catch OTPError.Code.tooManyAttempts {
            return .tooManyAttempts
        }
        switch result {
        case .accepted(let step): return .accepted(step: step)
        case .replayed: return .refused(detail: "The verification code was already used.", failures: count)
        case .invalid: return .refused(detail: "The verification code is not valid.", failures: count)
        }
    }

    /// The error of a code the attempt limit stopped.
    static let tooManyAttempts = APIServerError.tooManyAttemptsTryLater("too many wrong codes: start again")

    /// Enrolls the TOTP factor of an enrollment session once its first code
    /// is right; the session's tokens keep the first factor of the sign-in
    /// (`facts.provider`) and record TOTP as its second.
    static func finalizeTotpEnrollment(
        _ state: inout EmulatorState, user: EmulatedUser, sessionInfo: String, code: String,
        displayName: String?, facts: SessionFacts, _ context: RuleContext
    ) throws -> SessionGrant {
        try InputRules.requireFactorDisplayName(displayName)
        try InputRules.checkDisplayName(displayName)
        guard let session = state.sessions.enrollmentSessions[sessionInfo], session.uid == user.localId,
            session.realm == user.realm
        else {
            throw APIServerError.invalidSessionInfo("unknown TOTP enrollment session")
        }
        guard context.now < session.expiresAt else {
            state.sessions.enrollmentSessions[sessionInfo] = nil
            throw APIServerError.sessionExpired("the TOTP enrollment session is past its finalizeEnrollmentTime")
        }
        try SessionRules.checkRecentSignIn(facts.authTime, context)
        var user = try AccountRules.activeUser(state, user.localId, in: user.realm)
        try checkCanEnroll(state, user)
        switch try check(
            state, code: code, secret: session.secret, lastAccepted: nil, realm: user.realm,
            failures: session.failedAttempts, context)
        {
        case .tooManyAttempts:
            // At the limit the session is over.
            state.sessions.enrollmentSessions[sessionInfo] = nil
            throw tooManyAttempts
        case .refused(let detail, let failures):
            state.sessions.enrollmentSessions[sessionInfo]?.failedAttempts = failures
            throw APIServerError.invalidCode(detail)
        case .accepted(let step):
            state.sessions.enrollmentSessions[sessionInfo] = nil
            user.enrollments.append(
                SecondFactor(
                    id: session.enrollmentID, displayName: displayName, enrolledAt: context.now,
                    kind: .totp(secret: session.secret, lastAcceptedStep: step)))
            state.store(user)
            OutOfBandRules.issueRevertOfFactor(&state, enrollmentID: session.enrollmentID, user: user)
            return SessionRules.grant(
                &state, for: user,
                facts: SessionFacts(
                    provider: facts.provider, secondFactor: .totp, secondFactorID: session.enrollmentID,
                    authTime: facts.authTime,
                    developerClaims: facts.developerClaims), context)
        }
    }

    /// Withdraws a factor. Earlier sessions end; the caller gets a new
    /// session, except when the user had several factors and withdrew the
    /// most recently enrolled one: then every session ends, the caller's
    /// included (nil: the response carries no tokens, and the client's user
    /// is signed out, as the docs describe).
    static func withdraw(
        _ state: inout EmulatorState, user: EmulatedUser, enrollmentID: String, facts: SessionFacts,
        _ context: RuleContext
    ) throws -> SessionGrant? {
        try SessionRules.checkRecentSignIn(facts.authTime, context)
        var user = try AccountRules.activeUser(state, user.localId, in: user.realm)
        guard let index = user.enrollments.firstIndex(where: { $0.id == enrollmentID }) else {
            throw APIServerError.mfaEnrollmentNotFound
        }
        let endsEverySession = user.enrollments.count >= 2 && index == user.enrollments.count - 1
        user.enrollments.remove(at: index)
        user.listsWithdrawnFactors = context.googleCompatible && user.enrollments.isEmpty
        // Earlier sessions end: their refresh tokens now get TOKEN_EXPIRED.
        SessionRules.revokeSessions(of: &user, at: context.now)
        state.store(user)
        if endsEverySession { return nil }
        var facts = facts
        // The caller's new session starts now: with its old sign-in time its
        // tokens would fail every `checkRevoked` (auth_time before validSince),
        // and a session cookie made from them at once. The withdrawal needed
        // a recent sign-in, so the caller has just proved who they are.
        facts.authTime = max(facts.authTime, user.validSince)
        if facts.secondFactorID == enrollmentID {
            facts.secondFactor = nil
            facts.secondFactorID = nil
        }
        return SessionRules.grant(&state, for: user, facts: facts, context)
    }

    /// A live pending credential; an expired one is forgotten and refused
    /// (`TOTP_CHALLENGE_TIMEOUT` on the TOTP path, as production answers).
    static func pendingCredential(
        _ state: inout EmulatorState, _ credential: String, totp: Bool = false, _ context: RuleContext
    ) throws -> PendingCredential {
        guard let pending = state.sessions.pendingCredentials[credential] else {
            throw APIServerError.invalidMfaPendingCredential("unknown or already used")
        }
        guard context.now < pending.expiresAt else {
            state.sessions.pendingCredentials[credential] = nil
            if totp {
                throw APIServerError.totpChallengeTimeout("TOTP challenge timeout, provide first factor again.")
            }
            throw APIServerError.invalidMfaPendingCredential("expired")
        }
        return pending
    }

    /// Completes a sign-in with a TOTP code: the session names the pending
    /// credential's first factor and TOTP as its second.
    static func finalizeTotpSignIn(
        _ state: inout EmulatorState, pendingCredential: String, enrollmentID: String, code: String,
        requestTenant: String?, _ context: RuleContext
    ) throws -> SessionGrant {
        let pending = try self.pendingCredential(&state, pendingCredential, totp: true, context)
        if let requestTenant, !requestTenant.isEmpty, requestTenant != pending.realm.tenant {
            throw APIServerError.tenantIdMismatch
        }
        var user = try AccountRules.activeUser(state, pending.uid, in: pending.realm)
        guard let index = user.enrollments.firstIndex(where: { $0.id == enrollmentID }) else {
            throw APIServerError.mfaEnrollmentNotFound
        }
        guard case .totp(let secret, let lastAccepted) = user.enrollments[index].kind else {
            throw APIServerError.invalidArgument("the factor is a phone factor: send phoneVerificationInfo")
        }
        switch try check(
            state, code: code, secret: secret, lastAccepted: lastAccepted, realm: pending.realm,
            failures: pending.failedAttempts, context)
        {
        case .tooManyAttempts:
            // At the limit the challenge is over: the password is needed again.
            state.sessions.pendingCredentials[pendingCredential] = nil
            throw tooManyAttempts
        case .refused(let detail, let failures):
            state.sessions.pendingCredentials[pendingCredential]?.failedAttempts = failures
            throw APIServerError.invalidCode(detail)
        case .accepted(let step):
            user.enrollments[index].kind = .totp(secret: secret, lastAcceptedStep: step)
            state.sessions.pendingCredentials[pendingCredential] = nil
            user.lastLoginAt = context.now
            state.store(user)
            return SessionRules.grant(
                &state, for: user,
                facts: SessionFacts(
                    provider: pending.provider, secondFactor: .totp, secondFactorID: enrollmentID,
                    authTime: context.now), context)
        }
    }
}
#endif
