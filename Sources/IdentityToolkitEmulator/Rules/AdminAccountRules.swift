#if Emulator
import Foundation
import IdentityToolkit

/// Accounts as an admin manages them (`Authorization: Bearer owner`):
/// look up, create, update, delete and list, the tenant's switches aside.
enum AdminAccountRules {
    /// Accounts by uid and by email: unknown ones are simply absent, as
    /// production answers.
    static func lookup(
        _ state: EmulatorState, realm: Realm, localIds: [String], emails: [String], phoneNumbers: [String] = [],
        providers: [(providerId: String, rawId: String)] = []
    ) -> [EmulatedUser] {
        let accounts = state.accounts(in: realm)
        var found: [EmulatedUser] = []
        var seen: Set<String> = []
        let candidates =
            localIds.compactMap { accounts[$0] } + emails.compactMap { accounts.user(email: $0) }
            + phoneNumbers.compactMap { state.user(phoneNumber: $0, in: realm) }
            + providers.compactMap { state.user(linkedTo: $0.providerId, rawId: $0.rawId, in: realm) }
        for user in candidates where seen.insert(user.localId).inserted {
            found.append(user)
        }
        return found
    }

    /// The factors an update leaves the user (`mfa.enrollments`): each
    /// entry keeps one of the user's factors by `mfaEnrollmentId` (a TOTP
    /// factor can only be kept, never added: `UNSUPPORTED_SECOND_FACTOR`),
    /// or sets a phone factor, as production checks them
    /// (`INVALID_MFA_PHONE_NUMBER`, `INVALID_MFA_ENROLLMENT_ID`,
    /// `DUPLICATE_MFA_ENROLLMENT_ID`); a phone number given twice counts once.
    static func enrollments(of user: EmulatedUser, keeping requested: [MfaEnrollment], _ context: RuleContext)
        throws -> [SecondFactor]
    {
        var result: [SecondFactor] = []
        var phones: Set<String> = []
        for entry in requested {
            if let id = entry.mfaEnrollmentId, let existing = user.enrollments.first(where: { $0.id == id }),
                existing.isTOTP, entry.phoneInfo == nil
            {
                guard !result.contains(where: { $0.id == id }) else {
                    throw APIServerError.duplicateMfaEnrollmentId
                }
                result.append(existing)
                continue
            }
            if entry.totpInfo != nil {
                throw APIServerError.unsupportedSecondFactor("TOTP factors cannot be added by an admin update")
            }
            guard let phone = entry.phoneInfo, MultiFactorRules.isPhoneNumber(phone) else {
                throw APIServerError.invalidMfaPhoneNumber("Invalid format.")
            }
            guard phones.insert(phone).inserted else { continue }
            guard let id = entry.mfaEnrollmentId, !id.isEmpty else {
                throw APIServerError.invalidMfaEnrollmentId("mfaEnrollmentId must be defined.")
            }
            guard !result.contains(where: { $0.id == id }) else { throw APIServerError.duplicateMfaEnrollmentId }
            let existing = user.enrollments.first { $0.id == id }
            result.append(
                SecondFactor(
                    id: id, displayName: entry.displayName ?? existing?.displayName,
                    enrolledAt: entry.enrolledAt ?? existing?.enrolledAt ?? context.now, kind: .phone(number: phone)
                ))
        }
        if result.count > IdentityPlatformLimits.maximumSecondFactors {
            throw APIServerError.secondFactorLimitExceeded
        }
        return result
    }

    /// The phone factors a new account is created with (`mfaInfo` of a
    /// sign-up, Google's `MfaFactor`): each gets a new id and the time of
    /// creation, as production gives them, then the checks of ``enrollments(of:keeping:_:)``.
    static func newFactors(_ factors: [MfaFactor], of user: EmulatedUser, _ context: RuleContext) throws
        -> [SecondFactor]
    {
        try enrollments(
            of: user,
            keeping: factors.map { factor in
                MfaEnrollment(
                    mfaEnrollmentId: AccountRules.newUID(), displayName: factor.displayName,
                    phoneInfo: factor.phoneInfo)
            }, context)
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
        var factors: [MfaFactor] = []
    }

