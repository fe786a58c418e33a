#if AsyncHTTPClient
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback port that refuses connections for as long as this value
/// lives: bound but never listening, so no other server (another test's,
/// started in parallel) can be given it. The deterministic form of "a
/// stopped server", whose freed port the system may hand out again at once.
public final class RefusingPort: @unchecked Sendable {
    /// The port number.
    public let port: Int
    /// `127.0.0.1:PORT`.
    public var hostAndPort: String { "127.0.0.1:\(port)" }
    private let descriptor: Int32

    public init() throws {
        struct SocketFailure: Error { var step: String }
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw SocketFailure(step: "socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            close(fd)
            throw SocketFailure(step: "bind")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            close(fd)
            throw SocketFailure(step: "getsockname")
        }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }
}
#endif
