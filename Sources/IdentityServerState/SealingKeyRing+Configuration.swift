#if Configuration
public import Configuration

extension SealingKeyRing {
    /// A ring from swift-configuration, so that an app configures it as it
    /// configures the rest (`config.scoped(to: "sealing")`, say; an
    /// environment provider then reads `SEALING_KEYS`).
    ///
    /// ## Configuration keys
    /// - `keys` (string, secret, optional): `ID:BASE64` entries, newest
    ///   first (``init(configuration:)``). Read as a secret: providers and
    ///   access logs never print it.
    ///
    /// - Parameter config: The reader, scoped to the ring's keys.
    /// - Returns: nil when `keys` is absent or empty.
    /// - Throws: ``SealedStateError`` when it is set but cannot be read.
    public init?(config: ConfigReader) throws(SealedStateError) {
        guard let text = config.string(forKey: "keys", isSecret: true),
            !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        else {
            return nil
        }
        try self.init(configuration: text)
    }
}
#endif
