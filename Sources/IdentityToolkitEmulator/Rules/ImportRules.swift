#if Emulator
import Foundation
import IdentityToolkit
import IdentityOTP
import IdentityOTPFormats
import IdentitySupport

/// Accounts in bulk, as `accounts:batchCreate` takes them: request-wide
/// checks first (they fail the whole request), then each user on its own
/// (a refused user is listed by index with the reason, the others are
/// stored), with production's and Google's emulator's messages. The same
/// rule loads an export (``EmulatorExport``).
enum ImportRules {
    /// How the users of one request are read.
    struct Options: Sendable {
        /// The request's hash algorithm and its parameters, for every
        /// `passwordHash` not in Google's emulator's form.
        var hashing: (algorithm: PasswordHashAlgorithm, parameters: PasswordHashParameters)?
        /// Refuse duplicate addresses and provider ids within the request.
        var sanityCheck = false
        /// Replace accounts whose uid exists.
        var allowOverwrite = false
        /// Loading an export: more than 1,000 users, hashes without an
        /// algorithm (kept, their sign-in refused), hash parameters per user.
        var fromExport = false
        /// Per-uid hash parameters an export recorded (emulator only).
        var exportedHashing: [String: ImportedPasswordHash] = [:]
        /// The TOTP secrets an export recorded (emulator only), base32,
        /// by uid and then by enrolment id: production's `TotpInfo` has no
        /// place for one, so an import over HTTP cannot bring TOTP factors.
        var exportedTOTPSecrets: [String: [String: String]] = [:]
    }

    /// A user refused, by position in the request.
    struct Refusal: Sendable, Equatable {
        var index: Int
        var message: String
    }

    /// Imports `users` into `realm`; the refused ones, in order.
    static func importUsers(
        _ state: inout EmulatorState, realm: Realm, users: [UserInfo], _ options: Options,
        _ context: RuleContext
    ) throws -> [Refusal] {
        guard !users.isEmpty else { throw APIServerError.missingUserAccount }
        if !options.fromExport, users.count > IdentityPlatformLimits.maximumImportBatch {
            throw APIServerError.invalidArgument(
                "users must hold at most \(IdentityPlatformLimits.maximumImportBatch) accounts")
        }
        let duplicatesAllowed = state.projects[realm.project]?.allowDuplicateEmails == true
        if options.sanityCheck {
            var emails: Set<String> = []
            var providers: Set<String> = []
            for user in users {
                if let email = user.email, !duplicatesAllowed, !emails.insert(InputRules.emailKey(email)).inserted {
                    throw APIServerError.duplicateEmail(email)
                }
                for provider in user.providerUserInfo ?? [] {
                    let key = "\(provider.providerId ?? ""):\(provider.rawId ?? "")"
                    guard providers.insert(key).inserted else {
                        throw APIServerError.duplicateRawId(
                            "Provider id(\(provider.providerId ?? "")), Raw id(\(provider.rawId ?? ""))")
                    }
                }
            }
        }
        if !options.allowOverwrite {
            var localIds: Set<String> = []
            for user in users where !localIds.insert(user.localId).inserted {
                throw APIServerError.duplicateLocalId(user.localId)
            }
        }
        if !options.fromExport, options.hashing == nil,
            users.contains(where: { $0.passwordHash.map { StoredPassword.parseEmulatorForm($0) == nil } ?? false })
        {
            throw APIServerError.missingHashAlgorithm
        }
        var refusals: [Refusal] = []
        for (index, info) in users.enumerated() {
            do {
                let user = try account(from: info, realm: realm, state: state, options, context)
                if state.user(user.localId, in: realm) != nil {
                    guard options.allowOverwrite else {
                        throw Refused("localId belongs to an existing account - can not overwrite.")
                    }
                    state.updateAccounts(in: realm) { _ = $0.remove(user.localId) }
                }
                SessionRules.forgetSessions(&state, of: user.key)
                state.store(user)
            } catch let refused as Refused {
                refusals.append(Refusal(index: index, message: refused.message))
            } catch let error as APIServerError {
                refusals.append(Refusal(index: index, message: friendlyMessage(error)))
            }
        }
        return refusals
    }

    /// One user's refusal, with the message production gives.
    struct Refused: Error {
        var message: String
        init(_ message: String) { self.message = message }
    }

    /// The claims errors as production words them in an import.
    private static func friendlyMessage(_ error: APIServerError) -> String {
        switch error.shortCode {
        case APIServerError.invalidClaims.shortCode: return "Invalid custom claims provided."
        case APIServerError.claimsTooLarge.shortCode: return "Custom claims provided are too large."
        case APIServerError.forbiddenClaim.shortCode: return "Custom claims provided include a reserved claim."
        default: return error.message
        }
    }

