import Foundation
import IdentityToolkit

/// Email action codes (verification, password reset, sign-in links, email
/// change): made, listed instead of sent, and applied once.
enum OutOfBandRules {
    /// A code of `requestType` for the account `uid`, or the one of `email`
    /// (`EMAIL_NOT_FOUND` when none has it). At most
    /// ``EmulatorRules/maximumStoredOobCodes`` unused codes are kept.
    static func create(_ state: inout EmulatorState, requestType: OobRequestType, uid: String?, email: String?, realm: Realm) throws -> OutOfBandCode {
        let target: EmulatedUser
        if let uid {
            target = try AccountRules.activeUser(state, uid, in: realm)
        } else if let email, let found = state.accounts(in: realm).user(email: email) {
            target = found
        } else {
            throw APIServerError.emailNotFound
        }
        guard let address = email ?? target.email else { throw APIServerError.missingEmail }
        let code = OutOfBandCode(code: Data.randomToken(bytes: 24), email: address, requestType: requestType, uid: target.localId, realm: realm)
        state.outOfBand.oobCodes.append(code, key: code.code, keeping: EmulatorRules.maximumStoredOobCodes)
        return code
    }

    /// What an action link's page does with its code: checks that the code
    /// is for `requestType`, then applies it once (a verification marks the
    /// address verified; a reset sets `newPassword` and ends the user's sessions).
    /// - Returns: the address the code was for.
    static func applyActionLink(_ state: inout EmulatorState, code: String, requestType: OobRequestType, newPassword: String?,
                                _ context: RuleContext) throws -> String {
        guard let entry = state.outOfBand.oobCodes[code], entry.requestType == requestType else { throw APIServerError.invalidOobCode }
        var user = try AccountRules.activeUser(state, entry.uid, in: entry.realm)
        switch requestType {
        case .passwordReset:
            guard let newPassword else { throw APIServerError.missingNewPassword }
            try InputRules.checkNewPassword(newPassword)
            user.password = .emulator(newPassword)
            user.passwordUpdatedAt = context.now
            SessionRules.revokeSessions(of: &user, at: context.now)
            user.emailVerified = true
        case .verifyAndChangeEmail:
            try AccountRules.changeEmail(state, of: &user, to: entry.email)
            user.emailVerified = true
        case .verifyEmail:
            user.emailVerified = true
        default:
            break
        }
        state.outOfBand.oobCodes.remove(code)
        state.store(user)
        return entry.email
    }

    /// Applies a code sent back in `accounts:update` (`oobCode`): the
    /// account it was for, with the address verified or changed.
    static func apply(_ state: inout EmulatorState, code: String) throws -> EmulatedUser {
        guard let entry = state.outOfBand.oobCodes[code] else { throw APIServerError.invalidOobCode }
        var user = try AccountRules.activeUser(state, entry.uid, in: entry.realm)
        if entry.requestType == .verifyAndChangeEmail { try AccountRules.changeEmail(state, of: &user, to: entry.email) }
        state.outOfBand.oobCodes.remove(code)
        if [OobRequestType.verifyEmail, .emailSignin, .verifyAndChangeEmail].contains(entry.requestType) {
            user.emailVerified = true
        }
        state.store(user)
        return user
    }

    /// The codes "sent" in a realm, oldest first.
    static func list(_ state: EmulatorState, realm: Realm) -> [OutOfBandCode] {
        state.outOfBand.oobCodes.inOrder.filter { $0.realm == realm }
    }
}
