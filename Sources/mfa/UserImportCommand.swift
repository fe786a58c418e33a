#if Tools
import ArgumentParser
import Foundation
import IdentityAdmin
import IdentityToolkit
import IdentitySupport

extension AdminCommand.Users {
    /// `mfa admin users import FILE`: users from a `firebase auth:export`
    /// JSON file (or any `{"users": [...]}` in that shape), 1,000 per
    /// request through IdentityAdmin's `importUsers`, with the hash options
    /// `firebase auth:import` takes. The signer key is read from a file,
    /// never from the command line.
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract:
                "Import users from a firebase auth:export JSON file; progress on standard error, the result as JSON.",
            discussion: """
                Exits 0 when every user was imported, 1 when some were refused (each is listed with its index and reason). \
                Password hashes need --hash-algo and its parameters, as 'firebase auth:import' takes them; \
                for SCRYPT use the values of the console's "Password hash parameters".
                """)

        @OptionGroup var target: AdminTarget

        @Argument(
            help:
                "The JSON file: {\"users\": [{\"localId\": …, \"email\": …, \"passwordHash\": base64, \"salt\": base64, …}]}."
        )
        var file: String

        @Option(
            help:
                "The algorithm of the file's password hashes, as Identity Platform names it (SCRYPT, HMAC_SHA256, PBKDF2_SHA256, BCRYPT, …)."
        )
        var hashAlgo: String?

        @Option(help: "A file holding the hash key (base64): the HMAC key, or SCRYPT's signer key.")
        var hashKeyFile: String?

        @Option(help: "SCRYPT's salt separator (base64).")
        var saltSeparator: String?

        @Option(help: "Rounds (SHA*, MD5, PBKDF*, SCRYPT).")
        var rounds: Int?

        @Option(help: "SCRYPT's memory cost (1 to 14), or STANDARD_SCRYPT's N.")
        var memCost: Int?

        @Option(help: "STANDARD_SCRYPT's parallelization (p).")
        var parallelization: Int?

        @Option(help: "STANDARD_SCRYPT's block size (r).")
        var blockSize: Int?

        @Option(help: "STANDARD_SCRYPT's derived key length.")
        var dkLen: Int?

        func validate() throws {
            try InputCheck.path(file, "FILE")
            try InputCheck.path(hashKeyFile, "--hash-key-file")
            if let hashAlgo,
                !PasswordHashAlgorithm.allKnownValues.contains(PasswordHashAlgorithm(rawValue: hashAlgo))
            {
                let names = PasswordHashAlgorithm.allKnownValues.map(\.rawValue).joined(separator: ", ")
                throw ValidationError("--hash-algo must be one of \(names), not '\(hashAlgo.prefix(40))'")
            }
        }

        func run() async throws {
            let records = try Self.records(fromFile: file)
            let hash = try hashOption()
            if hash == nil, records.contains(where: { $0.passwordHash != nil }) {
                throw ValidationError("the file has password hashes: give --hash-algo (and its parameters)")
            }
            let auth = try target.auth()
            var result = UserImportResult(successCount: 0, failureCount: 0, errors: [])
            var start = 0
            while start < records.count {
                let batch = Array(records[start..<min(start + BaseAuth.maximumImportBatch, records.count)])
                let outcome = try await auth.importUsers(batch, options: UserImportOptions(hash: hash))
                result.successCount += outcome.successCount
                result.failureCount += outcome.failureCount
                result.errors += outcome.errors.map {
                    UserImportFailure(index: $0.index + start, message: $0.message)
                }
                start += batch.count
                FileHandle.standardError.write(
                    Data("imported \(start) of \(records.count) users (\(result.failureCount) refused)\n".utf8))
            }
            print(
                AdminCommand.Users.json(
                    [
                        "successCount": result.successCount, "failureCount": result.failureCount,
                        "errors": result.errors.map {
                            ["index": $0.index, "message": $0.message] as [String: Any]
                        },
                    ] as [String: Any]))
            if result.failureCount > 0 {
                throw ImportIncomplete(refused: result.failureCount, total: records.count)
            }
        }

        /// Some users were refused: exit 1 after the result is printed.
        struct ImportIncomplete: Error, CustomStringConvertible {
            let refused: Int
            let total: Int
            var description: String { "\(refused) of \(total) users were refused (listed in the result)" }
        }

        /// The records of an export file; an unreadable one names the field.
        static func records(fromFile path: String) throws -> [UserImportRecord] {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ValidationError("cannot read \(path)")
            }
            let body: DownloadAccountResponse
            do {
                body = try JSONDecoder().decode(DownloadAccountResponse.self, from: data)
            } catch let error as DecodingError {
                throw ValidationError("\(path): \(Self.describe(error))")
            }
            return try (body.users ?? []).enumerated().map { index, user in
                func bytes(_ text: String?, _ field: String) throws -> Data? {
                    guard let text else { return nil }
                    guard let data = Data(lenientBase64URLEncoded: text) else {
                        throw ValidationError(
                            "\(path): users[\(index)].\(field) is not base64 (an emulator export? load it with 'mfa emulator --import')"
                        )
                    }
                    return data
                }
                return UserImportRecord(
                    uid: user.localId, email: user.email, emailVerified: user.emailVerified,
                    displayName: user.displayName, photoURL: user.photoUrl,
                    phoneNumber: user.phoneNumber, disabled: user.disabled,
                    metadata: UserMetadata(
                        creationTime: user.createdAt.map { Date(timeIntervalSince1970: TimeInterval($0) / 1000) },
                        lastSignInTime: user.lastLoginAt.map {
                            Date(timeIntervalSince1970: TimeInterval($0) / 1000)
                        }),
                    providerData: (user.providerUserInfo ?? []).compactMap { provider in
                        guard let id = provider.providerId, id != ProviderID.password.rawValue,
                            id != ProviderID.phone.rawValue, let uid = provider.rawId
                        else {
                            return nil
                        }
                        return UserProviderInfo(
                            providerID: id, uid: uid, email: provider.email, displayName: provider.displayName,
                            photoURL: provider.photoUrl)
                    },
                    customClaims: try user.customAttributes.map { text in
                        guard
                            let claims = try? JSONDecoder().decode([String: JSONValue].self, from: Data(text.utf8))
                        else {
                            throw ValidationError("\(path): users[\(index)].customAttributes is not a JSON object")
                        }
                        return claims
                    },
                    passwordHash: try bytes(user.passwordHash, "passwordHash"),
                    passwordSalt: try bytes(user.salt, "salt"),
                    phoneFactors: (user.mfaInfo ?? []).compactMap { factor in
                        (factor.unobfuscatedPhoneInfo ?? factor.phoneInfo).map {
                            PhoneFactorImport(
                                phoneNumber: $0, displayName: factor.displayName, uid: factor.mfaEnrollmentId,
                                enrollmentTime: factor.enrolledAt)
                        }
                    })
            }
        }

        static func describe(_ error: DecodingError) -> String {
            func path(_ keys: [any CodingKey]) -> String {
                keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().trimmingCharacters(
                    in: CharacterSet(charactersIn: "."))
            }
            switch error {
            case .keyNotFound(let key, let context): return "\(path(context.codingPath + [key])) is missing"
            case .typeMismatch(_, let context), .valueNotFound(_, let context):
                return "\(path(context.codingPath)) has the wrong type"
            case .dataCorrupted(let context):
                return context.codingPath.isEmpty
                    ? "is not valid JSON" : "\(path(context.codingPath)) has a value of the wrong form"
            @unknown default: return "does not decode"
            }
        }

        /// The hash option the flags describe.
        func hashOption() throws -> UserImportHash? {
            guard let hashAlgo else { return nil }
            let algorithm = PasswordHashAlgorithm(rawValue: hashAlgo)
            func need<T>(_ value: T?, _ flag: String) throws -> T {
                guard let value else { throw ValidationError("--hash-algo \(hashAlgo) needs \(flag)") }
                return value
            }
            func key() throws -> Data {
                let file = try need(hashKeyFile, "--hash-key-file")
                guard
                    let text = FileManager.default.contents(atPath: file).map({
                        String(decoding: $0, as: UTF8.self)
                    })
                else {
                    throw ValidationError("cannot read \(file)")
                }
                guard let key = Data(lenientBase64URLEncoded: text.trimmingCharacters(in: .whitespacesAndNewlines)),
                    !key.isEmpty
                else {
                    throw ValidationError("--hash-key-file must hold the key in base64")
                }
                return key
            }
            switch algorithm {
            case .hmacSHA512: return .hmacSHA512(key: try key())
            case .hmacSHA256: return .hmacSHA256(key: try key())
            case .hmacSHA1: return .hmacSHA1(key: try key())
            case .hmacMD5: return .hmacMD5(key: try key())
            case .sha512: return .sha512(rounds: try need(rounds, "--rounds"))
            case .sha256: return .sha256(rounds: try need(rounds, "--rounds"))
            case .sha1: return .sha1(rounds: try need(rounds, "--rounds"))
            case .md5: return .md5(rounds: try need(rounds, "--rounds"))
            case .pbkdfSHA1: return .pbkdfSHA1(rounds: try need(rounds, "--rounds"))
            case .pbkdf2SHA256: return .pbkdf2SHA256(rounds: try need(rounds, "--rounds"))
            case .scrypt:
                guard let separator = Data(lenientBase64URLEncoded: saltSeparator ?? "") else {
                    throw ValidationError("--salt-separator must be base64")
                }
                return .scrypt(
                    key: try key(), saltSeparator: separator, rounds: try need(rounds, "--rounds"),
                    memoryCost: try need(memCost, "--mem-cost"))
            case .standardScrypt:
                return .standardScrypt(
                    memoryCost: try need(memCost, "--mem-cost"),
                    parallelization: try need(parallelization, "--parallelization"),
                    blockSize: try need(blockSize, "--block-size"), derivedKeyLength: try need(dkLen, "--dk-len"))
            default:
                return .bcrypt
            }
        }
    }
}
#endif
