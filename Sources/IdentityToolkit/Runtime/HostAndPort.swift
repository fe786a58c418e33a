import Foundation

/// `HOST:PORT`, the form `FIREBASE_AUTH_EMULATOR_HOST` and `--emulator`
/// take: the one parser of it in the package.
package struct HostAndPort: Sendable, Hashable, CustomStringConvertible {
    /// The host: a name, an IPv4 address, or an IPv6 address in brackets.
    package let host: String
    /// 1 to 65535.
    package let port: Int

    /// Parses `text`; nil unless it is a non-empty host without URL
    /// delimiters, a colon, and a port from 1 to 65535.
    package init?(_ text: some StringProtocol) {
        let text = String(text)
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (1...65535).contains(port)
        else {
            return nil
        }
        let host = String(text[..<colon])
        let delimiters = CharacterSet(charactersIn: "/@?#").union(.whitespacesAndNewlines).union(.controlCharacters)
        guard !host.isEmpty, host.rangeOfCharacter(from: delimiters) == nil else { return nil }
        // A colon inside the host is only allowed in a bracketed IPv6 address.
        if host.contains(":") && !(host.hasPrefix("[") && host.hasSuffix("]")) { return nil }
        self.host = host
        self.port = port
    }

    /// `host:port`
    package var description: String { "\(host):\(port)" }
}
