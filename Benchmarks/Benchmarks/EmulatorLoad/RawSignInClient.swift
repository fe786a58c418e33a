// A lean load client in the manner of wrk: each connection is one client
// that runs its sign-ins back to back over HTTP/1.1 keep-alive, writing
// request bytes directly and reading responses by Content-Length, all on one
// event-loop thread. It leaves the machine's cores to the emulator, so the
// figures describe the server rather than the client library.
import Foundation
import IdentityOTP
import IdentityToolkit
import NIOCore
import NIOFoundationCompat
import NIOPosix

/// A sign-in the load runs: which user, and at which TOTP step.
struct SignInJob: Sendable {
    var email: String
    var enrollmentID: String
    var totp: TOTP
    var step: UInt64
    /// The whole HTTP request of the password step.
    var passwordRequest: ByteBuffer
    /// The TOTP step's request, but for the pending credential and the code.
    var totpStep: TOTPStepTemplate
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
    private let done: EventLoopPromise<[UInt64]>
    private var next = 0
    private var phase = Phase.password
    private var began: UInt64 = 0
    private var latencies: [UInt64] = []
    private var received: ByteBuffer?
    private var finished = false

    private let decoder = JSONDecoder()

    init(jobs: [SignInJob], done: EventLoopPromise<[UInt64]>) {
        self.jobs = jobs
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
            guard status == 200 else {
                throw RawClientError.unexpectedStatus(status, phase: "signInWithPassword", body: String(buffer: body))
            }
            guard let credential = try decoder.decode(SignInWithPasswordResponse.self, from: body).mfaPendingCredential
            else {
                throw RawClientError.malformedResponse("no mfaPendingCredential in the password step's response")
            }
            sendTOTPStep(credential: credential, job: job, context: context)
            phase = .totp
        case .totp:
            guard status == 200 else {
                throw RawClientError.unexpectedStatus(status, phase: "mfaSignIn:finalize", body: String(buffer: body))
            }
            guard try decoder.decode(FinalizeMfaSignInResponse.self, from: body).idToken != nil else {
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
        context.writeAndFlush(wrapOutboundOut(jobs[next].passwordRequest), promise: nil)
    }

    private func sendTOTPStep(credential: String, job: SignInJob, context: ChannelHandlerContext) {
        var buffer = context.channel.allocator.buffer(capacity: 512)
        job.totpStep.write(credential: credential, code: job.totp.code(step: job.step), into: &buffer)
        context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
    }

    /// Removes one complete response from the front of `buffer`, or returns
    /// nil when more bytes are needed. Needs `Content-Length` (the emulator
    /// always sends it). Works on bytes, without building strings.
    static func takeResponse(from buffer: inout ByteBuffer) throws -> (status: Int, body: ByteBuffer)? {
        let parsed: (status: Int, headerLength: Int, bodyLength: Int)? = try buffer.withUnsafeReadableBytes { bytes in
            guard let headerEnd = Self.find([13, 10, 13, 10], in: bytes, from: 0) else { return nil }
            let headerLength = headerEnd + 4
            // "HTTP/1.1 200 …"
            guard bytes.count > 12, bytes.starts(with: Self.statusPrefix) else {
                throw RawClientError.malformedResponse("no HTTP/1.1 status line")
            }
            let status = bytes[9...11].reduce(0) { $0 * 10 + Int($1) - 48 }
            guard let nameStart = Self.findCaseInsensitive(Self.contentLengthName, in: bytes, before: headerEnd) else {
                throw RawClientError.malformedResponse("no Content-Length")
            }
            var index = nameStart + Self.contentLengthName.count
            while index < headerEnd, bytes[index] == 32 { index += 1 }
            var length = 0
            var digits = 0
            while index < headerEnd, (48...57).contains(bytes[index]) {
                length = length * 10 + Int(bytes[index]) - 48
                index += 1
                digits += 1
            }
            guard digits > 0 else { throw RawClientError.malformedResponse("Content-Length is not a number") }
            return (status, headerLength, length)
        }
        guard let parsed, buffer.readableBytes >= parsed.headerLength + parsed.bodyLength else { return nil }
        buffer.moveReaderIndex(forwardBy: parsed.headerLength)
        return (parsed.status, buffer.readSlice(length: parsed.bodyLength)!)
    }

    private static let statusPrefix = Array("HTTP/1.1 ".utf8)
    private static let contentLengthName = Array("\r\ncontent-length:".utf8)

    private static func find(_ needle: [UInt8], in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        var index = start
        while index <= bytes.count - needle.count {
            if bytes[index] == needle[0] && zip(needle.indices, needle).allSatisfy({ bytes[index + $0] == $1 }) {
                return index
            }
            index += 1
        }
        return nil
    }

    /// `needle` is lower case; header bytes are compared with ASCII case folded.
    private static func findCaseInsensitive(_ needle: [UInt8], in bytes: UnsafeRawBufferPointer, before end: Int)
        -> Int?
    {
        guard end >= needle.count else { return nil }
        for index in 0...(end - needle.count)
        where needle.indices.allSatisfy({ (bytes[index + $0] | 0x20) == (needle[$0] | 0x20) }) {
            return index
        }
        return nil
    }
}

/// Runs every client's jobs on its own connection, all on one event-loop
/// thread; returns the latencies in nanoseconds.
func runRawClients(host: String, port: Int, jobsPerClient: [[SignInJob]]) async throws -> [UInt64] {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    var results: [EventLoopFuture<[UInt64]>] = []
    for jobs in jobsPerClient {
        let done = group.next().makePromise(of: [UInt64].self)
        results.append(done.futureResult)
        let bootstrap = ClientBootstrap(group: group)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        SignInConnection(jobs: jobs, done: done))
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
