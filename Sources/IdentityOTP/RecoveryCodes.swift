import Crypto
public import Foundation
import IdentitySupport
import _CryptoExtras

/// A fresh set of recovery codes: the codes, to show the user **once**, and
/// the verifiers, to keep.
///
/// A recovery code stands in for a lost authenticator. Each has 60 bits from
/// the system's CSPRNG, written as 12 characters of Crockford's Base32 in
/// three groups (`7KQM-2XPD-9HTW`): digits and capitals without `I`, `L`,
/// `O` and `U`, so nothing reads as another character aloud or on paper, and
/// typing is forgiving — case, spaces and dashes do not matter, and `I`/`L`
/// read as `1`, `O` as `0` (``RecoveryCodes/normalized(_:)``).
///
/// Only ``verifiers`` are stored, never the codes. The verifier is
/// PBKDF2-HMAC-SHA256 with a random 16-byte salt per set: each guess of an
/// attacker who holds the database costs ``RecoveryCodeVerifiers/defaultRounds``
/// HMAC computations, and a code has 2⁶⁰ values, so trying every code of one
/// set takes on the order of 10²² SHA-256 blocks — thousands of GPU-years.
/// A slow hash rather than a memory-hard one (scrypt): memory-hardness
/// protects low-entropy passwords from GPUs, and these codes are not low
/// entropy; PBKDF2 keeps a redemption cheap for the server (about a
/// millisecond) and is available on every platform swift-crypto supports.
///
/// Its descriptions show how many codes there are, never one.
public struct RecoveryCodes: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Crockford's Base32 alphabet: 32 symbols, 5 bits each.
    public static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
    /// Characters per code (60 bits).
    public static let characters = 12
    /// Characters per group in the displayed form.
    public static let groupSize = 4

    /// The codes, grouped for reading (`XXXX-XXXX-XXXX`): show them once,
    /// then forget them.
    public let codes: [String]
    /// What the server keeps.
    public let verifiers: RecoveryCodeVerifiers

    /// Generates `count` codes and their verifiers.
    /// - Parameters:
    ///   - count: Codes in the set, 1 to 100 (10 by default, as most services).
    ///   - rounds: PBKDF2 rounds, 1,000 to 10,000,000.
    ///   - now: When the set was made (kept with the verifiers).
    /// - Throws: ``OTPError/invalidRecoveryCodeParameters(_:)`` outside those ranges.
    public static func generate(count: Int = 10, rounds: Int = RecoveryCodeVerifiers.defaultRounds, now: Date = Date())
        throws -> RecoveryCodes
    {
        guard (1...100).contains(count) else {
            throw OTPError.invalidRecoveryCodeParameters("a set holds 1 to 100 codes, not \(count)")
        }
        try RecoveryCodeVerifiers.checkRounds(rounds)
        var system = SystemRandomNumberGenerator()
        var codes: [String] = []
        var seen = Set<String>()
        while codes.count < count {
            // 5 bits per symbol from an unbiased draw over the 32-symbol alphabet.
            let plain = String(
                (0..<characters).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &system)] })
            if seen.insert(plain).inserted { codes.append(plain) }
        }
        let salt = Data((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &system) })
        let digests = try codes.map { try RecoveryCodeVerifiers.digest(of: $0, salt: salt, rounds: rounds) }
        return RecoveryCodes(
            codes: codes.map(grouped),
            verifiers: RecoveryCodeVerifiers(salt: salt, rounds: rounds, digests: digests, createdAt: now))
    }

    /// What a person typed, as the code's 12 canonical characters: upper
    /// case, spaces and dashes removed, `I`/`L` as `1` and `O` as `0`; nil
    /// when it cannot be a code (wrong length or a character outside the
    /// alphabet), so no slow hash runs for it.
    public static func normalized(_ input: String) -> String? {
        var result = ""
        for character in input.uppercased() {
            switch character {
            case " ", "-", "\t": continue
            case "I", "L": result.append("1")
            case "O": result.append("0")
            default:
                guard alphabet.contains(character) else { return nil }
                result.append(character)
            }
            if result.count > characters { return nil }
        }
        return result.count == characters ? result : nil
    }

    static func grouped(_ plain: String) -> String {
        stride(from: 0, to: plain.count, by: groupSize).map { start in
            let from = plain.index(plain.startIndex, offsetBy: start)
            return String(plain[from..<plain.index(from, offsetBy: groupSize)])
        }.joined(separator: "-")
    }

    /// `RecoveryCodes(count: 10, codes: <redacted>)`.
    public var description: String { "RecoveryCodes(count: \(codes.count), codes: <redacted>)" }
    /// The same as ``description``.
    public var debugDescription: String { description }
    /// No codes for `dump` or a debugger either.
    public var customMirror: Mirror {
        Mirror(self, children: ["count": codes.count, "codes": "<redacted>"], displayStyle: .struct)
    }
}

