import Foundation
import IdentityToolkit

/// Accounts as an admin manages them (`Authorization: Bearer owner`):
/// look up, create, update, delete and list, the tenant's switches aside.
enum AdminAccountRules {
    /// Accounts by uid and by email: unknown ones are simply absent, as
    /// production answers.
    static func lookup(_ state: EmulatorState, realm: Realm, localIds: [String], emails: [String]) -> [EmulatedUser] {
        let accounts = state.accounts(in: realm)
        var found: [EmulatedUser] = []
        var seen: Set<String> = []
        for user in localIds.compactMap({ accounts[$0] }) + emails.compactMap({ accounts.user(email: $0) }) where seen.insert(user.localId).inserted {
            found.append(user)
        }
        return found
    }

    /// What an admin update may change besides the profile.
    struct Update: Sendable {
        var disable: Bool?
        var validSince: Int64?
        var emailVerified: Bool?
        /// The subset of enrollment ids that stays enrolled (the recovery of
        /// a lost authenticator); nil leaves the factors alone.
        var keepFactors: [(id: String?, isTOTP: Bool)]?
        var customAttributes: String?
    }

    /// Disables or enables the account, revokes its sessions by moving
    /// `validSince`, keeps a subset of its factors (a factor the user does
    /// not have cannot be added this way), sets its custom claims.
    static func update(_ state: inout EmulatorState, realm: Realm, localId: String, _ update: Update) throws -> EmulatedUser {
        guard var user = state.user(localId, in: realm) else { throw APIServerError.userNotFound }
        if let customAttributes = update.customAttributes {
            try InputRules.checkCustomAttributes(customAttributes)
            // `{}` (or only whitespace around it) clears the claims.
            let isEmpty = (try? JSONDecoder().decode([String: JSONValue].self, from: Data(customAttributes.utf8)))?.isEmpty ?? false
            user.customAttributes = isEmpty ? nil : customAttributes
        }
        if let keepFactors = update.keepFactors {
            var kept: [SecondFactor] = []
            for factor in keepFactors {
                guard let id = factor.id, let enrolled = user.enrollments.first(where: { $0.id == id }) else {
                    if factor.isTOTP { throw APIServerError.unsupportedSecondFactor("TOTP factors cannot be added by an admin update") }
                    throw APIServerError.invalidArgument("mfa.enrollments may only keep factors the user has (adding one is not emulated)")
                }
                if !kept.contains(where: { $0.id == id }) { kept.append(enrolled) }
            }
            user.enrollments = kept
        }
        if let emailVerified = update.emailVerified { user.emailVerified = emailVerified }
        if let disable = update.disable { user.disabled = disable }
        if let validSince = update.validSince {
            let date = Date(timeIntervalSince1970: TimeInterval(validSince))
            guard EmulatorClock.validRange.contains(date) else { throw APIServerError.invalidArgument("validSince is out of range") }
            SessionRules.revokeSessions(of: &user, at: date)
        }
        state.store(user)
        return user
    }

    /// The fields of an account an admin creates.
    struct NewAccount: Sendable {
        var localId: String?
        var email: String?
        var password: String?
        var displayName: String?
        var emailVerified: Bool?
        var disabled: Bool?
        var photoUrl: String?
        var phoneNumber: String?
        /// Phone second factors to enroll (production enrolls TOTP only
        /// through the user).
        var factors: [MfaEnrollment] = []
    }

