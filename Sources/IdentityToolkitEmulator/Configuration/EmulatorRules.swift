#if Emulator
import Foundation

/// The emulator's own bounds: values production does not document, chosen
/// so that a long-running emulator stays small. Production's documented
/// values are `IdentityPlatformLimits` (IdentityToolkit); the settable ones
/// are ``SecondFactorRules``.
enum EmulatorRules {
    /// How long `mfaEnrollment:finalize` may follow `start`, and an SMS code lives.
    static let enrollmentDeadline: TimeInterval = 10 * 60
    /// How often expired state is removed from memory (emulator clock).
    static let sweepInterval: TimeInterval = 60
    /// The most unused out-of-band codes kept; older ones are forgotten.
    static let maximumStoredOobCodes = 10_000
    /// The most live sessions (refresh tokens) one user keeps; signing in
    /// again past it ends the oldest. Production documents no such limit;
    /// this bound keeps a long-running emulator's memory flat.
    static let maximumRefreshTokensPerUser = 50
    /// The most passkeys one account keeps: production documents no bound;
    /// this one keeps an account (and its ID token's lookups) small.
    static let maximumPasskeysPerUser = 10
    /// The most passkey challenges outstanding; past it the oldest are
    /// forgotten (a client whose challenge went simply starts again).
    static let maximumPasskeyChallenges = 10_000
    /// `accounts:batchGet` and tenant lists: the page when none is asked for.
    static let defaultPageSize = 20
    /// Display names: production's bound is undocumented; long enough for
    /// any real name, short enough that an ID token stays small.
    static let maximumDisplayNameLength = 256
    /// Photo URLs: production's bound is undocumented; 2048 bytes, the
    /// longest URL browsers and CDNs reliably carry.
    static let maximumPhotoURLLength = 2048
    /// The characters of generated uids: letters and digits only, so a uid
    /// never reads as an option on a command line (`--uid -x…`).
    static let uidAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
    /// Generated uids are 28 characters, as production's are.
    static let uidLength = 28
}
#endif
