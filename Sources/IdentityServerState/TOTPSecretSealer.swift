public import Foundation

/// TOTP keys at rest, for apps that run TOTP themselves and keep each
/// user's key in their own database: the row holds AES-GCM ciphertext under
/// the app's ``SealingKeyRing`` (the same ring type as in-flight state), not
/// the key, so a copy of the database alone gives no one the codes.
///
/// Each sealed key is bound to its user id (and tenant, for a tenant's
/// user) as associated data: a sealed key copied into another user's row —
/// or into the row of another tenant's user with the same uid — does not
/// open there (``SealedStateError/Code/authenticationFailed``). Sealed keys never
/// expire. To rotate, put a new key first in the ring and call
/// ``resealed(_:userID:)`` on each row (it answers nil for rows already
/// under the newest key); a row sealed with a key that left the ring is
/// ``SealedStateError/Code/unknownKey`` naming that key's id.
public struct TOTPSecretSealer: Sendable, CustomStringConvertible {
    /// The codec, with the purpose `totp-secret`.
    public let codec: SealedStateCodec

    /// A sealer under `keyRing`.
    public init(keyRing: SealingKeyRing) {
        codec = SealedStateCodec(keyRing: keyRing, purpose: "totp-secret")
    }

    /// The key's bytes sealed for `userID` of the project itself, to store in the user's row.
    /// - Throws: ``SealedStateError`` `unencodable` if swift-crypto refuses.
    public func seal(_ key: some DataProtocol, userID: String) throws(SealedStateError) -> String {
        try seal(key, userID: userID, tenantID: nil)
    }

    /// The key's bytes sealed for `userID` of `tenantID` (nil: the project
    /// itself), to store in the user's row.
    /// - Throws: ``SealedStateError`` `unencodable` if swift-crypto refuses.
    public func seal(_ key: some DataProtocol, userID: String, tenantID: String?) throws(SealedStateError) -> String {
        try codec.sealData(key, expiresAt: nil, boundTo: Self.binding(userID, tenantID: tenantID))
    }

    /// The key's bytes from `sealed`, which must have been sealed for `userID` of the project itself.
    /// - Throws: ``SealedStateError``: `unknownKey` (with its ``SealedStateError/keyID``),
    ///   `authenticationFailed` (tampered, or another user's), `malformed`.
    public func open(_ sealed: some StringProtocol, userID: String) throws(SealedStateError) -> [UInt8] {
        try open(sealed, userID: userID, tenantID: nil)
    }

    /// The key's bytes from `sealed`, which must have been sealed for
    /// `userID` of `tenantID` (nil: the project itself).
    /// - Throws: ``SealedStateError``: `unknownKey` (with its ``SealedStateError/keyID``),
    ///   `authenticationFailed` (tampered, another user's or another tenant's), `malformed`.
    public func open(_ sealed: some StringProtocol, userID: String, tenantID: String?) throws(SealedStateError)
        -> [UInt8]
    {
        Array(try codec.openData(sealed, boundTo: Self.binding(userID, tenantID: tenantID)))
    }

    /// `sealed` sealed again under the ring's newest key, or nil when it
    /// already is (nothing to write). Opens it first, so a row that does
    /// not open throws as ``open(_:userID:)`` does.
    public func resealed(_ sealed: some StringProtocol, userID: String) throws(SealedStateError) -> String? {
        try resealed(sealed, userID: userID, tenantID: nil)
    }

    /// ``resealed(_:userID:)`` for `userID` of `tenantID` (nil: the project itself).
    public func resealed(_ sealed: some StringProtocol, userID: String, tenantID: String?) throws(SealedStateError)
        -> String?
    {
        guard codec.needsResealing(sealed) else {
            _ = try open(sealed, userID: userID, tenantID: tenantID)
            return nil
        }
        return try seal(open(sealed, userID: userID, tenantID: tenantID), userID: userID, tenantID: tenantID)
    }

    /// `TOTPSecretSealer(keys: k2, k1)`: key ids only.
    public var description: String { "TOTPSecretSealer(keys: \(codec.keyRing.keys.map(\.id).joined(separator: ", ")))" }

    /// `user:UID` for the project's own users (as sealed before tenants were
    /// told apart), `tenant:TENANT/user:UID` for a tenant's: the prefixes
    /// differ, and a tenant id holds no `/`, so no two users share one.
    static func binding(_ userID: String, tenantID: String?) -> String {
        tenantID.map { "tenant:\($0)/user:\(userID)" } ?? "user:" + userID
    }
}