    /// An account an admin creates: any uid of 1 to 128 characters not in
    /// use (a random one when nil), optionally an email and password; the
    /// tenant's sign-up switches do not apply to admins.
    static func create(_ state: inout EmulatorState, realm: Realm, _ account: NewAccount, _ context: RuleContext)
        throws -> EmulatedUser
    {
        try TenantRules.checkAuthEnabled(state, realm)
        try InputRules.checkProfile(displayName: account.displayName, photoURL: account.photoUrl)
        try InputRules.checkPasswordLength(account.password)
        let uid = account.localId ?? AccountRules.newUID()
        guard IdentityPlatformLimits.isValidUID(uid) else {
            throw APIServerError.invalidArgument(
                "localId must be 1 to \(IdentityPlatformLimits.maximumUIDLength) characters")
        }
        guard state.user(uid, in: realm) == nil else { throw APIServerError.duplicateLocalId }
        let email = account.email?.isEmpty == false ? account.email : nil
        let password = account.password?.isEmpty == false ? account.password : nil
        SessionRules.forgetSessions(&state, of: UserKey(realm: realm, uid: uid))
        let now = context.now
        var user = EmulatedUser(
            localId: uid, realm: realm, createdAt: now,
            isAnonymous: email == nil && password == nil && account.phoneNumber == nil, validSince: now)
        user.displayName = account.displayName
        user.photoUrl = account.photoUrl
        if let phone = account.phoneNumber, !phone.isEmpty {
            guard MultiFactorRules.isPhoneNumber(phone) else {
                throw APIServerError.invalidPhoneNumber("Invalid format.")
            }
            guard state.user(phoneNumber: phone, in: realm) == nil else { throw APIServerError.phoneNumberExists }
            user.phoneNumber = phone
        }
        if let email {
            guard InputRules.isValidEmail(email) else { throw APIServerError.invalidEmail }
            try state.checkEmailAvailable(email, for: nil, in: realm)
            user.email = InputRules.emailKey(email)
            user.initialEmail = user.email
        }
        if let password {
            try InputRules.checkNewPassword(password)
            user.password = .emulator(password)
            user.passwordUpdatedAt = now
        }
        user.emailVerified = account.emailVerified ?? false
        user.disabled = account.disabled ?? false
        user.enrollments = try newFactors(account.factors, of: user, context)
        state.store(user)
        return user
    }

    /// Deletes an account and everything that could still act for it (its
    /// out-of-band codes too). Its
    /// refresh tokens stay until the next sweep, so that a refresh meanwhile
    /// answers `USER_NOT_FOUND`, as production documents for a deleted user
    /// (not `INVALID_REFRESH_TOKEN`).
    static func delete(_ state: inout EmulatorState, realm: Realm, localId: String) throws {
        guard state.user(localId, in: realm) != nil else { throw APIServerError.userNotFound }
        state.updateAccounts(in: realm) { _ = $0.remove(localId) }
        state.sessions.enrollmentSessions = state.sessions.enrollmentSessions.filter {
            !($0.value.realm == realm && $0.value.uid == localId)
        }
        state.sessions.pendingCredentials = state.sessions.pendingCredentials.filter {
            !($0.value.realm == realm && $0.value.uid == localId)
        }
        // Its codes could no longer be applied (verifications, resets, the
        // revert of an enrolment): the listing forgets them with the address.
        state.outOfBand.oobCodes.filter { !($0.realm == realm && $0.uid == localId) }
    }

    /// One page of a realm's accounts in uid order, after the uid `after`;
    /// the page's last uid when more follow.
    static func list(_ state: EmulatorState, realm: Realm, pageSize: Int, after: String?) -> (
        users: [EmulatedUser], lastUID: String?
    ) {
        let all = state.accounts(in: realm).sortedByID
        let rest = after.map { cursor in all.drop(while: { $0.localId <= cursor }) } ?? all[...]
        let page = Array(rest.prefix(pageSize))
        // A full page names its last uid, as Google's emulator does, even when none follow.
        return (page, page.count == pageSize ? page.last?.localId : nil)
    }

    /// Deletes every account of a realm with its sessions and codes (the
    /// helper between tests).
    static func deleteAll(_ state: inout EmulatorState, realm: Realm) {
        if state.exists(realm) { state.updateAccounts(in: realm) { $0 = AccountTable() } }
        SessionRules.forgetRealm(&state, realm)
    }
}
#endif
