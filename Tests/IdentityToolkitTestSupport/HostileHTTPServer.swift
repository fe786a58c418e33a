#if AsyncHTTPClient
import Foundation
import IdentityToolkit
import NIOCore
import NIOHTTP1
import NIOPosix
import IdentitySupport

/// A loopback HTTP/1.1 server that answers every request the same hostile
/// or broken way, for testing clients against servers they do not control.
/// It counts the requests it received.
public final class HostileHTTPServer: Sendable {
    /// How the server answers.
    public enum Behaviour: Sendable {
        /// A complete response.
        case respond(status: Int, headers: [(String, String)], body: [UInt8])
        /// Headers announcing a body that never comes.
        case stallAfterHeaders
        /// Headers, then one body byte every `interval`, forever.
        case trickle(interval: TimeAmount)
        /// Never answers at all.
        case silent

        /// A JSON response.
        public static func json(_ status: Int, _ text: String, headers: [(String, String)] = []) -> Behaviour {
            .respond(
                status: status, headers: [("content-type", "application/json")] + headers, body: Array(text.utf8))
        }
    }

    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    private let received: Locked<[String]>
    /// The port the server listens on.
    public let port: Int

    public init(_ behaviour: Behaviour) async throws {
        let received = Locked<[String]>([])
        (group, channel) = try await LoopbackHTTPServer.bindHTTPServer {
            HostileHandler(behaviour: behaviour, received: received)
        }
        self.received = received
        self.port = channel.localAddress?.port ?? 0
    }

    /// `127.0.0.1:PORT`
    public var hostAndPort: String { "127.0.0.1:\(port)" }

    /// `METHOD URI` of every request received, in order.
    public var requests: [String] { received.current }

    public func shutdown() async throws {
        try await channel.close()
        try await group.shutdownGracefully()
    }
}

private final class HostileHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let behaviour: HostileHTTPServer.Behaviour
    let received: Locked<[String]>
    private var head: HTTPRequestHead?

    init(behaviour: HostileHTTPServer.Behaviour, received: Locked<[String]>) {
        self.behaviour = behaviour
        self.received = received
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            received.withLock { $0.append("\(head.method.rawValue) \(head.uri)") }
        case .body:
            break
        case .end:
            guard let head else { return }
            respond(to: head, context: context)
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        switch behaviour {
        case .respond(let status, let headerList, let body):
            var headers = HTTPHeaders(headerList)
            headers.replaceOrAdd(name: "content-length", value: String(body.count))
            context.write(
                wrapOutboundOut(
                    .head(
                        HTTPResponseHead(
                            version: head.version, status: HTTPResponseStatus(statusCode: status), headers: headers)
                    )), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        case .stallAfterHeaders:
            let headers = HTTPHeaders([("content-type", "application/json"), ("content-length", "1000")])
            context.writeAndFlush(
                wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .ok, headers: headers))),
                promise: nil)
        case .trickle(let interval):
            let headers = HTTPHeaders([("content-type", "application/json"), ("content-length", "100000000")])
            context.writeAndFlush(
                wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .ok, headers: headers))),
                promise: nil)
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            context.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { task in
                let (handler, context) = loopBound.value
                guard context.channel.isActive else {
                    task.cancel()
                    return
                }
                context.writeAndFlush(
                    handler.wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: " ")))), promise: nil)
            }
        case .silent:
            break
        }
    }
}
#endif
