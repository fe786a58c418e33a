#if Emulator
import Foundation
import IdentityToolkit

/// SMS second factors: the emulator lists the codes it would send
/// (`/emulator/v1/projects/{project}/verificationCodes`) instead of sending them.
extension MultiFactorRules {
    /// Whether `number` is an E.164 number.
    static func isPhoneNumber(_ number: String) -> Bool {
        IdentityPlatformLimits.isE164PhoneNumber(number)
    }

    /// "Sends" a six-digit code to `number`; returns its session info.
    static func sendCode(
        _ state: inout EmulatorState, to number: String, realm: Realm, purpose: PhoneVerification.Purpose,
        _ context: RuleContext
    ) -> String {
        SessionRules.sweepExpiredState(&state, now: context.now)
        var generator = SystemRandomNumberGenerator()
        let code = String(format: "%06d", Int.random(in: 0..<1_000_000, using: &generator))
        let sessionInfo = Data.randomToken(bytes: 32)
        state.outOfBand.phoneVerifications.append(
            PhoneVerification(
                sessionInfo: sessionInfo, phoneNumber: number, code: code, realm: realm, purpose: purpose,
                expiresAt: context.now.addingTimeInterval(EmulatorRules.enrollmentDeadline)),
            key: sessionInfo)
        return sessionInfo
    }

    /// Starts an SMS enrollment for the user of an ID token signed in at `authTime`.
    static func startPhoneEnrollment(
        _ state: inout EmulatorState, user: EmulatedUser, phoneNumber: String, authTime: Date,
        _ context: RuleContext
    ) throws -> String {
        try SessionRules.checkRecentSignIn(authTime, context)
        guard isPhoneNumber(phoneNumber) else { throw APIServerError.invalidPhoneNumber("Invalid format.") }
        try checkCanEnroll(state, user, phoneNumber: phoneNumber)
        return sendCode(&state, to: phoneNumber, realm: user.realm, purpose: .enroll(uid: user.localId), context)
    }

    /// Takes (once) the verification of `sessionInfo` when `code` is its code.
    static func takeVerification(
        _ state: inout EmulatorState, _ sessionInfo: String, code: String, _ context: RuleContext
    ) throws -> PhoneVerification {
        guard let verification = state.outOfBand.phoneVerifications[sessionInfo] else {
            throw APIServerError.invalidSessionInfo
        }
        guard context.now < verification.expiresAt else {
            state.outOfBand.phoneVerifications.remove(sessionInfo)
            throw APIServerError.sessionExpired
        }
        guard verification.code == code else { throw APIServerError.invalidCode }
        state.outOfBand.phoneVerifications.remove(sessionInfo)
        return verification
    }

    /// Enrolls the phone of an SMS enrollment whose code is right.
    static func finalizePhoneEnrollment(
        _ state: inout EmulatorState, user: EmulatedUser, sessionInfo: String, code: String,
        displayName: String?, facts: SessionFacts, _ context: RuleContext
    ) throws -> SessionGrant {
        try SessionRules.checkRecentSignIn(facts.authTime, context)
        try InputRules.checkDisplayName(displayName)
        guard let pending = state.outOfBand.phoneVerifications[sessionInfo],
            case .enroll(let owner) = pending.purpose,
            owner == user.localId, pending.realm == user.realm
        else {
            throw APIServerError.invalidSessionInfo
        }
        var user = try AccountRules.activeUser(state, user.localId, in: user.realm)
        try checkCanEnroll(state, user, phoneNumber: pending.phoneNumber)
        let verification = try takeVerification(&state, sessionInfo, code: code, context)
        let id = Data.randomToken(bytes: 12)
        user.enrollments.append(
            SecondFactor(
                id: id, displayName: displayName, enrolledAt: context.now,
                kind: .phone(number: verification.phoneNumber)))
        state.store(user)
        OutOfBandRules.issueRevertOfFactor(&state, enrollmentID: id, user: user)
        return SessionRules.grant(
            &state, for: user,
            facts: SessionFacts(
                provider: facts.provider, secondFactor: .phone, secondFactorID: id, authTime: facts.authTime,
                developerClaims: facts.developerClaims), context)
    }

    /// Sends the code of a sign-in's phone factor.
    static func startPhoneSignIn(
        _ state: inout EmulatorState, pendingCredential: String, enrollmentID: String, _ context: RuleContext
    ) throws -> String {
        let pending = try self.pendingCredential(&state, pendingCredential, context)
        let user = try AccountRules.activeUser(state, pending.uid, in: pending.realm)
        guard let factor = user.enrollments.first(where: { $0.id == enrollmentID }) else {
            throw APIServerError.mfaEnrollmentNotFound
        }
        guard let number = factor.phoneNumber else {
            throw APIServerError.invalidArgument(
                "TOTP factors have no start step: call mfaSignIn:finalize with totpVerificationInfo")
        }
        return sendCode(
            &state, to: number, realm: pending.realm,
            purpose: .signIn(pendingCredential: pendingCredential, enrollmentID: enrollmentID), context)
    }

    /// Completes a sign-in with the SMS code of its phone factor.
    static func finalizePhoneSignIn(
        _ state: inout EmulatorState, pendingCredential: String, sessionInfo: String, code: String,
        _ context: RuleContext
    ) throws -> SessionGrant {
        let pending = try self.pendingCredential(&state, pendingCredential, context)
        guard let verification = state.outOfBand.phoneVerifications[sessionInfo],
            case .signIn(let credential, let enrollmentID) = verification.purpose,
            credential == pendingCredential
        else {
            throw APIServerError.invalidSessionInfo
        }
        _ = try takeVerification(&state, sessionInfo, code: code, context)
        state.sessions.pendingCredentials[pendingCredential] = nil
        var user = try AccountRules.activeUser(state, pending.uid, in: pending.realm)
        user.lastLoginAt = context.now
        state.store(user)
        return SessionRules.grant(
            &state, for: user,
            facts: SessionFacts(
                provider: pending.provider, secondFactor: .phone, secondFactorID: enrollmentID,
                authTime: context.now), context)
    }

    /// The SMS codes "sent" in a realm, oldest first.
    static func listVerificationCodes(_ state: EmulatorState, realm: Realm) -> [PhoneVerification] {
        state.outOfBand.phoneVerifications.inOrder.filter { verification in
            if case .temporaryProof = verification.purpose { return false }
            return verification.realm == realm
        }
    }
}
#endif
