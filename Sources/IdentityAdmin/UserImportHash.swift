public import Foundation
import IdentitySupport
import IdentityToolkit

// How imported passwords were hashed, and the hash options the REST call takes.

/// How imported passwords were hashed, with each algorithm's parameters
/// (Identity Platform's list; firebase-admin's `hash` option). A case
/// carries exactly what its algorithm needs, so none can be left out.
public enum UserImportHash: Sendable, Hashable, CustomStringConvertible {
    /// HMAC-SHA512 of the salt and password under `key`.
    case hmacSHA512(key: Data)
    /// HMAC-SHA256 of the salt and password under `key`.
    case hmacSHA256(key: Data)
    /// HMAC-SHA1 of the salt and password under `key`.
    case hmacSHA1(key: Data)
    /// HMAC-MD5 of the salt and password under `key`.
    case hmacMD5(key: Data)
    /// SHA-512 applied `rounds` times (1 to 8192).
    case sha512(rounds: Int)
    /// SHA-256 applied `rounds` times (1 to 8192).
    case sha256(rounds: Int)
    /// SHA-1 applied `rounds` times (1 to 8192).
    case sha1(rounds: Int)
    /// MD5 applied `rounds` times (0 to 8192).
    case md5(rounds: Int)
    /// PBKDF2 with SHA-1 and `rounds` iterations (0 to 120,000).
    case pbkdfSHA1(rounds: Int)
    /// PBKDF2 with SHA-256 and `rounds` iterations (0 to 120,000).
    case pbkdf2SHA256(rounds: Int)
    /// Firebase's modified scrypt, with the project's parameters from the
    /// console's "Password hash parameters": the signer key, the salt
    /// separator, rounds (1 to 8) and memory cost (1 to 14).
    case scrypt(key: Data, saltSeparator: Data = Data(), rounds: Int, memoryCost: Int)
    /// Standard scrypt: N (`memoryCost`), p, r and the key length.
    case standardScrypt(memoryCost: Int, parallelization: Int, blockSize: Int, derivedKeyLength: Int)
    /// bcrypt (the salt is inside the hash).
    case bcrypt

    /// The algorithm's name; never a key.
    public var description: String { algorithm.rawValue }

    var algorithm: PasswordHashAlgorithm {
        switch self {
        case .hmacSHA512: .hmacSHA512
        case .hmacSHA256: .hmacSHA256
        case .hmacSHA1: .hmacSHA1
        case .hmacMD5: .hmacMD5
        case .sha512: .sha512
        case .sha256: .sha256
        case .sha1: .sha1
        case .md5: .md5
        case .pbkdfSHA1: .pbkdfSHA1
        case .pbkdf2SHA256: .pbkdf2SHA256
        case .scrypt: .scrypt
        case .standardScrypt: .standardScrypt
        case .bcrypt: .bcrypt
        }
    }

    /// The request's hash fields, checked as firebase-admin checks them.
    func apply(to request: inout UploadAccountRequest) throws(AdminValidationError) {
        request.hashAlgorithm = algorithm
        func rounds(_ value: Int, _ range: ClosedRange<Int>) throws(AdminValidationError) -> Int32 {
            guard range.contains(value) else {
                throw AdminValidationError(
                    field: "hash.rounds",
                    message: "must be \(range.lowerBound) to \(range.upperBound) for \(algorithm.rawValue)")
            }
            return Int32(value)
        }
        func key(_ value: Data) throws(AdminValidationError) -> String {
            guard !value.isEmpty else {
                throw AdminValidationError(field: "hash.key", message: "must not be empty for \(algorithm.rawValue)")
            }
            return value.base64URLEncoded
        }
        switch self {
        case .hmacSHA512(let value), .hmacSHA256(let value), .hmacSHA1(let value), .hmacMD5(let value):
            request.signerKey = try key(value)
        case .sha512(let value), .sha256(let value), .sha1(let value):
            request.rounds = try rounds(value, 1...8192)
        case .md5(let value):
            request.rounds = try rounds(value, 0...8192)
        case .pbkdfSHA1(let value), .pbkdf2SHA256(let value):
            request.rounds = try rounds(value, 0...120_000)
        case .scrypt(let signer, let separator, let value, let memoryCost):
            request.signerKey = try key(signer)
            request.saltSeparator = separator.base64URLEncoded
            request.rounds = try rounds(value, 1...8)
            guard (1...14).contains(memoryCost) else {
                throw AdminValidationError(field: "hash.memoryCost", message: "must be 1 to 14 for SCRYPT")
            }
            request.memoryCost = Int32(memoryCost)
        case .standardScrypt(let memoryCost, let parallelization, let blockSize, let derivedKeyLength):
            for (field, value) in [
                ("memoryCost", memoryCost), ("parallelization", parallelization), ("blockSize", blockSize),
                ("derivedKeyLength", derivedKeyLength),
            ] where !(1...Int(Int32.max)).contains(value) {
                throw AdminValidationError(
                    field: "hash.\(field)", message: "must be a positive number for STANDARD_SCRYPT")
            }
            request.cpuMemCost = Int32(memoryCost)
            request.parallelization = Int32(parallelization)
            request.blockSize = Int32(blockSize)
            request.dkLen = Int32(derivedKeyLength)
        case .bcrypt:
            break
        }
    }
}
