/// Limits the Identity Toolkit service documents, in one place for the
/// clients that check them before sending (IdentityAdmin, `mfa`) and the
/// emulator that enforces them.
package enum IdentityPlatformLimits {
    /// A session cookie's lifetime, in seconds: 5 minutes to 2 weeks.
    package static let sessionCookieSeconds: ClosedRange<Int64> = 300...1_209_600
    /// Custom claims, as JSON text: at most 1000 characters.
    package static let maximumCustomClaimsLength = 1000
    /// One page of users (`accounts:batchGet`) or tenants: at most 1000.
    package static let maximumPageSize = 1000
    /// A uid: 1 to 128 characters.
    package static let maximumUIDLength = 128
}
