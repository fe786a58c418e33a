import Foundation
import HTTPTypes
import IdentityToolkit
import IdentityToolkitAsyncHTTPClient
import IdentityToolkitTestSupport
import Testing

/// Both transports against a real HTTP server on loopback.
@Suite(.serialized) struct TransportTests {
    enum Kind: String, CaseIterable, Sendable {
        case urlSession, asyncHTTPClient, asyncHTTPClientFailingFast

        var transport: any HTTPTransport {
            switch self {
            case .urlSession: return URLSessionTransport.shared
            case .asyncHTTPClient: return AsyncHTTPClientTransport()
            case .asyncHTTPClientFailingFast: return AsyncHTTPClientTransport.failingFast
            }
        }
    }

    static let options = TransportOptions(timeout: .seconds(30), maxResponseBytes: 1 << 20)

    func request(_ method: HTTPRequest.Method, _ url: String, headers: HTTPFields = [:]) -> HTTPRequest {
        var request = HTTPRequest(method: method, scheme: nil, authority: nil, path: nil, headerFields: headers)
        request.url = URL(string: url)
        return request
    }

    @Test(arguments: Kind.allCases)
    func roundTrip(_ kind: Kind) async throws {
        let server = try await LoopbackHTTPServer()
        defer { Task { try? await server.shutdown() } }
        let (response, body) = try await kind.transport.send(
            request(
                .post, "\(server.baseURL)/echo?key=k",
                headers: [.authorization: "Bearer t", .contentType: "application/json"]),
            body: Data(#"{"a":1}"#.utf8), options: Self.options
        )
        #expect(response.status == .ok)
        #expect(String(decoding: body, as: UTF8.self) == #"{"a":1}"#)
        #expect(response.headerFields[HTTPField.Name("x-seen-method")!] == "POST")
        #expect(response.headerFields[HTTPField.Name("x-seen-uri")!] == "/echo?key=k")
        #expect(response.headerFields[HTTPField.Name("x-seen-authorization")!] == "Bearer t")
    }

    @Test(arguments: Kind.allCases)
    func timeout(_ kind: Kind) async throws {
        let server = try await LoopbackHTTPServer()
        defer { Task { try? await server.shutdown() } }
        let started = ContinuousClock.now
        await #expect(throws: TransportError.timedOut) {
            _ = try await kind.transport.send(
                request(.get, "\(server.baseURL)/slow?ms=10000"), body: nil,
                options: TransportOptions(timeout: .milliseconds(300), maxResponseBytes: 1 << 20)
            )
        }
        // At the 0.3 s deadline, not the answer's 10 s (margin for a busy suite).
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test(arguments: Kind.allCases)
    func responseSizeBound(_ kind: Kind) async throws {
        let server = try await LoopbackHTTPServer()
        defer { Task { try? await server.shutdown() } }
        let (_, small) = try await kind.transport.send(
            request(.get, "\(server.baseURL)/big?bytes=1000"), body: nil, options: Self.options)
        #expect(small.count == 1000)
        await #expect(throws: TransportError.responseTooLarge(limit: 1 << 20)) {
            _ = try await kind.transport.send(
                request(.get, "\(server.baseURL)/big?bytes=\(2 << 20)"), body: nil, options: Self.options)
        }
    }

