#if Emulator
import Foundation
import IdentityToolkit

/// Email action codes (verification, password reset, sign-in links, email
/// change and recovery): made, listed instead of sent, and applied once.
enum OutOfBandRules {
    /// What `accounts:sendOobCode` asks for, checked in production's order.
    struct Request: Sendable {
        var requestType: OobRequestType?
        var email: String?
        var newEmail: String?
        /// The user of the request's ID token, for the kinds that take one.
        var tokenUser: EmulatedUser?
        var hasIDToken = false
        var returnOobLink = false
        var continueUrl: String?
        var isAdmin = false
    }

    /// Makes the code `request` asks for, or nil when production answers
    /// without making one (a reset for an unknown address under improved
    /// email privacy); the address it names.
    static func send(
        _ state: inout EmulatorState, realm: Realm, _ request: Request,
        _ context: RuleContext
    ) throws -> (code: OutOfBandCode?, email: String) {
        try TenantRules.checkAuthEnabled(state, realm)
        guard let type = request.requestType, !type.rawValue.isEmpty else { throw APIServerError.missingReqType }
        if request.returnOobLink, !request.isAdmin { throw APIServerError.insufficientPermission }
        if let url = request.continueUrl, !url.isEmpty, !InputRules.isAbsoluteURI(url) {
            throw APIServerError.invalidContinueUri("expected an absolute URI with valid scheme and host")
        }
        let accounts = state.accounts(in: realm)
        let email = request.email.flatMap { $0.isEmpty ? nil : InputRules.emailKey($0) }
        switch type {
        case .emailSignin:
            guard TenantRules.switches(state, of: realm).enableEmailLinkSignin else {
                throw APIServerError.operationNotAllowed
            }
            guard let email else { throw APIServerError.missingEmail }
            let code = issue(
                &state, requestType: type, email: email, user: accounts.user(email: email), realm: realm,
                continueUrl: request.continueUrl)
            return (code, email)
        case .passwordReset:
            guard let email else { throw APIServerError.missingEmail }
            guard let user = accounts.user(email: email) else {
                if state.improvedEmailPrivacy(of: realm.project, context) { return (nil, email) }
                throw APIServerError.emailNotFound
            }
            return (
                issue(
                    &state, requestType: type, email: email, user: user, realm: realm,
                    continueUrl: request.continueUrl), email
            )
        case .verifyEmail:
            let user: EmulatedUser
            if request.returnOobLink && !request.hasIDToken {
                guard let email else { throw APIServerError.missingEmail }
                guard let found = accounts.user(email: email) else { throw APIServerError.userNotFound }
                user = found
            } else {
                guard let tokenUser = request.tokenUser else { throw APIServerError.missingIdToken }
                user = tokenUser
            }
            guard let address = user.email else { throw APIServerError.missingEmail }
            return (
                issue(
                    &state, requestType: type, email: address, user: user, realm: realm,
                    continueUrl: request.continueUrl), address
            )
        case .verifyAndChangeEmail:
            guard let newEmail = request.newEmail, !newEmail.isEmpty else { throw APIServerError.missingNewEmail }
            guard InputRules.isValidEmail(newEmail) else { throw APIServerError.invalidEmail }
            let user: EmulatedUser
            if request.returnOobLink && !request.hasIDToken {
                guard let email else { throw APIServerError.missingEmail }
                guard let found = accounts.user(email: email) else { throw APIServerError.userNotFound }
                user = found
            } else {
                guard let tokenUser = request.tokenUser else { throw APIServerError.missingIdToken }
                user = tokenUser
            }
            guard let address = user.email else { throw APIServerError.missingEmail }
            try state.checkEmailAvailable(newEmail, for: user.localId, in: realm)
            let code = issue(
                &state, requestType: type, email: address, newEmail: InputRules.emailKey(newEmail), user: user,
                realm: realm,
                continueUrl: request.continueUrl)
            return (code, address)
        default:
            throw APIServerError.notImplemented("requestType \(type.rawValue) is not emulated")
        }
    }

    /// A new code of `requestType` to `email` for `user` (nil: an email
    /// sign-in of an address without an account). At most
    /// ``EmulatorRules/maximumStoredOobCodes`` unused codes are kept.
    @discardableResult
    static func issue(
        _ state: inout EmulatorState, requestType: OobRequestType, email: String, newEmail: String? = nil,
        user: EmulatedUser?,
        realm: Realm? = nil, continueUrl: String? = nil, mfaEnrollmentID: String? = nil
    ) -> OutOfBandCode {
        let code = OutOfBandCode(
            code: Data.randomToken(bytes: 24), email: email, newEmail: newEmail, requestType: requestType,
            uid: user?.localId,
            realm: realm ?? user?.realm ?? Realm(project: "", tenant: nil),
            continueUrl: continueUrl?.isEmpty == false ? continueUrl : nil, mfaEnrollmentID: mfaEnrollmentID)
        state.outOfBand.oobCodes.append(code, key: code.code, keeping: EmulatorRules.maximumStoredOobCodes)
        return code
    }

