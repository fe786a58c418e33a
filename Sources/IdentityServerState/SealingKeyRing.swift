import Crypto
public import Foundation
import IdentitySupport

/// A 256-bit AES key with a name, for ``SealedStateCodec``.
///
/// Keys come from configuration (an environment variable, a secrets
/// manager, a file only the server reads), never from a constant in code:
/// make one with `openssl rand -base64 32`. The id travels in clear with
/// every sealed value so that the right key of a ``SealingKeyRing`` opens
/// it; the key never appears in a description.
public struct SealingKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The key's name, 1 to 32 of `A–Z a–z 0–9 _ -` (such as `2026-11`).
    public let id: String
    let key: SymmetricKey

    /// A key from its 32 bytes.
    /// - Throws: ``SealedStateError`` `invalidKey` for a bad id or a key that is not 32 bytes.
    public init(id: String, bytes: some ContiguousBytes) throws(SealedStateError) {
        try Self.checkID(id)
        let key = SymmetricKey(data: bytes)
        guard key.bitCount == 256 else {
            throw .invalidKey("the key '\(id)' has \(key.bitCount / 8) bytes; 32 are required", keyID: id)
        }
        self.id = id
        self.key = key
    }

    /// A key from its 32 bytes in base64 (standard or base64url, padded or not).
    /// - Throws: ``SealedStateError`` `invalidKey` for a bad id, text that is not base64 or a key that is not 32 bytes.
    public init(id: String, base64Encoded text: String) throws(SealedStateError) {
        try Self.checkID(id)
        guard let bytes = Data(lenientBase64URLEncoded: text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw .invalidKey("the key '\(id)' is not base64", keyID: id)
        }
        try self.init(id: id, bytes: bytes)
    }

    /// A new random key, for tests and for a server that runs alone and may
    /// forget its sealed state when it restarts.
    /// - Throws: ``SealedStateError`` `invalidKey` for a bad id.
    public static func random(id: String) throws(SealedStateError) -> SealingKey {
        try SealingKey(id: id, bytes: SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) })
    }

    static func checkID(_ id: String) throws(SealedStateError) {
        let allowed = id.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: "-")
        }
        guard (1...32).contains(id.utf8.count), allowed else {
            throw .invalidKey("a key id is 1 to 32 of A-Z a-z 0-9 _ -, not '\(id.prefix(40))'", keyID: nil)
        }
    }

    /// The id; never the key.
    public var description: String { "SealingKey(id: \(id), key: <redacted>)" }
    /// The same as ``description``.
    public var debugDescription: String { description }
    /// What `dump` and debuggers show: the id only.
    public var customMirror: Mirror { Mirror(self, children: ["id": id, "key": "<redacted>"], displayStyle: .struct) }
}

/// The keys a server seals and opens state with: it seals with the newest,
/// and opens with any, so that keys rotate without signing anyone out —
/// add a new key in front, deploy, and drop the oldest once what it sealed
/// has expired.
public struct SealingKeyRing: Sendable, CustomStringConvertible {
    /// The keys, newest first.
    public let keys: [SealingKey]

    /// A ring of `keys`, newest first.
    /// - Throws: ``SealedStateError`` `invalidKeyRing` when it is empty or names a key id twice.
    public init(_ keys: [SealingKey]) throws(SealedStateError) {
        guard !keys.isEmpty else { throw .invalidKeyRing("a key ring needs at least one key") }
        var seen = Set<String>()
        for key in keys where !seen.insert(key.id).inserted {
            throw .invalidKeyRing("the key id '\(key.id)' appears twice")
        }
        self.keys = keys
    }

    /// A ring from configuration text: `ID:BASE64` entries, newest first,
    /// separated by commas or white space, such as
    /// `2026-11:q1Zk…=,2026-08:Xc3v…=`.
    /// - Throws: ``SealedStateError`` `invalidKeyRing` or `invalidKey`,
    ///   naming the entry by its position and id (never its key).
    public init(configuration text: String) throws(SealedStateError) {
        let entries = text.split(whereSeparator: { $0 == "," || $0.isWhitespace })
        var keys: [SealingKey] = []
        for (index, entry) in entries.enumerated() {
            guard let colon = entry.firstIndex(of: ":") else {
                throw .invalidKeyRing("entry \(index + 1) is not ID:BASE64")
            }
            keys.append(
                try SealingKey(id: String(entry[..<colon]), base64Encoded: String(entry[entry.index(after: colon)...])))
        }
        try self.init(keys)
    }

    /// A ring from the environment variable `name` (see ``init(configuration:)``).
    /// - Returns: nil when the variable is not set or empty.
    /// - Throws: ``SealedStateError`` when it is set but cannot be read.
    public init?(environmentVariable name: String, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(SealedStateError)
    {
        guard let text = environment[name], !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            return nil
        }
        try self.init(configuration: text)
    }

    /// The key that seals.
    public var newest: SealingKey { keys[0] }

    /// The key named `id`, if the ring holds it.
    public func key(id: String) -> SealingKey? { keys.first { $0.id == id } }

    /// The ids, newest first; never a key.
    public var description: String { "SealingKeyRing(\(keys.map(\.id).joined(separator: ", ")))" }
}
