#if Emulator
import Foundation
import IdentityToolkit

/// How the emulator keeps an account's password.
///
/// A password set in the emulator is kept as Google's Auth emulator keeps
/// it, `fakeHash:salt=SALT:password=PASSWORD`: in clear, so that an export
/// moves both ways between the two emulators. The emulator holds test data
/// only; its exports say so in the README. A password imported with a real
/// hash (`accounts:batchCreate` with `hashAlgorithm`, or an export of a real
/// project) is kept as that hash with what verifying it takes.
enum StoredPassword: Codable, Sendable, Equatable {
    /// Set in the emulator, in Google's emulator's form.
    case emulator(password: String, salt: String)
    /// Imported as a hash.
    case imported(ImportedPasswordHash)

    /// The prefix of Google's emulator's form.
    static let emulatorPrefix = "fakeHash:salt="
    /// The prefix of the salts Google's emulator makes.
    static let emulatorSaltPrefix = "fakeSalt"

    /// A password set now, with a fresh salt in Google's emulator's form.
    static func emulator(_ password: String) -> StoredPassword {
        .emulator(password: password, salt: emulatorSaltPrefix + Data.randomToken(bytes: 15))
    }

    /// The `passwordHash` an export writes: Google's emulator's form, or the
    /// imported hash in base64.
    var exportedHash: String {
        switch self {
        case .emulator(let password, let salt): return "\(Self.emulatorPrefix)\(salt):password=\(password)"
        case .imported(let hash): return hash.hash.base64EncodedString()
        }
    }

    /// The `salt` an export writes.
    var exportedSalt: String {
        switch self {
        case .emulator(_, let salt): return salt
        case .imported(let hash): return hash.salt.base64EncodedString()
        }
    }

    /// Reads Google's emulator's form, `fakeHash:salt=SALT:password=PASSWORD`;
    /// nil for any other text. The password is everything after the first
    /// `:password=` that follows the salt (a password may hold colons).
    static func parseEmulatorForm(_ text: String) -> StoredPassword? {
        guard text.hasPrefix(emulatorPrefix) else { return nil }
        let rest = text.dropFirst(emulatorPrefix.count)
        guard let marker = rest.range(of: ":password=") else { return nil }
        return .emulator(password: String(rest[marker.upperBound...]), salt: String(rest[..<marker.lowerBound]))
    }
}

/// A password hash imported with its algorithm's parameters (Identity
/// Platform's `UploadAccountRequest` fields).
struct ImportedPasswordHash: Codable, Sendable, Equatable {
    var hash: Data
    var salt: Data
    /// nil: imported from a file that did not say (a foreign export);
    /// sign-in with it is refused with a message that says so.
    var algorithm: PasswordHashAlgorithm?
    var parameters = PasswordHashParameters()
}

/// The parameters of a password hash algorithm, as `accounts:batchCreate`
/// takes them (one set per request, applied to each user).
struct PasswordHashParameters: Codable, Sendable, Equatable {
    /// The key of `HMAC_*`, and the signer key of Firebase's `SCRYPT`.
    var signerKey: Data?
    /// Appended to the salt by Firebase's `SCRYPT`.
    var saltSeparator: Data?
    /// `SHA*`/`MD5`/`PBKDF*` iterations; Firebase `SCRYPT`'s r.
    var rounds: Int?
    /// Firebase `SCRYPT`'s log2(N).
    var memoryCost: Int?
    /// `STANDARD_SCRYPT`'s N, r, p and key length.
    var cpuMemCost: Int?
    var blockSize: Int?
    var parallelization: Int?
    var derivedKeyLength: Int?
    /// Whether `SHA*`, `MD5` and `HMAC_*` hash the password before the salt
    /// (`PASSWORD_AND_SALT`); nil: the request did not say, and either
    /// order verifies.
    var passwordFirst: Bool?
}
#endif
