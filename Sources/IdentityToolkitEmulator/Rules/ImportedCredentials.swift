#if Emulator
import Foundation
import IdentityOTP
import IdentityOTPFormats
import IdentitySupport
import IdentityToolkit

/// What each imported user carries besides its profile: passkeys, a
/// password, second factors, each held to the bounds of the call that
/// makes it (enrollment, sign-up, MFA enrollment).
extension ImportRules {
    /// The passkeys an import gives (an emulator export carries them in
    /// `passkeyInfo`), held to enrollment's bounds: a credential id of
    /// WebAuthn's length, one account per id, a named passkey.
    static func passkeys(of info: UserInfo, in accounts: AccountTable) throws -> [EnrolledPasskey] {
        let infos = info.passkeyInfo ?? []
        guard infos.count <= EmulatorRules.maximumPasskeysPerUser else {
            throw Refused("An account has at most \(EmulatorRules.maximumPasskeysPerUser) passkeys.")
        }
        var seen = Set<String>()
        return try infos.map { passkey in
            guard let id = passkey.credentialId, PasskeyRules.isValidCredentialID(id) else {
                throw Refused(
                    "passkeyInfo.credentialId must be 1 to \(PasskeyRules.maximumCredentialIDLength) characters")
            }
            guard seen.insert(id).inserted else { throw Refused("passkeyInfo.credentialId is listed twice") }
            if let owner = accounts.user(passkeyCredentialID: id), owner.localId != info.localId {
                throw Refused("passkey credential id exists in other account in database")
            }
            let name = passkey.name.flatMap { $0.isEmpty ? nil : $0 } ?? PasskeyRules.unnamed
            try InputRules.checkDisplayName(name, field: "passkeyInfo.name")
            return EnrolledPasskey(credentialId: id, name: name)
        }
    }

    /// The password an import gives: Google's emulator's form, a hash
    /// under the request's (or the export's) algorithm, or `rawPassword`.
    static func password(of info: UserInfo, _ options: Options) throws -> StoredPassword? {
        if let text = info.passwordHash, !text.isEmpty {
            if let emulator = StoredPassword.parseEmulatorForm(text) { return emulator }
            guard let hash = Data(lenientBase64URLEncoded: text) else {
                throw Refused("passwordHash is not base64")
            }
            guard let salt = Data(lenientBase64URLEncoded: info.salt ?? "") else {
                throw Refused("salt is not base64")
            }
            if let recorded = options.exportedHashing[info.localId] {
                return .imported(
                    ImportedPasswordHash(
                        hash: hash, salt: salt, algorithm: recorded.algorithm, parameters: recorded.parameters))
            }
            return .imported(
                ImportedPasswordHash(
                    hash: hash, salt: salt, algorithm: options.hashing?.algorithm,
                    parameters: options.hashing?.parameters ?? PasswordHashParameters()))
        }
        if let raw = info.rawPassword {
            try InputRules.checkNewPassword(raw)
            return .emulator(raw)
        }
        return nil
    }

    /// The second factors an import gives: phone ones as production takes
    /// them, TOTP ones with the secret an emulator export carries.
    static func factors(of info: UserInfo, user: EmulatedUser, _ options: Options, _ context: RuleContext)
        throws -> [SecondFactor]
    {
        guard let enrollments = info.mfaInfo, !enrollments.isEmpty else { return [] }
        guard user.email != nil else { throw Refused("Second factor account requires email to be presented.") }
        guard user.emailVerified else { throw Refused("Second factor account requires email to be verified.") }
        guard enrollments.count <= IdentityPlatformLimits.maximumSecondFactors else {
            throw Refused("at most \(IdentityPlatformLimits.maximumSecondFactors) second factors")
        }
        var ids: Set<String> = []
        for id in enrollments.compactMap(\.mfaEnrollmentId) where !ids.insert(id).inserted {
            throw Refused("Enrollment id already exists.")
        }
        return try enrollments.map { enrollment in
            let id = enrollment.mfaEnrollmentId ?? AccountRules.newUID()
            try InputRules.checkDisplayName(enrollment.displayName)
            let kind: SecondFactor.Kind
            if enrollment.totpInfo != nil {
                guard
                    let encoded = enrollment.mfaEnrollmentId.flatMap({
                        options.exportedTOTPSecrets[info.localId]?[$0]
                    })
                else {
                    throw Refused(
                        "TOTP factors cannot be imported without their secret, which only an export of this emulator carries (\(EmulatorExport.authFolder)/\(EmulatorExport.extrasFile))"
                    )
                }
                guard let secret = try? Base32.decode(encoded, mode: .lenient),
                    secret.count >= OTPKeyLengthPolicy.rfc4226.minimumByteCount
                else {
                    throw Refused(
                        "the exported TOTP secret is not base32 of at least \(OTPKeyLengthPolicy.rfc4226.minimumByteCount) bytes"
                    )
                }
                kind = .totp(secret: secret, lastAcceptedStep: nil)
            } else if let phone = enrollment.unobfuscatedPhoneInfo ?? enrollment.phoneInfo {
                guard MultiFactorRules.isPhoneNumber(phone) else { throw Refused("Phone number format is invalid") }
                kind = .phone(number: phone)
            } else {
                throw Refused("Second factor not supported.")
            }
            return SecondFactor(
                id: id, displayName: enrollment.displayName, enrolledAt: enrollment.enrolledAt ?? context.now,
                kind: kind)
        }
    }
}
#endif