    /// A declared `Content-Length` above the bound is refused on the header
    /// alone: the server sends 16 bytes of its declared gigabyte and stalls,
    /// and the call fails at once with `responseTooLarge`, not at the deadline.
    @Test(arguments: Kind.allCases)
    func aDeclaredLengthAboveTheBoundIsRefusedBeforeTheBody(_ kind: Kind) async throws {
        let server = try await LoopbackHTTPServer()
        defer { Task { try? await server.shutdown() } }
        let started = ContinuousClock.now
        await #expect(throws: TransportError.responseTooLarge(limit: 1 << 20)) {
            _ = try await kind.transport.send(
                request(.get, "\(server.baseURL)/declared?bytes=\(1 << 30)"), body: nil, options: Self.options)
        }
        // On the header, not at the 5 s deadline.
        #expect(ContinuousClock.now - started < .seconds(4))
    }

    /// A body without a length that never ends is cut off at the bound,
    /// well before the deadline (the stream would outlast it).
    @Test(arguments: Kind.allCases)
    func anEndlessBodyIsCutOffAtTheBound(_ kind: Kind) async throws {
        let server = try await LoopbackHTTPServer()
        defer { Task { try? await server.shutdown() } }
        let started = ContinuousClock.now
        await #expect(throws: TransportError.responseTooLarge(limit: 1 << 20)) {
            _ = try await kind.transport.send(
                request(.get, "\(server.baseURL)/endless"), body: nil, options: Self.options)
        }
        // At the bound, not at the 5 s deadline.
        #expect(ContinuousClock.now - started < .seconds(4))
    }

    @Test(arguments: Kind.allCases)
    func cancellation(_ kind: Kind) async throws {
        let server = try await LoopbackHTTPServer()
        defer { Task { try? await server.shutdown() } }
        let transport = kind.transport
        let url = "\(server.baseURL)/slow?ms=10000"
        let task = Task {
            try await transport.send(self.request(.get, url), body: nil, options: Self.options)
        }
        try await Task.sleep(for: .milliseconds(150))
        let started = ContinuousClock.now
        task.cancel()
        let result = await task.result
        // At the cancellation, not at the 5 s deadline.
        #expect(ContinuousClock.now - started < .seconds(4))
        guard case .failure(let error) = result else {
            Issue.record("expected cancellation")
            return
        }
        #expect(error is CancellationError, "\(error)")
    }

    /// A client for a loopback port that was just closed, so connections are refused.
    func clientOfAClosedPort(_ kind: Kind, requestTimeout: Duration) async throws -> AccountsClient {
        let server = try await LoopbackHTTPServer()
        let url = server.baseURL
        try await server.shutdown()
        return AccountsClient(
            apiKey: "k",
            configuration: ClientConfiguration(
                transport: kind.transport, emulatorHost: String(url.dropFirst("http://".count)),
                requestTimeout: requestTimeout))
    }

    @Test(arguments: Kind.allCases)
    func connectionRefused(_ kind: Kind) async throws {
        let client = try await clientOfAClosedPort(kind, requestTimeout: .seconds(5))
        do {
            _ = try await client.signUp(SignUpRequest())
            Issue.record("expected a transport failure")
        } catch IdentityToolkitError.Code.transport {
        }
    }

    /// A refused connection fails at once rather than at the request's
    /// deadline (ten minutes here; the time limit would stop a wait for it).
    @Test(.timeLimit(.minutes(1)), arguments: [Kind.urlSession, .asyncHTTPClientFailingFast])
    func refusedConnectionFailsBeforeTheDeadline(_ kind: Kind) async throws {
        let client = try await clientOfAClosedPort(kind, requestTimeout: .seconds(600))
        await #expect(throws: IdentityToolkitError.self) { _ = try await client.signUp(SignUpRequest()) }
    }

    @Test(arguments: Kind.allCases)
    func generatedClientOverRealSockets(_ kind: Kind) async throws {
        let server = try await LoopbackHTTPServer()
        defer { Task { try? await server.shutdown() } }
        let client = AccountsClient(
            apiKey: "k",
            configuration: ClientConfiguration(
                transport: kind.transport, emulatorHost: String(server.baseURL.dropFirst("http://".count))))
        // The loopback server answers unknown routes with an Identity Toolkit style 404.
        do {
            _ = try await client.lookup(GetAccountInfoRequest(idToken: "t"))
            Issue.record("expected a server error")
        } catch let failure as IdentityToolkitError where failure.code == .server {
            let error = try #require(failure.serverError)
            #expect(error.status == 404)
            #expect(error.shortCode == "NOT_FOUND")
            #expect(error.reasons == ["notFound"])
        }
    }
}
