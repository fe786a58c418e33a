#if Emulator
import Foundation
import IdentityToolkit

/// `accounts:update`, by the user (an ID token, or an out-of-band code)
/// or by an admin (`localId`), in production's order of checks: profile,
/// address, password, second factors, providers, and for an admin the
/// account's flags. A change of password, address or `validSince` ends
/// earlier sessions and, for a known sign-in, starts a new one.
enum AccountUpdateRules {
    /// What an update did.
    struct Outcome: Sendable {
        var user: EmulatedUser
        /// The address a change asked for.
        var newEmail: String?
        /// The new session, when the update ended the earlier ones and the
        /// sign-in is known (the token's, or the password just set).
        var grant: SessionGrant?
        /// A `RECOVER_EMAIL` code for the old address, after an address change.
        var recoveryCode: OutOfBandCode?
    }

    static func update(
        _ state: inout EmulatorState, realm: Realm, _ body: SetAccountInfoRequest, claims: IDTokenClaims?,
        isAdmin: Bool,
        _ context: RuleContext
    ) throws -> Outcome {
        try TenantRules.checkAuthEnabled(state, realm)
        if isAdmin {
            guard body.localId?.isEmpty == false || body.idToken?.isEmpty == false || body.oobCode?.isEmpty == false
            else {
                throw APIServerError.missingLocalId
            }
        } else {
            guard body.idToken?.isEmpty == false || body.oobCode?.isEmpty == false else {
                throw APIServerError.invalidReqType("Unsupported request parameters.")
            }
            guard body.customAttributes == nil else { throw APIServerError.insufficientPermission }
        }
        if let claims = body.customAttributes { try InputRules.checkCustomAttributes(claims) }
        for attribute in body.deleteAttribute ?? [] where attribute == .provider || attribute == .rawUserInfo {
            throw APIServerError.notImplemented("deleteAttribute \(attribute.rawValue) is not emulated")
        }
        if let oobCode = body.oobCode, !oobCode.isEmpty {
            return try OutOfBandRules.applyToAccount(&state, code: oobCode, context)
        }
        var user: EmulatedUser
        var provider: ProviderID?
        if let claims {
            user = try AccountRules.user(state, for: claims, requestTenant: nil, context)
            provider = ProviderID(rawValue: claims.firebase.signInProvider)
            if body.disableUser != nil, !isAdmin { throw APIServerError.operationNotAllowed }
        } else {
            guard let uid = body.localId, !uid.isEmpty else { throw APIServerError.missingLocalId }
            guard let found = state.user(uid, in: realm) else { throw APIServerError.userNotFound }
            user = found
        }
        let now = context.now
        var outcome = Outcome(user: user)
        var endsSessions = false
        var emailChanged = false
        try InputRules.checkProfile(displayName: body.displayName, photoURL: body.photoUrl)
        try InputRules.checkPasswordLength(body.password)
        if let email = body.email, !email.isEmpty {
            guard InputRules.isValidEmail(email) else { throw APIServerError.invalidEmail }
            let canonical = InputRules.emailKey(email)
            outcome.newEmail = canonical
            if canonical != user.email {
                try state.checkEmailAvailable(canonical, for: user.localId, in: realm)
                if provider != .anonymous, user.email != nil, user.initialEmail == nil {
                    user.initialEmail = user.email
                }
                user.email = canonical
                user.emailVerified = false
                emailChanged = true
                endsSessions = true
            }
        }
        if let password = body.password, !password.isEmpty {
            try InputRules.checkNewPassword(password)
            user.password = .emulator(password)
            user.passwordUpdatedAt = now
            provider = .password
            endsSessions = true
        }
        if body.validSince != nil { endsSessions = true }
        if let mfa = body.mfa {
            user.enrollments = try AdminAccountRules.enrollments(of: user, keeping: mfa.enrollments ?? [], context)
        }
        if let name = body.displayName { user.displayName = name }
        if let photo = body.photoUrl { user.photoUrl = photo }
        if isAdmin {
            if let disable = body.disableUser { user.disabled = disable }
            if let phone = body.phoneNumber, phone != user.phoneNumber {
                guard MultiFactorRules.isPhoneNumber(phone) else {
                    throw APIServerError.invalidPhoneNumber("Invalid format.")
                }
                guard state.user(phoneNumber: phone, in: realm) == nil else {
                    throw APIServerError.phoneNumberExists
                }
                user.phoneNumber = phone
            }
            if let verified = body.emailVerified { user.emailVerified = verified }
            if let claims = body.customAttributes {
                let isEmpty =
                    (try? JSONDecoder().decode([String: JSONValue].self, from: Data(claims.utf8)))?.isEmpty ?? false
                user.customAttributes = isEmpty ? nil : claims
            }
            if let created = body.createdAt {
                user.createdAt = try InputRules.date(millis: created, field: "createdAt")
            }
            if let lastLogin = body.lastLoginAt {
                user.lastLoginAt = try InputRules.date(millis: lastLogin, field: "lastLoginAt")
            }
        }
        for attribute in body.deleteAttribute ?? [] {
            switch attribute {
            case .displayName: user.displayName = nil
            case .photoURL: user.photoUrl = nil
            case .password: user.password = nil
            case .email: (user.email, user.emailVerified, user.emailLinkSignin) = (nil, false, false)
            default: break
            }
        }
        for provider in body.deleteProvider ?? [] {
            switch provider {
            case ProviderID.password.rawValue:
                (user.email, user.emailVerified, user.emailLinkSignin, user.password) = (nil, false, false, nil)
            case ProviderID.phone.rawValue: user.phoneNumber = nil
            default: user.linkedProviders.removeAll { $0.providerId == provider }
            }
        }
        if let credentialIDs = body.deletePasskey { PasskeyRules.remove(credentialIDs, from: &user) }
        if let link = body.linkProviderUserInfo {
            guard let id = link.providerId, !id.isEmpty else { throw APIServerError.missingProviderId }
            guard let rawId = link.rawId, !rawId.isEmpty else { throw APIServerError.missingRawId }
            try InputRules.checkProfile(displayName: link.displayName, photoURL: link.photoUrl)
            user.linkedProviders.removeAll { $0.providerId == id }
            user.linkedProviders.append(
                LinkedProvider(
                    providerId: id, rawId: rawId, federatedId: link.federatedId, email: link.email,
                    displayName: link.displayName, photoUrl: link.photoUrl))
        }
        if endsSessions {
            let revokedAt =
                isAdmin ? body.validSince.map { Date(timeIntervalSince1970: TimeInterval($0)) } ?? now : now
            guard EmulatorClock.validRange.contains(revokedAt) else {
                throw APIServerError.invalidArgument("validSince is out of range")
            }
            SessionRules.revokeSessions(of: &user, at: revokedAt)
        }
        user.isAnonymous = user.isAnonymous && user.email == nil && user.password == nil && user.phoneNumber == nil
        state.store(user)
        if emailChanged, provider != .anonymous, let initial = user.initialEmail {
            outcome.recoveryCode = OutOfBandRules.issue(
                &state, requestType: .recoverEmail, email: initial, newEmail: nil, user: user)
        }
        if endsSessions, let provider {
            var facts = claims.map(SessionTokens.facts(of:)) ?? SessionFacts(provider: provider, authTime: now)
            facts.provider = provider
            facts.authTime = max(facts.authTime, user.validSince)
            outcome.grant = SessionRules.grant(&state, for: user, facts: facts, context)
        }
        outcome.user = user
        return outcome
    }
}

extension EmulatorState {
    /// The account of `realm` whose phone sign-in number is `number`.
    func user(phoneNumber number: String, in realm: Realm) -> EmulatedUser? {
        accounts(in: realm).sortedByID.first { $0.phoneNumber == number }
    }
}
#endif
