import Crypto
public import Foundation
import IdentitySupport

/// Seals state (a value that must come back unaltered and unread) into
/// text that may travel through a client — an HttpOnly cookie, a hidden
/// form field — and opens it again on any instance that holds the key.
///
/// A server that keeps a sign-in in flight this way needs no database:
/// the browser carries the sealed `MultiFactorResolver` snapshot between
/// the password step and the code step, and whichever instance receives
/// the code opens it.
///
/// The format is `s1.KEYID.BASE64URL`: AES-256-GCM (swift-crypto) with a
/// random 96-bit nonce, over an 8-byte expiry and the JSON of the value.
/// The key id, the codec's ``purpose`` and an optional binding are
/// authenticated as associated data, so a value sealed for one purpose (or
/// bound to one user) does not open for another. Expiry is checked after
/// authentication; an altered value fails as a whole. Random nonces allow
/// about 2³² seals per key before the bound NIST SP 800-38D sets: rotate
/// keys long before (``SealingKeyRing``).
///
/// What sealing does not do: it does not stop a client from sending back an
/// *older* sealed value it was given (a replay within the expiry). Keep
/// expiries short, and keep anything that must be used once — an accepted
/// TOTP step, an attempt count — in a shared store, not in sealed state.
public struct SealedStateCodec: Sendable, CustomStringConvertible {
    /// The format's version, the first part of every sealed value.
    static let version = "s1"
    /// Sealed text longer than this is refused unread (64 KiB).
    public static let maximumSealedLength = 64 * 1024

    /// The keys: the newest seals, any opens.
    public let keyRing: SealingKeyRing
    /// What the values are for, such as `"login.pending-sign-in"`: a value
    /// sealed by a codec of one purpose never opens in a codec of another.
    public let purpose: String

    /// A codec for values of one `purpose`.
    public init(keyRing: SealingKeyRing, purpose: String) {
        self.keyRing = keyRing
        self.purpose = purpose
    }

    /// Seals `value` as JSON.
    /// - Parameters:
    ///   - value: What to seal.
    ///   - expiresAt: After this the value no longer opens; nil for never
    ///     (secrets at rest, rather than state in flight).
    ///   - binding: What the value belongs to (a user id, a browser id),
    ///     authenticated but not stored: opening needs the same binding.
    /// - Throws: ``SealedStateError`` `unencodable`.
    public func seal<Value: Encodable>(_ value: Value, expiresAt: Date?, boundTo binding: String = "")
        throws(SealedStateError) -> String
    {
        let payload: Data
        do { payload = try Self.encoder.encode(value) } catch { throw .unencodable(String(describing: Value.self)) }
        return try sealData(payload, expiresAt: expiresAt, boundTo: binding)
    }

    /// Seals bytes (see ``seal(_:expiresAt:boundTo:)``).
    /// - Throws: ``SealedStateError`` `unencodable` if swift-crypto refuses.
    public func sealData(_ payload: some DataProtocol, expiresAt: Date?, boundTo binding: String = "")
        throws(SealedStateError) -> String
    {
        let key = keyRing.newest
        var plaintext = Data(capacity: 8 + payload.count)
        withUnsafeBytes(of: Self.expirySeconds(expiresAt).bigEndian) { plaintext.append(contentsOf: $0) }
        plaintext.append(contentsOf: payload)
        do {
            let box = try AES.GCM.seal(
                plaintext, using: key.key, authenticating: associatedData(keyID: key.id, binding: binding))
            guard let combined = box.combined else { throw SealedStateError.unencodable("sealed box") }
            return Self.version + "." + key.id + "." + combined.base64URLEncoded
        } catch {
            throw .unencodable("sealed box")
        }
    }

