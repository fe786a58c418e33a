#if AsyncHTTPClient
import Foundation
import IdentityToolkit
import NIOCore
import NIOHTTP1
import NIOPosix
import IdentitySupport

/// A real HTTP/1.1 server on 127.0.0.1 and an ephemeral port, for testing
/// transports against actual sockets. Routes:
/// - `POST /echo`: answers 200 with the request body and `x-seen-*` copies of
///   the request's method, path and `authorization` header;
/// - `GET /slow?ms=N`: answers after N milliseconds;
/// - `GET /big?bytes=N`: answers with N bytes;
/// - `GET /declared?bytes=N`: declares `Content-Length: N`, sends 16 bytes
///   and then nothing (a client must refuse on the header alone);
/// - `GET /endless`: a chunked body without `Content-Length` that never
///   ends (a client must stop reading at its bound);
/// - anything else: 404 with a JSON error body.
public final class LoopbackHTTPServer: Sendable {
    /// One request as the server received it.
    public struct RecordedRequest: Sendable, Hashable {
        public var method: String
        public var uri: String
        /// The `Authorization` header, if any.
        public var authorization: String?
    }

    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    private let recorded: Locked<[RecordedRequest]>
    /// The port the server listens on.
    public let port: Int

    public init() async throws {
        let recorded = Locked<[RecordedRequest]>([])
        self.recorded = recorded
        (group, channel) = try await Self.bindHTTPServer { RouteHandler(recorded: recorded) }
        self.port = channel.localAddress?.port ?? 0
    }

    /// Every request received so far, in order.
    public var requests: [RecordedRequest] { recorded.current }

    /// An HTTP/1.1 server on 127.0.0.1 and an ephemeral port, one event-loop
    /// thread, each connection handled by a new `handler()`: the bootstrap
    /// both test servers share.
    static func bindHTTPServer(
        _ handler: @escaping @Sendable () -> any ChannelHandler & Sendable
    ) async throws -> (MultiThreadedEventLoopGroup, any Channel) {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap {
                    channel.pipeline.addHandler(handler())
                }
            }
        return (group, try await bootstrap.bind(host: "127.0.0.1", port: 0).get())
    }

    /// `http://127.0.0.1:PORT`
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    public func shutdown() async throws {
        try await channel.close()
        try await group.shutdownGracefully()
    }
}

private final class RouteHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private var head: HTTPRequestHead?
    private var body = ByteBuffer()
    private let recorded: Locked<[LoopbackHTTPServer.RecordedRequest]>

    init(recorded: Locked<[LoopbackHTTPServer.RecordedRequest]>) {
        self.recorded = recorded
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body.clear()
        case .body(var chunk):
            body.writeBuffer(&chunk)
        case .end:
            guard let head else { return }
            respond(to: head, context: context)
        }
    }

    /// 64 KiB chunks every millisecond until the client goes away (or 1 GiB).
    private func streamForever(context: ChannelHandlerContext, sent: Int) {
        guard context.channel.isActive, sent < 1 << 30 else { return }
        let chunkSize = 64 * 1024
        var chunk = ByteBuffer()
        chunk.writeRepeatingByte(UInt8(ascii: "b"), count: chunkSize)
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(chunk))), promise: nil)
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: .milliseconds(1)) {
            let (handler, context) = loopBound.value
            handler.streamForever(context: context, sent: sent + chunkSize)
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        recorded.withLock {
            $0.append(
                .init(
                    method: head.method.rawValue, uri: head.uri, authorization: head.headers["authorization"].first)
            )
        }
        let components = URLComponents(string: head.uri)
        let path = components?.path ?? head.uri
        let number = { (name: String) in Int(components?.queryItems?.first { $0.name == name }?.value ?? "") ?? 0 }
        var headers = HTTPHeaders()
        var payload = ByteBuffer()
        var status = HTTPResponseStatus.ok
        var delay = TimeAmount.zero
        switch path {
        case "/echo":
            payload = body
            headers.add(name: "x-seen-method", value: head.method.rawValue)
            headers.add(name: "x-seen-uri", value: head.uri)
            headers.add(name: "x-seen-authorization", value: head.headers["authorization"].first ?? "")
            headers.add(name: "content-type", value: "application/json")
        case "/slow":
            delay = .milliseconds(Int64(number("ms")))
            payload.writeString("{}")
        case "/big":
            payload.writeRepeatingByte(UInt8(ascii: "a"), count: number("bytes"))
        case "/declared":
            headers.add(name: "content-length", value: String(number("bytes")))
            context.write(
                wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .ok, headers: headers))),
                promise: nil)
            var start = ByteBuffer()
            start.writeRepeatingByte(UInt8(ascii: "a"), count: 16)
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(start))), promise: nil)
            return
        case "/endless":
            headers.add(name: "transfer-encoding", value: "chunked")
            context.writeAndFlush(
                wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .ok, headers: headers))),
                promise: nil)
            streamForever(context: context, sent: 0)
            return
        default:
            status = .notFound
            payload.writeString(
                #"{"error":{"code":404,"message":"NOT_FOUND : no route","errors":[{"reason":"notFound"}]}}"#)
        }
        headers.add(name: "content-length", value: String(payload.readableBytes))
        let responseHead = HTTPResponseHead(version: head.version, status: status, headers: headers)
        let responseBody = payload
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: delay) {
            let (handler, context) = loopBound.value
            context.write(handler.wrapOutboundOut(.head(responseHead)), promise: nil)
            context.write(handler.wrapOutboundOut(.body(.byteBuffer(responseBody))), promise: nil)
            context.writeAndFlush(handler.wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}
#endif