    /// The notice production mails when a second factor is enrolled on an
    /// account with an address: its "this wasn't me" link carries a
    /// `REVERT_SECOND_FACTOR_ADDITION` code that removes that factor.
    /// Listed with the other codes; nothing when the account has no address.
    static func issueRevertOfFactor(_ state: inout EmulatorState, enrollmentID: String, user: EmulatedUser) {
        guard let email = user.email else { return }
        issue(
            &state, requestType: .revertSecondFactorAddition, email: email, user: user, realm: user.realm,
            mfaEnrollmentID: enrollmentID)
    }

    /// A code's account, enabled (`INVALID_OOB_CODE` when it has none any more).
    static func account(of entry: OutOfBandCode, _ state: EmulatorState) throws -> EmulatedUser {
        guard let uid = entry.uid, let user = state.user(uid, in: entry.realm) else {
            throw APIServerError.invalidOobCode
        }
        if user.disabled { throw APIServerError.userDisabled }
        return user
    }

    /// What an action link's page does with its code: checks that the code
    /// is for `requestType`, then applies it once (a verification marks the
    /// address verified; a reset sets `newPassword` and ends the user's sessions).
    /// - Returns: the address the code was for.
    static func applyActionLink(
        _ state: inout EmulatorState, code: String, requestType: OobRequestType, newPassword: String?,
        _ context: RuleContext
    ) throws -> String {
        guard let entry = state.outOfBand.oobCodes[code], entry.requestType == requestType else {
            throw APIServerError.invalidOobCode
        }
        switch requestType {
        case .passwordReset:
            guard let newPassword else { throw APIServerError.missingNewPassword }
            _ = try resetPassword(&state, code: code, newPassword: newPassword, context)
        case .emailSignin:
            // The app completes the sign-in with the code (`signInWithEmailLink`).
            break
        default:
            _ = try applyToAccount(&state, code: code, context)
        }
        return entry.newEmail ?? entry.email
    }

    /// Applies a code sent back in `accounts:update` (`oobCode`): a
    /// verification, an address change or an address recovery.
    static func applyToAccount(_ state: inout EmulatorState, code: String, _ context: RuleContext) throws
        -> AccountUpdateRules.Outcome
    {
        guard let entry = state.outOfBand.oobCodes[code] else { throw APIServerError.invalidOobCode }
        // A code is used up once presented, even when applying it fails.
        state.outOfBand.oobCodes.remove(code)
        var user = try account(of: entry, state)
        var outcome = AccountUpdateRules.Outcome(user: user)
        switch entry.requestType {
        case .verifyEmail:
            user.emailVerified = true
            if entry.email != user.email { user.email = entry.email }
        case .verifyAndChangeEmail:
            guard let newEmail = entry.newEmail else { throw APIServerError.invalidOobCode }
            try state.checkEmailAvailable(newEmail, for: user.localId, in: user.realm)
            if user.initialEmail == nil { user.initialEmail = user.email }
            user.email = newEmail
            user.emailVerified = true
            outcome.newEmail = newEmail
        case .recoverEmail:
            try state.checkEmailAvailable(entry.email, for: user.localId, in: user.realm)
            user.email = entry.email
            user.emailVerified = true
        case .revertSecondFactorAddition:
            // The factor goes (a factor already withdrawn leaves nothing to
            // do), and so do the sessions of whoever added it, as a
            // withdrawal ends earlier sessions.
            guard let enrollmentID = entry.mfaEnrollmentID else { throw APIServerError.invalidOobCode }
            if user.enrollments.contains(where: { $0.id == enrollmentID }) {
                user.enrollments.removeAll { $0.id == enrollmentID }
                SessionRules.revokeSessions(of: &user, at: context.now)
            }
        default:
            throw APIServerError.notImplemented(
                "\(entry.requestType.rawValue) codes are applied with accounts:resetPassword or signInWithEmailLink"
            )
        }
        state.store(user)
        outcome.user = user
        return outcome
    }

    /// `accounts:resetPassword`: with a new password, a `PASSWORD_RESET`
    /// code sets it (ending earlier sessions, verifying the address);
    /// without one, any code is only looked at.
    static func resetPassword(
        _ state: inout EmulatorState, code: String?, newPassword: String?, realm: Realm? = nil,
        _ context: RuleContext
    ) throws -> OutOfBandCode {
        if let realm {
            try TenantRules.checkAuthEnabled(state, realm)
            guard TenantRules.switches(state, of: realm).allowPasswordSignup else {
                throw APIServerError.passwordLoginDisabled
            }
        }
        guard let code, !code.isEmpty else { throw APIServerError.missingOobCode }
        guard let entry = state.outOfBand.oobCodes[code] else { throw APIServerError.invalidOobCode }
        guard let newPassword, !newPassword.isEmpty else { return entry }
        guard entry.requestType == .passwordReset else { throw APIServerError.invalidOobCode }
        try InputRules.checkNewPassword(newPassword)
        var user = try account(of: entry, state)
        user.password = .emulator(newPassword)
        user.passwordUpdatedAt = context.now
        user.emailVerified = true
        SessionRules.revokeSessions(of: &user, at: context.now)
        state.outOfBand.oobCodes.remove(code)
        state.store(user)
        return entry
    }

    /// The codes "sent" in a realm, oldest first.
    static func list(_ state: EmulatorState, realm: Realm) -> [OutOfBandCode] {
        state.outOfBand.oobCodes.inOrder.filter { $0.realm == realm }
    }
}
#endif
