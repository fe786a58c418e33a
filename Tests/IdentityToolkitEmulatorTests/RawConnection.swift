import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A raw TCP connection to the emulator.
final class RawConnection: Sendable {
    let descriptor: Int32

    init(port: Int) throws {
        #if canImport(Glibc)
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
    }

    func send(_ text: String) {
        _ = text.withCString { write(descriptor, $0, strlen($0)) }
    }

    /// Reads until the peer closes, `stop` holds for what arrived, or
    /// `timeout` passes (then nil). Polls without blocking, sleeping
    /// between polls, so that it never holds a thread of the
    /// cooperative pool that the emulator in this process needs.
    func read(timeout: Duration, stop: @Sendable (String) -> Bool = { _ in false }) async -> String? {
        var received = [UInt8]()
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            var descriptorSet = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptorSet, 1, 0) > 0 else {
                try? await Task.sleep(for: .milliseconds(20))
                continue
            }
            let count = readBytes(descriptor, &buffer)
            if count <= 0 { return String(decoding: received, as: UTF8.self) }
            received += buffer[0..<count]
            if stop(String(decoding: received, as: UTF8.self)) { return String(decoding: received, as: UTF8.self) }
        }
        return nil
    }

    deinit { close(descriptor) }
}

/// `read(2)`, under a name the connection's own `read` does not hide.
private func readBytes(_ descriptor: Int32, _ buffer: inout [UInt8]) -> Int {
    read(descriptor, &buffer, buffer.count)
}
