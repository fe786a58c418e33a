#if Emulator
import _CryptoExtras
import Crypto
import Foundation
import IdentityToolkit
import IdentitySupport

/// Passwords: checking one against what an account keeps, and the hash
/// algorithms an import may name (Identity Platform's list). Every hash is
/// swift-crypto's; nothing here is hand-rolled.
enum PasswordRules {
    /// What checking a password found.
    enum Check: Equatable, Sendable {
        case matches
        case doesNotMatch
        /// The account's hash cannot be checked here (`BCRYPT`, or an import
        /// that did not name its algorithm); the reason says which.
        case cannotVerify(String)
    }

    /// Checks `password` against `stored`, in constant time for the
    /// emulator's own form.
    static func check(_ password: String, against stored: StoredPassword) -> Check {
        switch stored {
        case .emulator(let expected, _):
            return ConstantTime.equal(Array(password.utf8), Array(expected.utf8)) ? .matches : .doesNotMatch
        case .imported(let imported):
            guard let algorithm = imported.algorithm else {
                return .cannotVerify(
                    "the password hash was imported without its algorithm; import it again with hashAlgorithm and its parameters, or reset the password"
                )
            }
            do {
                guard
                    let computed = try hash(
                        Data(password.utf8), salt: imported.salt, algorithm: algorithm, imported.parameters)
                else {
                    return .cannotVerify(
                        "the emulator cannot verify \(algorithm.rawValue) password hashes; reset the password to sign in with one"
                    )
                }
                return computed.contains { ConstantTime.equal(Array($0), Array(imported.hash)) }
                    ? .matches : .doesNotMatch
            } catch {
                return .cannotVerify("the imported \(algorithm.rawValue) parameters do not hash")
            }
        }
    }