    /// An account an admin creates: any uid of 1 to 128 characters not in
    /// use (a random one when nil), optionally an email and password; the
    /// tenant's sign-up switches do not apply to admins.
    static func create(_ state: inout EmulatorState, realm: Realm, _ account: NewAccount, _ context: RuleContext) throws -> EmulatedUser {
        try InputRules.checkDisplayName(account.displayName)
        try InputRules.checkPasswordLength(account.password)
        let uid = account.localId ?? AccountRules.newUID()
        guard (1...IdentityPlatformLimits.maximumUIDLength).contains(uid.count) else {
            throw APIServerError.invalidArgument("localId must be 1 to \(IdentityPlatformLimits.maximumUIDLength) characters")
        }
        guard state.user(uid, in: realm) == nil else { throw APIServerError.duplicateLocalId }
        SessionRules.forgetSessions(&state, of: UserKey(realm: realm, uid: uid))
        let now = context.now
        var user = EmulatedUser(localId: uid, realm: realm, createdAt: now,
                                isAnonymous: account.email == nil && account.password == nil && account.phoneNumber == nil, validSince: now)
        user.displayName = account.displayName
        user.photoUrl = account.photoUrl
        if let email = account.email {
            guard InputRules.isValidEmail(email) else { throw APIServerError.invalidEmail }
            try state.checkEmailAvailable(email, for: nil, in: realm)
            user.email = InputRules.emailKey(email)
            user.initialEmail = user.email
        }
        if let password = account.password {
            try InputRules.checkNewPassword(password)
            user.password = .emulator(password)
            user.passwordUpdatedAt = now
        }
        if let phone = account.phoneNumber {
            guard MultiFactorRules.isPhoneNumber(phone) else { throw APIServerError.invalidPhoneNumber("Invalid format.") }
            guard state.accounts(in: realm).sortedByID.allSatisfy({ $0.phoneNumber != phone }) else { throw APIServerError.phoneNumberExists }
            user.phoneNumber = phone
        }
        user.emailVerified = account.emailVerified ?? false
        user.disabled = account.disabled ?? false
        for factor in account.factors {
            guard factor.totpInfo == nil else { throw APIServerError.unsupportedSecondFactor("TOTP factors are enrolled by the user, not created by an admin") }
            guard let phone = factor.phoneInfo, MultiFactorRules.isPhoneNumber(phone) else { throw APIServerError.invalidMfaPhoneNumber }
            let id = factor.mfaEnrollmentId ?? AccountRules.newUID()
            guard !user.enrollments.contains(where: { $0.id == id }) else { throw APIServerError.duplicateMfaEnrollmentId }
            user.enrollments.append(SecondFactor(id: id, displayName: factor.displayName, enrolledAt: factor.enrolledAt ?? now, kind: .phone(number: phone)))
        }
        if user.enrollments.count > IdentityPlatformLimits.maximumSecondFactors { throw APIServerError.secondFactorLimitExceeded }
        state.store(user)
        return user
    }

    /// Deletes an account and everything that could still act for it. Its
    /// refresh tokens stay until the next sweep, so that a refresh meanwhile
    /// answers `USER_NOT_FOUND`, as production documents for a deleted user
    /// (not `INVALID_REFRESH_TOKEN`).
    static func delete(_ state: inout EmulatorState, realm: Realm, localId: String) throws {
        guard state.user(localId, in: realm) != nil else { throw APIServerError.userNotFound }
        state.updateAccounts(in: realm) { _ = $0.remove(localId) }
        state.sessions.enrollmentSessions = state.sessions.enrollmentSessions.filter { !($0.value.realm == realm && $0.value.uid == localId) }
        state.sessions.pendingCredentials = state.sessions.pendingCredentials.filter { !($0.value.realm == realm && $0.value.uid == localId) }
    }

    /// One page of a realm's accounts in uid order, after the uid `after`;
    /// the page's last uid when more follow.
    static func list(_ state: EmulatorState, realm: Realm, pageSize: Int, after: String?) -> (users: [EmulatedUser], lastUID: String?) {
        let all = state.accounts(in: realm).sortedByID
        let rest = after.map { cursor in all.drop(while: { $0.localId <= cursor }) } ?? all[...]
        let page = Array(rest.prefix(pageSize))
        return (page, rest.count > page.count ? page.last?.localId : nil)
    }

    /// Deletes every account of a realm with its sessions and codes (the
    /// helper between tests).
    static func deleteAll(_ state: inout EmulatorState, realm: Realm) {
        if state.exists(realm) { state.updateAccounts(in: realm) { $0 = AccountTable() } }
        SessionRules.forgetRealm(&state, realm)
    }
}