    /// The account `info` describes, checked against the realm.
    private static func account(
        from info: UserInfo, realm: Realm, state: EmulatorState, _ options: Options,
        _ context: RuleContext
    ) throws -> EmulatedUser {
        guard !info.localId.isEmpty else { throw Refused("localId is missing") }
        guard IdentityPlatformLimits.isValidUID(info.localId) else {
            throw Refused("localId must be at most \(IdentityPlatformLimits.maximumUIDLength) characters")
        }
        if let tenant = info.tenantId, !tenant.isEmpty, tenant != realm.tenant {
            throw Refused("Tenant id in userInfo does not match the tenant id in request.")
        }
        let now = context.now
        let createdAt = try info.createdAt.map { try InputRules.date(millis: $0, field: "createdAt") }
        let validSince =
            options.fromExport
            ? try info.validSince.map { try InputRules.date(seconds: $0, field: "validSince") } : nil
        var user = EmulatedUser(
            localId: info.localId, realm: realm, createdAt: createdAt ?? now, isAnonymous: false,
            validSince: validSince ?? now)
        user.displayName = info.displayName
        user.photoUrl = info.photoUrl
        user.screenName = info.screenName
        try InputRules.checkProfile(displayName: info.displayName, photoURL: info.photoUrl)
        try InputRules.checkDisplayName(info.screenName, field: "screenName")
        user.lastLoginAt = try info.lastLoginAt.map { try InputRules.date(millis: $0, field: "lastLoginAt") }
        user.lastRefreshAt = info.lastRefreshAt
        user.emailLinkSignin = info.emailLinkSignin ?? false
        user.password = try password(of: info, options)
        if user.password != nil {
            let updatedAt =
                options.fromExport
                ? try info.passwordUpdatedAt.map { try InputRules.date(millis: $0, field: "passwordUpdatedAt") }
                : nil
            user.passwordUpdatedAt = updatedAt ?? now
        }
        if let claims = info.customAttributes, !claims.isEmpty {
            try InputRules.checkCustomAttributes(claims)
            user.customAttributes = claims
        }
        for provider in info.providerUserInfo ?? [] {
            let providerID = provider.providerId ?? ""
            if providerID == ProviderID.password.rawValue || providerID == ProviderID.phone.rawValue { continue }
            guard !providerID.isEmpty, let rawId = provider.rawId, !rawId.isEmpty else {
                if provider.federatedId?.isEmpty == false, providerID.isEmpty, provider.rawId == nil {
                    throw Refused(
                        "((Parsing federatedId is not implemented in Auth Emulator; please specify providerId AND rawId as a workaround.))"
                    )
                }
                throw Refused("federatedId or (providerId & rawId) is required")
            }
            try InputRules.checkProfile(displayName: provider.displayName, photoURL: provider.photoUrl)
            try InputRules.checkDisplayName(provider.screenName, field: "providerUserInfo.screenName")
            if let owner = state.user(linkedTo: providerID, rawId: rawId, in: realm), owner.localId != info.localId {
                throw Refused("raw id exists in other account in database")
            }
            user.linkedProviders.append(
                LinkedProvider(
                    providerId: providerID, rawId: rawId, federatedId: provider.federatedId, email: provider.email,
                    displayName: provider.displayName, photoUrl: provider.photoUrl,
                    screenName: provider.screenName))
        }
        if let phone = info.phoneNumber {
            guard MultiFactorRules.isPhoneNumber(phone) else { throw Refused("phone number format is invalid") }
            user.phoneNumber = phone
        }
        if let email = info.email {
            guard InputRules.isValidEmail(email) else { throw Refused("email is invalid") }
            do {
                try state.checkEmailAvailable(email, for: info.localId, in: realm)
            } catch {
                throw Refused("email exists in other account in database")
            }
            user.email = InputRules.emailKey(email)
            user.initialEmail = info.initialEmail.map(InputRules.emailKey) ?? user.email
        }
        user.isAnonymous =
            user.email == nil && user.password == nil && user.phoneNumber == nil && user.linkedProviders.isEmpty
        user.emailVerified = info.emailVerified ?? false
        user.disabled = info.disabled ?? false
        user.enrollments = try factors(of: info, user: user, options, context)
        // Output only in production: an import takes passkeys from an emulator export alone.
        if options.fromExport { user.passkeys = try passkeys(of: info, in: state.accounts(in: realm)) }
        return user
    }

    // MARK: Batch delete

    /// Deletes up to 1,000 accounts by uid: an unknown uid is skipped, an
    /// enabled account without `force` is listed (`NOT_DISABLED`).
    static func batchDelete(_ state: inout EmulatorState, realm: Realm, localIds: [String], force: Bool) throws
        -> [BatchDeleteError]
    {
        guard (1...IdentityPlatformLimits.maximumImportBatch).contains(localIds.count) else {
            throw APIServerError.localIdListExceedsLimit
        }
        var errors: [BatchDeleteError] = []
        for (index, uid) in localIds.enumerated() {
            guard let user = state.user(uid, in: realm) else { continue }
            guard user.disabled || force else {
                errors.append(
                    BatchDeleteError(
                        index: Int32(index), localId: uid,
                        message: "NOT_DISABLED : Disable the account before batch deletion."))
                continue
            }
            try AdminAccountRules.delete(&state, realm: realm, localId: uid)
        }
        return errors
    }
}

extension EmulatorState {
    /// The account of `realm` linked to `providerID`'s user `rawId`.
    func user(linkedTo providerID: String, rawId: String, in realm: Realm) -> EmulatedUser? {
        accounts(in: realm).sortedByID.first {
            $0.linkedProviders.contains { $0.providerId == providerID && $0.rawId == rawId }
        }
    }
}
#endif