    /// The hashes `password` could have under `algorithm` (two when the
    /// import left the order of password and salt open), or nil when the
    /// algorithm is not one the emulator computes.
    static func hash(
        _ password: Data, salt: Data, algorithm: PasswordHashAlgorithm, _ parameters: PasswordHashParameters
    ) throws -> [Data]? {
        let orders: [Bool] = parameters.passwordFirst.map { [$0] } ?? [false, true]
        func joined(_ passwordFirst: Bool) -> Data { passwordFirst ? password + salt : salt + password }
        let rounds = max(parameters.rounds ?? 1, 1)
        switch algorithm {
        case .hmacSHA512, .hmacSHA256, .hmacSHA1, .hmacMD5:
            guard let key = parameters.signerKey else { return nil }
            let symmetricKey = SymmetricKey(data: key)
            return orders.map { order in
                let message = joined(order)
                switch algorithm {
                case .hmacSHA512: return Data(HMAC<SHA512>.authenticationCode(for: message, using: symmetricKey))
                case .hmacSHA256: return Data(HMAC<SHA256>.authenticationCode(for: message, using: symmetricKey))
                case .hmacSHA1:
                    return Data(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: symmetricKey))
                default: return Data(HMAC<Insecure.MD5>.authenticationCode(for: message, using: symmetricKey))
                }
            }
        case .sha512: return orders.map { iterated(SHA512.self, joined($0), rounds: rounds) }
        case .sha256: return orders.map { iterated(SHA256.self, joined($0), rounds: rounds) }
        case .sha1: return orders.map { iterated(Insecure.SHA1.self, joined($0), rounds: rounds) }
        case .md5: return orders.map { iterated(Insecure.MD5.self, joined($0), rounds: rounds) }
        case .pbkdfSHA1, .pbkdf2SHA256:
            let function: KDF.Insecure.PBKDF2.HashFunction = algorithm == .pbkdfSHA1 ? .insecureSHA1 : .sha256
            let key = try KDF.Insecure.PBKDF2.deriveKey(
                from: password, salt: salt, using: function,
                outputByteCount: algorithm == .pbkdfSHA1 ? 20 : 32, unsafeUncheckedRounds: rounds)
            return [key.withUnsafeBytes { Data($0) }]
        case .standardScrypt:
            guard let n = parameters.cpuMemCost, let r = parameters.blockSize, let p = parameters.parallelization,
                let length = parameters.derivedKeyLength
            else { return nil }
            let key = try KDF.Scrypt.deriveKey(
                from: password, salt: salt, outputByteCount: length, rounds: n, blockSize: r, parallelism: p)
            return [key.withUnsafeBytes { Data($0) }]
        case .scrypt:
            return try firebaseScrypt(password, salt: salt, parameters).map { [$0] }
        default:
            // BCRYPT (swift-crypto has none) and names this version does not know.
            return nil
        }
    }

    /// Firebase's modified scrypt, as firebase/scrypt publishes it: scrypt
    /// of the password with the salt and the separator (N = 2^memoryCost,
    /// r = rounds, p = 1), whose first 32 bytes key AES-256-CTR (a zero
    /// counter block) over the project's signer key.
    static func firebaseScrypt(_ password: Data, salt: Data, _ parameters: PasswordHashParameters) throws -> Data? {
        guard let signerKey = parameters.signerKey, let memoryCost = parameters.memoryCost,
            let rounds = parameters.rounds
        else { return nil }
        let derived = try KDF.Scrypt.deriveKey(
            from: password, salt: salt + (parameters.saltSeparator ?? Data()), outputByteCount: 32,
            rounds: 1 << memoryCost, blockSize: rounds, parallelism: 1)
        return try AES._CTR.encrypt(
            signerKey, using: derived, nonce: AES._CTR.Nonce(nonceBytes: [UInt8](repeating: 0, count: 16)))
    }

    /// `rounds` applications of `H`, the first to `input`.
    private static func iterated<H: HashFunction>(_: H.Type, _ input: Data, rounds: Int) -> Data {
        var digest = Data(H.hash(data: input))
        for _ in 1..<rounds { digest = Data(H.hash(data: digest)) }
        return digest
    }

    // MARK: Import parameters

    /// The parameters of an import request (or of an export's record),
    /// checked as production checks them (`MISSING_HASH_KEY`,
    /// `INVALID_HASH_ROUNDS`, …) before any user is read; nil when it
    /// names no algorithm.
    static func parameters(of options: some PasswordHashOptions) throws -> (
        algorithm: PasswordHashAlgorithm, parameters: PasswordHashParameters
    )? {
        guard let algorithm = options.hashAlgorithm else { return nil }
        func bytes(_ text: String?, _ error: APIServerError) throws -> Data? {
            guard let text else { return nil }
            guard let data = Data(lenientBase64URLEncoded: text) else { throw error }
            return data
        }
        var parameters = PasswordHashParameters(
            signerKey: try bytes(options.signerKey, .invalidHashKey),
            saltSeparator: try bytes(options.saltSeparator, .invalidHashSaltSeparator),
            rounds: options.rounds.map(Int.init), memoryCost: options.memoryCost.map(Int.init),
            cpuMemCost: options.cpuMemCost.map(Int.init),
            blockSize: options.blockSize.map(Int.init), parallelization: options.parallelization.map(Int.init),
            derivedKeyLength: options.dkLen.map(Int.init))
        switch options.passwordHashOrder {
        case .passwordAndSalt?: parameters.passwordFirst = true
        case .saltAndPassword?: parameters.passwordFirst = false
        default: parameters.passwordFirst = nil
        }
        func checkRounds(_ range: ClosedRange<Int>) throws {
            guard range.contains(parameters.rounds ?? 0) else { throw APIServerError.invalidHashRounds }
        }
        switch algorithm {
        case .hmacSHA512, .hmacSHA256, .hmacSHA1, .hmacMD5:
            guard let key = parameters.signerKey, !key.isEmpty else { throw APIServerError.missingHashKey }
        case .sha1, .sha256, .sha512: try checkRounds(1...8192)
        case .md5: try checkRounds(0...8192)
        case .pbkdfSHA1, .pbkdf2SHA256: try checkRounds(0...120_000)
        case .scrypt:
            guard let key = parameters.signerKey, !key.isEmpty else { throw APIServerError.missingHashKey }
            try checkRounds(1...8)
            guard (1...14).contains(parameters.memoryCost ?? 0) else { throw APIServerError.invalidHashMemoryCost }
        case .standardScrypt:
            guard let n = parameters.cpuMemCost, n > 1, n.nonzeroBitCount == 1, n <= 1 << 20 else {
                throw APIServerError.invalidArgument("cpuMemCost must be a power of two from 2 to 1048576")
            }
            guard let r = parameters.blockSize, (1...64).contains(r) else {
                throw APIServerError.invalidHashBlockSize
            }
            guard let p = parameters.parallelization, (1...16).contains(p) else {
                throw APIServerError.invalidHashParallelization
            }
            guard (1...1024).contains(parameters.derivedKeyLength ?? 0) else {
                throw APIServerError.invalidHashDerivedKeyLength
            }
            // Each sign-in with a wrong password runs the hash: unbounded
            // parameters let one unauthenticated request take seconds and gigabytes.
            guard 128 * n * r <= maximumScryptMemory else {
                throw APIServerError.invalidArgument(
                    "cpuMemCost × blockSize needs \(128 * n * r >> 20) MiB of scrypt memory (128·N·r); the emulator takes at most \(maximumScryptMemory >> 20) MiB"
                )
            }
            guard n * r * p <= maximumScryptWork else {
                throw APIServerError.invalidArgument(
                    "cpuMemCost × blockSize × parallelization is \(n * r * p); the emulator takes at most \(maximumScryptWork) (8 × Firebase's own hash)"
                )
            }
        case .bcrypt:
            break
        default:
            throw APIServerError.invalidHashAlgorithm
        }
        return (algorithm, parameters)
    }

    /// The most memory one `STANDARD_SCRYPT` hash may take (128·N·r bytes):
    /// four times Firebase's own hash (N = 2^14, r = 8 is 16 MiB).
    static let maximumScryptMemory = 64 << 20
    /// The most work one `STANDARD_SCRYPT` hash may take (N·r·p): eight
    /// times Firebase's own hash (N = 2^14, r = 8, p = 1), a few hundred
    /// milliseconds here.
    static let maximumScryptWork = 1 << 20

    /// What an export records of an imported hash (its algorithm and
    /// parameters; the hash and salt go in the accounts file).
    static func record(of hash: ImportedPasswordHash, uid: String, tenant: String?) -> ExportedHashAlgorithm {
        let parameters = hash.parameters
        return ExportedHashAlgorithm(
            localId: uid, tenantId: tenant, hashAlgorithm: hash.algorithm,
            signerKey: parameters.signerKey?.base64EncodedString(),
            saltSeparator: parameters.saltSeparator?.base64EncodedString(),
            rounds: parameters.rounds.map(Int32.init),
            memoryCost: parameters.memoryCost.map(Int32.init), cpuMemCost: parameters.cpuMemCost.map(Int32.init),
            parallelization: parameters.parallelization.map(Int32.init),
            blockSize: parameters.blockSize.map(Int32.init),
            dkLen: parameters.derivedKeyLength.map(Int32.init),
            passwordHashOrder: parameters.passwordFirst.map { $0 ? .passwordAndSalt : .saltAndPassword })
    }
}

/// The hash options of an import request, or of an export's record of one
/// account's imported hash: the same fields, read the same way.
protocol PasswordHashOptions {
    var hashAlgorithm: PasswordHashAlgorithm? { get }
    var signerKey: String? { get }
    var saltSeparator: String? { get }
    var rounds: Int32? { get }
    var memoryCost: Int32? { get }
    var cpuMemCost: Int32? { get }
    var parallelization: Int32? { get }
    var blockSize: Int32? { get }
    var dkLen: Int32? { get }
    var passwordHashOrder: PasswordHashOrder? { get }
}

extension UploadAccountRequest: PasswordHashOptions {}
extension ExportedHashAlgorithm: PasswordHashOptions {}
#endif
