import Foundation
import IdentitySupport

/// The limits and fixed values the Identity Toolkit service documents, in
/// one place for the clients that check them before sending (IdentityAdmin,
/// `mfa`) and the emulator that enforces them.
package enum IdentityPlatformLimits {
    /// A session cookie's lifetime, in seconds: 5 minutes to 2 weeks.
    package static let sessionCookieSeconds: ClosedRange<Int64> = 300...1_209_600
    /// Custom claims, as JSON text: at most 1000 characters.
    package static let maximumCustomClaimsLength = 1000
    /// One page of users (`accounts:batchGet`) or tenants: at most 1000.
    package static let maximumPageSize = 1000
    /// A uid: 1 to 128 characters.
    package static let maximumUIDLength = 128
    /// Users imported in one `accounts:batchCreate`: at most 1000.
    package static let maximumImportBatch = 1000
    /// Passwords: at least 6 characters (`WEAK_PASSWORD : Password should be at least 6 characters`).
    package static let minimumPasswordLength = 6
    /// Passwords: at most 4096 bytes (the longest password policy Identity Platform documents).
    package static let maximumPasswordLength = 4096
    /// A user's second factors: at most 5 (`SECOND_FACTOR_LIMIT_EXCEEDED`).
    package static let maximumSecondFactors = 5
    /// How long an ID token lasts, in seconds.
    package static let idTokenLifetimeSeconds: Int64 = 3600
    /// TOTP as Identity Platform issues it: 6 digits, 30-second steps,
    /// HMAC-SHA-1, 20-byte secrets.
    package static let totpDigits = 6
    package static let totpPeriodSeconds: Int64 = 30
    package static let totpSecretBytes = 20
    /// `totpProviderConfig.adjacentIntervals`: 0 to 10 steps on either side, 5 by default.
    package static let totpAdjacentIntervals: ClosedRange<Int> = 0...10
    package static let defaultTOTPAdjacentIntervals = 5
    /// Whether `uid` has 1 to ``maximumUIDLength`` characters. Characters
    /// are counted only when its UTF-8 is longer than that (a character is
    /// at least a byte): a token verification asks this of every `sub`.
    package static func isValidUID(_ uid: String) -> Bool {
        let bytes = uid.utf8.count
        guard bytes > maximumUIDLength else { return bytes > 0 }
        return uid.count <= maximumUIDLength
    }
    /// An E.164 phone number: `+`, then 7 to 15 digits.
    package static func isE164PhoneNumber(_ number: String) -> Bool {
        number.hasPrefix("+") && (8...16).contains(number.utf8.count)
            && number.utf8.dropFirst().allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }
}

/// What is wrong with a set of custom claims, by Identity Platform's rule:
/// the one home of the rule, which IdentityAdmin applies before sending and
/// the emulator when it stores (each answers in its own errors).
package enum CustomClaimsProblem: Equatable, Sendable {
    /// It sets a claim of the token's own (`ReservedClaimName`).
    case reservedClaim(String)
    /// Its JSON text is longer than ``IdentityPlatformLimits/maximumCustomClaimsLength``.
    case tooLong(characters: Int)

    /// The claims' JSON text as stored, or the rule they break.
    package static func check(_ claims: [String: JSONValue]) -> Result<String, CustomClaimsProblem> {
        if let reserved = ReservedClaimName.allKnownValues.first(where: { claims[$0.rawValue] != nil }) {
            return .failure(.reservedClaim(reserved.rawValue))
        }
        let text = (try? CanonicalJSON.encoder.encode(claims)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        guard text.count <= IdentityPlatformLimits.maximumCustomClaimsLength else {
            return .failure(.tooLong(characters: text.count))
        }
        return .success(text)
    }
}

extension CustomClaimsProblem: Error {}
