/// Why sealed state could not be made or opened, or why a key or key ring
/// was refused. Messages name the key id and the reason, never key material
/// or the sealed value.
///
/// A struct over a private enum, as ``Code`` lets a later release add a
/// case: match with `catch let error as SealedStateError where error.code == .expired`.
public struct SealedStateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of error without its details.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        fileprivate enum Base: String, Sendable, Hashable {
            case malformed, unknownKey, authenticationFailed, expired, undecodable, unencodable, invalidKey,
                invalidKeyRing
        }

        fileprivate let base: Base

        /// Not a sealed value of this format (truncated, not base64url, another version).
        public static let malformed = Code(base: .malformed)
        /// Sealed with a key the ring no longer holds (rotated out, or another deployment's).
        public static let unknownKey = Code(base: .unknownKey)
        /// The ciphertext, the key id or the purpose was altered, or the value
        /// was sealed for another purpose or binding: nothing of it is trusted.
        public static let authenticationFailed = Code(base: .authenticationFailed)
        /// Authentic, but past the expiry it was sealed with.
        public static let expired = Code(base: .expired)
        /// Authentic, but not the type asked for (the app's state changed shape).
        public static let undecodable = Code(base: .undecodable)
        /// The value could not be encoded.
        public static let unencodable = Code(base: .unencodable)
        /// A key that is not 256 bits, or whose id is not 1 to 32 of `A–Z a–z 0–9 _ -`.
        public static let invalidKey = Code(base: .invalidKey)
        /// A key ring without keys, with a key id twice, or a configuration it cannot read.
        public static let invalidKeyRing = Code(base: .invalidKeyRing)

        /// The error's name, such as `expired`.
        public var description: String { base.rawValue }
    }

    /// The kind of error.
    public let code: Code
    /// The key involved, where one is known.
    public let keyID: String?
    private let detail: String

    private init(_ base: Code.Base, keyID: String? = nil, detail: String) {
        self.code = Code(base: base)
        self.keyID = keyID
        self.detail = detail
    }

    static func malformed(_ detail: String) -> Self { Self(.malformed, detail: detail) }
    static func unknownKey(_ keyID: String) -> Self {
        Self(.unknownKey, keyID: keyID, detail: "sealed with the key '\(keyID)', which the key ring does not hold")
    }
    static func authenticationFailed(keyID: String) -> Self {
        Self(
            .authenticationFailed, keyID: keyID,
            detail:
                "does not open with the key '\(keyID)' for this purpose: altered, or sealed for another purpose or binding"
        )
    }
    static func expired(keyID: String) -> Self { Self(.expired, keyID: keyID, detail: "expired") }
    static func undecodable(_ typeName: String, keyID: String) -> Self {
        Self(.undecodable, keyID: keyID, detail: "authentic, but not a \(typeName)")
    }
    static func unencodable(_ typeName: String) -> Self {
        Self(.unencodable, detail: "a \(typeName) could not be encoded")
    }
    static func invalidKey(_ detail: String, keyID: String?) -> Self { Self(.invalidKey, keyID: keyID, detail: detail) }
    static func invalidKeyRing(_ detail: String) -> Self { Self(.invalidKeyRing, detail: detail) }

    /// What went wrong, naming the key id where one is known.
    public var description: String { "sealed state: \(detail)" }
}
