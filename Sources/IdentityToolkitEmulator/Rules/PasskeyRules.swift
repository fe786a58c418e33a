#if Emulator
import Foundation
import IdentityToolkit
import IdentitySupport

/// Passkeys (v2 `passkeyEnrollment` and `passkeySignIn`), as Google's
/// emulator serves them: a test has no authenticator, so the credential id
/// stands for it; no public key is kept and no attestation or assertion
/// signature is checked. What a real client sends is checked as far as it
/// can be without the key: when the response carries `clientDataJSON`, its
/// ceremony type and its challenge must be those of a challenge this
/// emulator gave for the same ceremony, unused and in time, which is then
/// spent.
enum PasskeyRules {
    /// The relying party every option names, as Google's emulator names it.
    static let relyingPartyID = "localhost"
    /// What a passkey is called when enrolled with neither a name nor a display name.
    static let unnamed = "Unnamed Passkey"
    /// WebAuthn caps a credential id at 1023 bytes: 1364 base64url characters.
    static let maximumCredentialIDLength = 1364

    /// Whether `id` can be a credential id: present and within WebAuthn's
    /// bound (enrollment and import hold ids to the same rule).
    static func isValidCredentialID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= maximumCredentialIDLength
    }
    /// How long a client has between `start` and `finalize`, in milliseconds
    /// (WebAuthn's `timeout`); the challenge lives as long.
    static let ceremonyTimeout: Int32 = 60_000
    /// ES256 and RS256, the COSE algorithms Google's emulator offers.
    static let algorithms: [Int32] = [-7, -257]

    // MARK: Enrollment

    /// The options for enrolling a passkey for `user`, with a new challenge.
    static func creationOptions(_ state: inout EmulatorState, for user: EmulatedUser, _ context: RuleContext)
        -> PasskeyCreationOptions
    {
        let challenge = newChallenge(&state, realm: user.realm, ceremony: .enroll(uid: user.localId), context)
        return PasskeyCreationOptions(
            rp: PasskeyRelyingParty(id: relyingPartyID, name: relyingPartyID),
            user: PasskeyUserEntity(
                id: Data(user.localId.utf8).base64EncodedString(), name: user.email ?? user.localId,
                displayName: user.displayName ?? user.email ?? user.localId),
            challenge: challenge,
            pubKeyCredParams: algorithms.map { PasskeyCredentialParameters(type: "public-key", alg: $0) },
            timeout: ceremonyTimeout, attestation: "none",
            excludeCredentials: user.passkeys.isEmpty
                ? nil : user.passkeys.map { PasskeyCredentialDescriptor(type: "public-key", id: $0.credentialId) })
    }

    /// Enrolls the passkey `response` names for `user`, named `name`, else
    /// `displayName`, else ``unnamed``. A credential id any account of the
    /// realm holds is `CREDENTIAL_ALREADY_IN_USE`.
    static func enroll(
        _ state: inout EmulatorState, user: EmulatedUser, response: AuthenticatorRegistrationResponse,
        name: String?, displayName: String?, _ context: RuleContext
    ) throws -> EmulatedUser {
        let credentialID = try checkCredentialID(response.id)
        let chosenName = [name, displayName].compactMap { $0 }.first { !$0.isEmpty } ?? unnamed
        try InputRules.checkDisplayName(chosenName, field: "name")
        if let clientData = response.response?.clientDataJSON {
            try spendChallenge(
                &state, clientDataJSON: clientData, type: "webauthn.create", realm: user.realm,
                ceremony: .enroll(uid: user.localId), context)
        }
        guard state.accounts(in: user.realm).user(passkeyCredentialID: credentialID) == nil else {
            throw APIServerError.credentialAlreadyInUse
        }
        guard user.passkeys.count < EmulatorRules.maximumPasskeysPerUser else {
            throw APIServerError.invalidArgument(
                "An account has at most \(EmulatorRules.maximumPasskeysPerUser) passkeys.")
        }
        var user = user
        user.passkeys.append(EnrolledPasskey(credentialId: credentialID, name: chosenName))
        state.store(user)
        return user
    }

    /// Removes the passkeys `credentialIDs` names from `user`; ids it does
    /// not hold are ignored, as Google's emulator ignores them.
    static func remove(_ credentialIDs: [String], from user: inout EmulatedUser) {
        let removed = Set(credentialIDs)
        user.passkeys.removeAll { removed.contains($0.credentialId) }
    }

    // MARK: Sign-in

    /// The options for a passkey sign-in in `realm`, with a new challenge.
    static func requestOptions(_ state: inout EmulatorState, realm: Realm, _ context: RuleContext)
        -> PasskeyRequestOptions
    {
        PasskeyRequestOptions(
            challenge: newChallenge(&state, realm: realm, ceremony: .signIn, context), rpId: relyingPartyID,
            userVerification: "required", timeout: ceremonyTimeout)
    }

    /// Signs in the account of `realm` holding the passkey `response`
    /// names: `PASSKEY_CREDENTIAL_NOT_FOUND` when none does, `USER_DISABLED`
    /// for a disabled one.
    static func signIn(
        _ state: inout EmulatorState, realm: Realm, response: AuthenticatorAuthenticationResponse,
        _ context: RuleContext
    ) throws -> SessionGrant {
        let credentialID = try checkCredentialID(response.id)
        if let clientData = response.response?.clientDataJSON {
            try spendChallenge(
                &state, clientDataJSON: clientData, type: "webauthn.get", realm: realm, ceremony: .signIn, context)
        }
        guard var user = state.accounts(in: realm).user(passkeyCredentialID: credentialID) else {
            throw APIServerError.passkeyCredentialNotFound
        }
        guard !user.disabled else { throw APIServerError.userDisabled }
        user.lastLoginAt = context.now
        state.store(user)
        return SessionRules.grant(
            &state, for: user, facts: SessionFacts(provider: .passkey, authTime: context.now), context)
    }

    // MARK: Checks

    /// A credential id: present (`INVALID_CREDENTIAL_ID` otherwise) and
    /// within WebAuthn's bound.
    private static func checkCredentialID(_ id: String) throws -> String {
        guard !id.isEmpty else { throw APIServerError.invalidCredentialId }
        guard isValidCredentialID(id) else {
            throw APIServerError.invalidCredentialId(
                "A credential id is at most \(maximumCredentialIDLength) characters.")
        }
        return id
    }

    /// A new challenge for `ceremony`: 32 random bytes, base64url.
    private static func newChallenge(
        _ state: inout EmulatorState, realm: Realm, ceremony: PasskeyChallenge.Ceremony,
        _ context: RuleContext
    ) -> String {
        SessionRules.sweepExpiredState(&state, now: context.now)
        let challenge = Data.randomToken(bytes: 32)
        let expiresAt = context.now.addingTimeInterval(TimeInterval(ceremonyTimeout) / 1000)
        state.sessions.passkeyChallenges.append(
            PasskeyChallenge(realm: realm, ceremony: ceremony, expiresAt: expiresAt), key: challenge,
            keeping: EmulatorRules.maximumPasskeyChallenges)
        return challenge
    }

    /// The part of WebAuthn's `CollectedClientData` the emulator checks.
    private struct ClientData: Decodable {
        var type: String
        var challenge: String
    }

    /// Checks a response's client data against the challenges given out,
    /// and spends the challenge it names. Clients differ in how they turn
    /// the challenge text into bytes (a web client decodes it; Firebase's
    /// Apple SDK takes its UTF-8), so either reading is taken.
    private static func spendChallenge(
        _ state: inout EmulatorState, clientDataJSON: String, type: String, realm: Realm,
        ceremony: PasskeyChallenge.Ceremony, _ context: RuleContext
    ) throws {
        guard let json = Data(lenientBase64URLEncoded: clientDataJSON),
            let clientData = try? JSONDecoder().decode(ClientData.self, from: json),
            let challengeBytes = Data(lenientBase64URLEncoded: clientData.challenge)
        else { throw APIServerError.invalidArgument("clientDataJSON is not WebAuthn client data.") }
        guard clientData.type == type else {
            throw APIServerError.invalidArgument("clientDataJSON is for \(clientData.type), not \(type).")
        }
        let candidates = [challengeBytes.base64URLEncoded, String(decoding: challengeBytes, as: UTF8.self)]
        guard
            let key = candidates.first(where: { key in
                guard let issued = state.sessions.passkeyChallenges[key] else { return false }
                return issued.realm == realm && issued.ceremony == ceremony && context.now < issued.expiresAt
            })
        else {
            throw APIServerError.invalidArgument(
                "The challenge was not given for this ceremony, was used already or has expired.")
        }
        state.sessions.passkeyChallenges.remove(key)
    }
}
#endif
