import Foundation
import IdentityToolkit

/// How an account looks on the wire (`UserInfo`, `MfaEnrollment`): what
/// lookups, listings and sign-in hints answer.
enum AccountViews {
    /// `+15555550100` → `+*******0100`, as sign-in hints show it.
    static func mask(_ phoneNumber: String) -> String {
        phoneNumber.prefix(1) + String(repeating: "*", count: max(0, phoneNumber.count - 5)) + phoneNumber.suffix(4)
    }

    /// The factors as `mfaInfo` lists them; sign-in hints mask phone numbers.
    static func enrollments(_ factors: [SecondFactor], maskPhones: Bool) -> [MfaEnrollment] {
        factors.map { factor in
            MfaEnrollment(
                mfaEnrollmentId: factor.id, displayName: factor.displayName, enrolledAt: factor.enrolledAt,
                phoneInfo: factor.phoneNumber.map { maskPhones ? mask($0) : $0 }, totpInfo: factor.isTOTP ? TotpInfo() : nil
            )
        }
    }

    /// The account as a lookup answers it.
    static func userInfo(_ user: EmulatedUser) -> UserInfo {
        UserInfo(
            localId: user.localId, email: user.email, emailVerified: user.emailVerified, displayName: user.displayName,
            disabled: user.disabled, createdAt: Int64(user.createdAt.timeIntervalSince1970 * 1000),
            lastLoginAt: user.lastLoginAt.map { Int64($0.timeIntervalSince1970 * 1000) },
            passwordUpdatedAt: user.passwordUpdatedAt.map { ($0.timeIntervalSince1970 * 1000).rounded() },
            validSince: Int64(user.validSince.timeIntervalSince1970), tenantId: user.realm.tenant, customAttributes: user.customAttributes,
            providerUserInfo: user.email.map {
                [ProviderUserInfo(providerId: ProviderID.password.rawValue, rawId: $0, federatedId: $0, email: $0, displayName: user.displayName)]
            } ?? [],
            mfaInfo: user.enrollments.isEmpty ? nil : enrollments(user.enrollments, maskPhones: false)
        )
    }
}