    /// Opens sealed text made by ``seal(_:expiresAt:boundTo:)`` as a `Value`.
    /// - Parameters:
    ///   - type: The type that was sealed.
    ///   - sealed: The sealed text.
    ///   - binding: The binding it was sealed with.
    ///   - now: The time its expiry is judged at.
    /// - Throws: ``SealedStateError``: `malformed`, `unknownKey`,
    ///   `authenticationFailed`, `expired` or `undecodable`.
    public func open<Value: Decodable>(
        _ type: Value.Type, from sealed: some StringProtocol, boundTo binding: String = "",
        now: Date = Date()
    ) throws(SealedStateError) -> Value {
        let (payload, keyID) = try openWithKeyID(sealed, boundTo: binding, now: now)
        do { return try Self.decoder.decode(Value.self, from: payload) } catch {
            throw .undecodable(String(describing: Value.self), keyID: keyID)
        }
    }

    /// Opens sealed bytes (see ``open(_:from:boundTo:now:)``).
    public func openData(_ sealed: some StringProtocol, boundTo binding: String = "", now: Date = Date())
        throws(SealedStateError) -> Data
    {
        try openWithKeyID(sealed, boundTo: binding, now: now).payload
    }

    /// Whether `sealed` was sealed with a key other than the newest, so
    /// that a server may seal it anew (key rotation). Says nothing about
    /// whether it opens.
    public func needsResealing(_ sealed: some StringProtocol) -> Bool {
        guard let (keyID, _) = Self.split(sealed) else { return false }
        return keyID != keyRing.newest.id
    }

    private func openWithKeyID(_ sealed: some StringProtocol, boundTo binding: String, now: Date)
        throws(SealedStateError) -> (payload: Data, keyID: String)
    {
        guard sealed.utf8.count <= Self.maximumSealedLength else {
            throw .malformed("longer than \(Self.maximumSealedLength) bytes")
        }
        guard let (keyID, body) = Self.split(sealed) else { throw .malformed("not \(Self.version).KEYID.BASE64URL") }
        guard let key = keyRing.key(id: keyID) else { throw .unknownKey(keyID) }
        // A nonce, a tag and the expiry at the least.
        guard let combined = Data(base64URLEncoded: body), combined.count >= 12 + 16 + 8 else {
            throw .malformed("the body is not base64url of a sealed box")
        }
        let plaintext: Data
        do {
            let box = try AES.GCM.SealedBox(combined: combined)
            plaintext = try AES.GCM.open(
                box, using: key.key, authenticating: associatedData(keyID: keyID, binding: binding))
        } catch {
            throw .authenticationFailed(keyID: keyID)
        }
        guard plaintext.count >= 8 else { throw .malformed("the sealed box holds no expiry") }
        let expiry = plaintext.prefix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }
        guard Double(expiry) > now.timeIntervalSince1970 else { throw .expired(keyID: keyID) }
        return (Data(plaintext.dropFirst(8)), keyID)
    }

    /// `s1.KEYID.BODY` → (KEYID, BODY), the key id checked for its alphabet.
    private static func split(_ sealed: some StringProtocol) -> (String, Substring)? {
        let parts = sealed.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == version, (try? SealingKey.checkID(String(parts[1]))) != nil else {
            return nil
        }
        return (String(parts[1]), Substring(parts[2]))
    }

    /// What is authenticated besides the plaintext: the format, the key id,
    /// the purpose and the binding, each length-prefixed so that no two
    /// different triples give the same bytes.
    private func associatedData(keyID: String, binding: String) -> Data {
        var data = Data(Self.version.utf8)
        for part in [keyID, purpose, binding] {
            data.append(contentsOf: "\n\(part.utf8.count):".utf8)
            data.append(contentsOf: part.utf8)
        }
        return data
    }

    /// Seconds since 1970, rounded up; `Int64.max` for never.
    private static func expirySeconds(_ date: Date?) -> Int64 {
        guard let date else { return .max }
        let seconds = date.timeIntervalSince1970.rounded(.up)
        guard seconds < Double(Int64.max) else { return .max }
        return Int64(max(0, seconds))
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        return encoder
    }()

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }()

    /// The purpose and the key ids; never a key.
    public var description: String {
        "SealedStateCodec(purpose: \(purpose), keys: \(keyRing.keys.map(\.id).joined(separator: ", ")))"
    }
}
