// A lean load client in the manner of wrk: each connection is one client
// that runs its sign-ins back to back over HTTP/1.1 keep-alive, writing
// request bytes directly and reading responses by Content-Length, all on one
// event-loop thread. It leaves the machine's cores to the emulator, so the
// figures describe the server rather than the client library.
import Foundation
import NIOCore
import NIOPosix
import OTP

/// A sign-in the load runs: which user, and at which TOTP step.
struct SignInJob: Sendable {
    var email: String
    var enrollmentID: String
    var totp: TOTP
    var step: UInt64
}

enum RawClientError: Error, CustomStringConvertible {
    case unexpectedStatus(Int, phase: String, body: String)
    case malformedResponse(String)
    case connectionClosed(completed: Int)

    var description: String {
        switch self {
        case .unexpectedStatus(let status, let phase, let body): "\(phase): HTTP \(status): \(body.prefix(300))"
        case .malformedResponse(let why): "malformed response: \(why)"
        case .connectionClosed(let completed): "the server closed the connection after \(completed) sign-ins"
        }
    }
}

/// Drives one connection through its jobs; completes `done` with the
/// latency of each complete sign-in (both requests), in nanoseconds.
final class SignInConnection: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum Phase { case password, totp }

    private let jobs: [SignInJob]
    private let hostHeader: String
    private let password: String
    private let done: EventLoopPromise<[UInt64]>
    private var next = 0
    private var phase = Phase.password
    private var began: UInt64 = 0
    private var latencies: [UInt64] = []
    private var received: ByteBuffer?
    private var finished = false

    init(jobs: [SignInJob], hostHeader: String, password: String, done: EventLoopPromise<[UInt64]>) {
        self.jobs = jobs
        self.hostHeader = hostHeader
        self.password = password
        self.done = done
        latencies.reserveCapacity(jobs.count)
    }

    func channelActive(context: ChannelHandlerContext) {
        sendPasswordStep(context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(.failure(RawClientError.connectionClosed(completed: latencies.count)))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        finish(.failure(error))
        context.close(promise: nil)
    }

    /// Completes `done` once, whichever of success, error or close comes first.
    private func finish(_ result: Result<[UInt64], any Error>) {
        guard !finished else { return }
        finished = true
        done.completeWith(result)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var chunk = unwrapInboundIn(data)
        if received == nil { received = chunk } else { received!.writeBuffer(&chunk) }
        do {
            guard let (status, body) = try Self.takeResponse(from: &received!) else { return }
            try handle(status: status, body: body, context: context)
        } catch {
            errorCaught(context: context, error: error)
        }
    }

    private func handle(status: Int, body: ByteBuffer, context: ChannelHandlerContext) throws {
        let job = jobs[next]
        switch phase {
        case .password:
            guard status == 200 else { throw RawClientError.unexpectedStatus(status, phase: "signInWithPassword", body: String(buffer: body)) }
            guard let credential = Self.stringValue(of: "mfaPendingCredential", in: body) else {
                throw RawClientError.malformedResponse("no mfaPendingCredential in the password step's response")
            }
            let code = job.totp.code(step: job.step)
            send(path: "/identitytoolkit.googleapis.com/v2/accounts/mfaSignIn:finalize?key=load",
                 body: #"{"mfaPendingCredential":"\#(credential)","mfaEnrollmentId":"\#(job.enrollmentID)","totpVerificationInfo":{"verificationCode":"\#(code)"}}"#,
                 context: context)
            phase = .totp
        case .totp:
            guard status == 200 else { throw RawClientError.unexpectedStatus(status, phase: "mfaSignIn:finalize", body: String(buffer: body)) }
            guard Self.stringValue(of: "idToken", in: body) != nil else {
                throw RawClientError.malformedResponse("no idToken in the TOTP step's response")
            }
            latencies.append(DispatchTime.now().uptimeNanoseconds - began)
            next += 1
            phase = .password
            if next == jobs.count {
                finish(.success(latencies))
                context.close(promise: nil)
            } else {
                sendPasswordStep(context: context)
            }
        }
    }

    private func sendPasswordStep(context: ChannelHandlerContext) {
        guard next < jobs.count else {
            finish(.success(latencies))
            context.close(promise: nil)
            return
        }
        began = DispatchTime.now().uptimeNanoseconds
        send(path: "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=load",
             body: #"{"email":"\#(jobs[next].email)","password":"\#(password)","returnSecureToken":true}"#, context: context)
    }

    private func send(path: String, body: String, context: ChannelHandlerContext) {
        let head = "POST \(path) HTTP/1.1\r\nHost: \(hostHeader)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
        var buffer = context.channel.allocator.buffer(capacity: head.utf8.count + body.utf8.count)
        buffer.writeString(head)
        buffer.writeString(body)
        context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
    }

    /// Removes one complete response from the front of `buffer`, or returns
    /// nil when more bytes are needed. Needs `Content-Length` (the emulator
    /// always sends it).
    static func takeResponse(from buffer: inout ByteBuffer) throws -> (status: Int, body: ByteBuffer)? {
        let view = buffer.readableBytesView
        guard let headerEnd = view.firstRange(of: [13, 10, 13, 10]) else { return nil }
        let headerLength = headerEnd.upperBound - view.startIndex
        guard let head = buffer.getString(at: buffer.readerIndex, length: headerLength) else { return nil }
        let lines = head.split(separator: "\r\n")
        guard let statusLine = lines.first, statusLine.hasPrefix("HTTP/1.1 "), let status = Int(statusLine.dropFirst(9).prefix(3)) else {
            throw RawClientError.malformedResponse("status line \(lines.first ?? "")")
        }
        guard let lengthLine = lines.first(where: { $0.lowercased().hasPrefix("content-length:") }),
              let length = Int(lengthLine.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) else {
            throw RawClientError.malformedResponse("no Content-Length")
        }
        guard buffer.readableBytes >= headerLength + length else { return nil }
        buffer.moveReaderIndex(forwardBy: headerLength)
        let body = buffer.readSlice(length: length)!
        return (status, body)
    }

    /// The value of a top-level `"key":"value"` member, when the value holds
    /// no escapes (the emulator's tokens are base64url).
    static func stringValue(of key: String, in body: ByteBuffer) -> Substring? {
        let text = String(buffer: body)
        guard let keyRange = text.range(of: "\"\(key)\":\"") else { return nil }
        let rest = text[keyRange.upperBound...]
        guard let end = rest.firstIndex(of: "\""), !rest[..<end].contains("\\") else { return nil }
        return rest[..<end]
    }
}

/// Runs every client's jobs on its own connection, all on one event-loop
/// thread; returns the latencies in nanoseconds.
func runRawClients(host: String, port: Int, password: String, jobsPerClient: [[SignInJob]]) async throws -> [UInt64] {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let hostHeader = "\(host):\(port)"
    var results: [EventLoopFuture<[UInt64]>] = []
    for jobs in jobsPerClient {
        let done = group.next().makePromise(of: [UInt64].self)
        results.append(done.futureResult)
        let bootstrap = ClientBootstrap(group: group)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        SignInConnection(jobs: jobs, hostHeader: hostHeader, password: password, done: done))
                }
            }
        bootstrap.connect(host: host, port: port).whenFailure { done.fail($0) }
    }
    var all: [UInt64] = []
    do {
        for result in results { all += try await result.get() }
    } catch {
        try? await group.shutdownGracefully()
        throw error
    }
    try await group.shutdownGracefully()
    return all
}
