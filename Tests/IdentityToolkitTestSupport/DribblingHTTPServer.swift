#if AsyncHTTPClient
#if canImport(NIOPosix)
import Foundation
import IdentitySupport
import NIOCore
import NIOPosix

/// A loopback server that answers every request with a valid HTTP/1.1
/// response sent one byte at a time, starting at one point of the response
/// (its ``Shape``): for testing that a client's timeout is one deadline over
/// the whole exchange, not an idle timeout that each byte restarts.
public final class DribblingHTTPServer: Sendable {
    /// Where the response starts to dribble.
    public enum Shape: String, Sendable, CaseIterable, CustomStringConvertible {
        /// From its first byte: the status line.
        case statusLine
        /// The status line at once, then the headers.
        case headers
        /// Status line and headers at once, then a `Content-Length` body.
        case contentLengthBody
        /// Status line and headers at once, then a chunked body.
        case chunkedBody

        public var description: String { rawValue }

        /// The response: what is sent at once, then what dribbles (long
        /// enough to outlast any test's deadline at a byte per interval).
        var script: (atOnce: [UInt8], dribbled: [UInt8]) {
            let body = "{\"pad\":\"" + String(repeating: "a", count: 400) + "\"}"
            let padding = "x-padding: " + String(repeating: "p", count: 400) + "\r\n"
            switch self {
            case .statusLine:
                return (
                    [],
                    Array(
                        "HTTP/1.1 200 OK\r\n\(padding)content-type: application/json\r\ncontent-length: \(body.utf8.count)\r\n\r\n\(body)"
                            .utf8)
                )
            case .headers:
                return (
                    Array("HTTP/1.1 200 OK\r\n".utf8),
                    Array(
                        "\(padding)content-type: application/json\r\ncontent-length: \(body.utf8.count)\r\n\r\n\(body)"
                            .utf8)
                )
            case .contentLengthBody:
                return (
                    Array(
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: \(body.utf8.count)\r\n\r\n"
                            .utf8), Array(body.utf8)
                )
            case .chunkedBody:
                let chunks = body.map { "1\r\n\($0)\r\n" }.joined() + "0\r\n\r\n"
                return (
                    Array(
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n"
                            .utf8), Array(chunks.utf8)
                )
            }
        }
    }

    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    /// The port the server listens on.
    public let port: Int

    /// A server dribbling `shape` at one byte per `interval`.
    public init(_ shape: Shape, interval: TimeAmount) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let script = shape.script
        do {
            channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            DribbleHandler(atOnce: script.atOnce, dribbled: script.dribbled, interval: interval)
                        )
                    }
                }
                .bind(host: "127.0.0.1", port: 0).get()
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        self.group = group
        port = channel.localAddress?.port ?? 0
    }

    /// `http://127.0.0.1:PORT`
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    public func shutdown() async throws {
        try await channel.close()
        try await group.shutdownGracefully()
    }
}

/// Waits for the end of the request's headers, then writes the script.
private final class DribbleHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let atOnce: [UInt8]
    let dribbled: [UInt8]
    let interval: TimeAmount
    private var seen: [UInt8] = []
    private var started = false
    private var next = 0
    private var task: RepeatedTask?

    init(atOnce: [UInt8], dribbled: [UInt8], interval: TimeAmount) {
        self.atOnce = atOnce
        self.dribbled = dribbled
        self.interval = interval
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !started else { return }
        seen += Array(buffer: unwrapInboundIn(data))
        guard seen.count >= 4,
            seen.indices.dropLast(3).contains(where: { seen[$0..<$0 + 4].elementsEqual([13, 10, 13, 10]) })
        else { return }
        started = true
        if !atOnce.isEmpty { context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: atOnce)), promise: nil) }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        task = context.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { task in
            let (handler, context) = loopBound.value
            guard context.channel.isActive, handler.next < handler.dribbled.count else {
                task.cancel()
                return
            }
            context.writeAndFlush(
                handler.wrapOutboundOut(ByteBuffer(bytes: [handler.dribbled[handler.next]])), promise: nil)
            handler.next += 1
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        task?.cancel()
        context.fireChannelInactive()
    }
}
#endif
#endif