/// One user's recovery codes as the server keeps them: the salt and cost
/// of the set, and one digest per unused code. Redeeming a code removes its
/// digest; a new set replaces the whole value.
///
/// Not secret in the way a key is (a digest does not give the code back),
/// but not for display either: its descriptions show only the count.
public struct RecoveryCodeVerifiers: Codable, Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// PBKDF2 rounds of a new set (see ``RecoveryCodes`` for the reasoning).
    public static let defaultRounds = 10_000
    /// The set's random salt.
    public let salt: Data
    /// The set's PBKDF2 rounds.
    public let rounds: Int
    /// The digests of the codes not used yet.
    public var digests: [Data]
    /// When the set was made.
    public let createdAt: Date

    /// Verifiers as a store gives them back.
    /// - Parameters:
    ///   - salt: The set's salt.
    ///   - rounds: Its PBKDF2 rounds.
    ///   - digests: The unused codes' digests.
    ///   - createdAt: When the set was made.
    public init(salt: Data, rounds: Int, digests: [Data], createdAt: Date) {
        self.salt = salt
        self.rounds = rounds
        self.digests = digests
        self.createdAt = createdAt
    }

    /// The digest a typed code must have to match: PBKDF2-HMAC-SHA256 of
    /// its normalised form, 32 bytes. Nil when the input cannot be a code.
    /// - Throws: ``OTPError/invalidRecoveryCodeParameters(_:)`` when the
    ///   stored rounds are out of range (a damaged row).
    public func digest(of input: String) throws -> Data? {
        guard let plain = RecoveryCodes.normalized(input) else { return nil }
        try Self.checkRounds(rounds)
        return try Self.digest(of: plain, salt: salt, rounds: rounds)
    }

    /// The index of the digest equal to `digest`, comparing with every
    /// stored one in time that does not depend on which (or whether one) matches.
    public func indexOfDigest(_ digest: Data) -> Int? {
        var found: Int?
        for (index, stored) in digests.enumerated() where ConstantTime.equal(stored, digest) && found == nil {
            found = index
        }
        return found
    }

    static func digest(of plain: String, salt: Data, rounds: Int) throws -> Data {
        let key = try KDF.Insecure.PBKDF2.deriveKey(
            from: Data(plain.utf8), salt: salt, using: .sha256, outputByteCount: 32,
            unsafeUncheckedRounds: rounds)
        return key.withUnsafeBytes { Data($0) }
    }

    static func checkRounds(_ rounds: Int) throws {
        guard (1_000...10_000_000).contains(rounds) else {
            throw OTPError.invalidRecoveryCodeParameters("PBKDF2 rounds must be 1,000 to 10,000,000, not \(rounds)")
        }
    }

    /// `RecoveryCodeVerifiers(remaining: 9, <redacted>)`.
    public var description: String { "RecoveryCodeVerifiers(remaining: \(digests.count), <redacted>)" }
    /// The same as ``description``.
    public var debugDescription: String { description }
    /// Only the count for `dump` or a debugger.
    public var customMirror: Mirror {
        Mirror(self, children: ["remaining": digests.count, "digests": "<redacted>"], displayStyle: .struct)
    }
}

