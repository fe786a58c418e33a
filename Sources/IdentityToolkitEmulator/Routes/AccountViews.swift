#if Emulator
import Foundation
import IdentityToolkit
import IdentityOTP

/// How an account looks on the wire (`UserInfo`, `MfaEnrollment`): what
/// lookups, listings, exports and sign-in hints answer.
enum AccountViews {
    /// How much of an account a view shows.
    enum Detail: Sendable {
        /// A lookup: the password hash redacted as production redacts it.
        case lookup
        /// An admin listing (`accounts:batchGet`, what `firebase
        /// auth:export` reads, and an export's accounts files): the hash
        /// and its salt.
        case download
    }

    /// What production answers in place of a password hash outside a
    /// download: "REDACTED" in base64.
    static let redactedPasswordHash = Data("REDACTED".utf8).base64EncodedString()

    /// `+15555550100` → `+*******0100`, as sign-in hints show it.
    static func mask(_ phoneNumber: String) -> String {
        phoneNumber.prefix(1) + String(repeating: "*", count: max(0, phoneNumber.count - 5)) + phoneNumber.suffix(4)
    }

    /// The factors as `mfaInfo` lists them; sign-in hints mask phone
    /// numbers. A TOTP factor is marked by an empty `totpInfo`, as
    /// production marks it: its secret never appears here.
    static func enrollments(_ factors: [SecondFactor], maskPhones: Bool) -> [MfaEnrollment] {
        // Lookups and listings also give the whole number, as Google's emulator does; sign-in hints never.
        factors.map { factor in
            var totp: TotpInfo?
            if case .totp = factor.kind { totp = TotpInfo() }
            return MfaEnrollment(
                mfaEnrollmentId: factor.id, displayName: factor.displayName, enrolledAt: factor.enrolledAt,
                phoneInfo: factor.phoneNumber.map { maskPhones ? mask($0) : $0 },
                unobfuscatedPhoneInfo: maskPhones ? nil : factor.phoneNumber, totpInfo: totp
            )
        }
    }

    /// The account as a lookup, a listing or an export shows it.
    static func userInfo(_ user: EmulatedUser, detail: Detail = .lookup) -> UserInfo {
        var providers: [ProviderUserInfo] = []
        if let email = user.email, user.password != nil || user.emailLinkSignin {
            providers.append(
                ProviderUserInfo(
                    providerId: ProviderID.password.rawValue, rawId: email, federatedId: email, email: email,
                    displayName: user.displayName, photoUrl: user.photoUrl))
        }
        if let phone = user.phoneNumber {
            providers.append(
                ProviderUserInfo(providerId: ProviderID.phone.rawValue, rawId: phone, phoneNumber: phone))
        }
        providers += user.linkedProviders.map {
            ProviderUserInfo(
                providerId: $0.providerId, rawId: $0.rawId, federatedId: $0.federatedId, email: $0.email,
                displayName: $0.displayName, photoUrl: $0.photoUrl, screenName: $0.screenName)
        }
        var info = UserInfo(
            localId: user.localId, email: user.email, emailVerified: user.emailVerified,
            displayName: user.displayName,
            photoUrl: user.photoUrl, screenName: user.screenName, disabled: user.disabled,
            createdAt: millis(user.createdAt),
            lastLoginAt: user.lastLoginAt.map(millis),
            passwordUpdatedAt: user.passwordUpdatedAt.map { ($0.timeIntervalSince1970 * 1000).rounded() },
            validSince: Int64(user.validSince.timeIntervalSince1970), tenantId: user.realm.tenant,
            customAttributes: user.customAttributes,
            phoneNumber: user.phoneNumber, initialEmail: user.initialEmail, lastRefreshAt: user.lastRefreshAt,
            emailLinkSignin: user.emailLinkSignin ? true : nil,
            providerUserInfo: providers,
            mfaInfo: user.enrollments.isEmpty
                ? (user.listsWithdrawnFactors ? [] : nil) : enrollments(user.enrollments, maskPhones: false),
            passkeyInfo: user.passkeys.isEmpty
                ? nil : user.passkeys.map { PasskeyInfo(credentialId: $0.credentialId, name: $0.name) }
        )
        if let password = user.password {
            switch detail {
            case .lookup:
                info.passwordHash = redactedPasswordHash
            case .download:
                info.passwordHash = password.exportedHash
                info.salt = password.exportedSalt
            }
        }
        return info
    }

    private static func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
}
#endif
