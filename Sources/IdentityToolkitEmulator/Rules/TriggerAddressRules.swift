#if Emulator
import Foundation
import IdentityToolkit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a blocking function's trigger may point. The emulator fetches a
/// trigger from its own host, so a trigger at a link-local address or a
/// cloud metadata service would let anyone who can set a project's config
/// read that host's instance credentials through the emulator. Those are
/// refused when the config is set and again before each call (an import
/// can bring a config too), unless
/// ``EmulatorConfiguration/allowLinkLocalTriggers`` is on.
///
/// Addresses are read with the C library's own parsers (`inet_aton`,
/// `inet_pton`), the ones the resolver uses, so every spelling of an
/// address that a connection would reach (`2852039166`, `0xa9.0xfe.0xa9.0xfe`,
/// `::ffff:169.254.169.254`) is the address it names. A name that resolves
/// to such an address is not looked up here.
enum TriggerAddressRules {
    /// Host names of cloud metadata services.
    static let metadataNames: Set<String> = [
        "metadata.google.internal", "metadata.goog", "metadata", "instance-data", "instance-data.ec2.internal",
    ]

    /// Refuses `url` when its host is link-local or a metadata service.
    static func check(_ url: String, field: String, allowLinkLocal: Bool) throws {
        guard !allowLinkLocal, let host = URL(string: url)?.host, isLinkLocalOrMetadata(host: host) else { return }
        throw APIServerError.invalidBlockingFunction(
            "\(field) points at a link-local or cloud metadata address; start the emulator with --allow-link-local-triggers to allow it"
        )
    }

    /// Whether `host` (a name, an IPv4 address in any form `inet_aton`
    /// reads, or an IPv6 address with or without brackets and zone) is
    /// link-local (169.254.0.0/16, fe80::/10) or a cloud metadata service
    /// (its names, `fd00:ec2::254`, Alibaba's 100.100.100.200).
    static func isLinkLocalOrMetadata(host: String) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if let zone = name.firstIndex(of: "%") { name = String(name[..<zone]) }
        while name.hasSuffix(".") { name.removeLast() }
        if metadataNames.contains(name) { return true }
        if let octets = ipv4(name) { return isLinkLocalOrMetadata(ipv4: octets) }
        if let bytes = ipv6(name) { return isLinkLocalOrMetadata(ipv6: bytes) }
        return false
    }

    private static func isLinkLocalOrMetadata(ipv4 octets: [UInt8]) -> Bool {
        (octets[0] == 169 && octets[1] == 254) || octets == [100, 100, 100, 200]
    }

    private static func isLinkLocalOrMetadata(ipv6 bytes: [UInt8]) -> Bool {
        if bytes[0] == 0xfe && bytes[1] & 0xc0 == 0x80 { return true }
        let awsMetadata: [UInt8] = [0xfd, 0x00, 0x0e, 0xc2] + Array(repeating: 0, count: 10) + [0x02, 0x54]
        if bytes == awsMetadata { return true }
        // IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) forms reach the IPv4 address.
        let mapped = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff
        let nat64 = bytes[0..<12].elementsEqual([0x00, 0x64, 0xff, 0x9b] + Array(repeating: 0, count: 8))
        return (mapped || nat64) && isLinkLocalOrMetadata(ipv4: Array(bytes[12..<16]))
    }

    private static func ipv4(_ text: String) -> [UInt8]? {
        var address = in_addr()
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 < 0x80 }), inet_aton(text, &address) != 0 else { return nil }
        return withUnsafeBytes(of: address.s_addr) { Array($0) }
    }

    private static func ipv6(_ text: String) -> [UInt8]? {
        var address = in6_addr()
        guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
        return withUnsafeBytes(of: address) { Array($0) }
    }
}
#endif