/// Where each user's ``RecoveryCodeVerifiers`` are kept: the package's is
/// ``ExpiringStateRecoveryCodeStore``, in memory for one instance
/// (``ExpiringStateRecoveryCodeStore``) or on a store every instance shares
/// (PostgreSQL's, through `IdentityStorage`'s `recoveryCodeStore`).
///
/// ``consumeCode(withDigest:for:)`` must be atomic: two redemptions of one
/// code at once, on two instances, must not both succeed.
public protocol RecoveryCodeStore: Sendable {
    /// Replaces the user's set whole (the old codes stop working).
    func replaceCodes(_ verifiers: RecoveryCodeVerifiers, for userID: String) async throws
    /// The user's set, nil when there is none.
    func verifiers(for userID: String) async throws -> RecoveryCodeVerifiers?
    /// Removes `digest` from the user's unused codes, in one atomic step.
    /// - Returns: How many codes remain; nil when `digest` was not among
    ///   them (a wrong code, or one used already).
    func consumeCode(withDigest digest: Data, for userID: String) async throws -> Int?
    /// Forgets the user's set.
    func removeCodes(for userID: String) async throws
}

/// Redeems recovery codes: counts the attempt, checks the code and consumes
/// it, each step atomic in its store, so a code works once and guesses stop
/// at the limit on every instance.
public struct RecoveryCodeRedeemer: Sendable {
    /// What a redemption found.
    public enum Result: Sendable, Hashable {
        /// The code was one of the user's unused codes; it is used now.
        case redeemed(remaining: Int)
        /// Not an unused code of this user (wrong, used already, or not a
        /// code at all).
        case invalid
        /// The user has no recovery codes.
        case noCodes
    }

    /// Where the verifiers are.
    public let store: any RecoveryCodeStore
    /// Where attempts are counted (the same store as the TOTP verifier's).
    public let attemptStore: any TOTPAttemptStore
    /// The attempts allowed per user.
    public let attemptLimit: TOTPAttemptLimit

    /// - Parameters:
    ///   - store: Where the verifiers are.
    ///   - attemptStore: Where attempts are counted, before each check.
    ///   - attemptLimit: The attempts allowed per user (five, then a lock-out).
    public init(
        store: any RecoveryCodeStore, attemptStore: any TOTPAttemptStore, attemptLimit: TOTPAttemptLimit = .default
    ) {
        self.store = store
        self.attemptStore = attemptStore
        self.attemptLimit = attemptLimit
    }

    /// Generates a new set for `userID`, replacing the old one whole.
    /// - Returns: The codes to show once.
    public func regenerate(for userID: String, count: Int = 10, now: Date = Date()) async throws -> RecoveryCodes {
        let codes = try RecoveryCodes.generate(count: count, now: now)
        try await store.replaceCodes(codes.verifiers, for: userID)
        return codes
    }

    /// Redeems `input` for `userID`: the attempt is counted first, then the
    /// typed code is hashed with the set's salt and its digest consumed in
    /// one atomic store call; a success clears the count.
    /// - Throws: ``OTPError/tooManyAttempts(limit:)`` while the user is locked
    ///   out, ``OTPError/factorLocked(failures:)`` after the limit's final
    ///   bound (nothing is checked), or the stores' errors (it fails closed).
    public func redeem(_ input: String, for userID: String, at now: Date = Date()) async throws -> Result {
        let attemptKey = "recovery-code/" + userID
        if let refusal = try await attemptStore.recordAttempt(for: attemptKey, limit: attemptLimit, at: now).refusal(
            attemptLimit)
        {
            throw refusal
        }
        guard let verifiers = try await store.verifiers(for: userID) else { return .noCodes }
        guard let digest = try verifiers.digest(of: input),
            let remaining = try await store.consumeCode(withDigest: digest, for: userID)
        else { return .invalid }
        try await attemptStore.clearAttempts(for: attemptKey)
        return .redeemed(remaining: remaining)
    }
}
