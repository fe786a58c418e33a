import Foundation
import HTTPTypes
import IdentityToolkit
import IdentityToolkitAsyncHTTPClient
import IdentityToolkitTestSupport
import Testing

/// A transport's timeout is one deadline over the whole exchange. It was
/// URLSession's `timeoutInterval`, an idle timeout that each byte restarts:
/// a blocking function that sent its answer a byte every few seconds held
/// a sign-in for as long as it liked. Each shape of a dribbled answer
/// (from the status line, from the headers, a sized body, a chunked body)
/// now ends at the deadline, on both transports.
@Suite struct TransportDeadlineTests {
    static let deadline: Duration = .seconds(1)

    @Test(arguments: DribblingHTTPServer.Shape.allCases, TransportTests.Kind.allCases)
    func aDribbledAnswerEndsAtTheDeadline(shape: DribblingHTTPServer.Shape, kind: TransportTests.Kind) async throws {
        // A byte every 0.2 s outlasts the deadline 80 times over, and never
        // leaves the connection idle for a whole second.
        let server = try await DribblingHTTPServer(shape, interval: .milliseconds(200))
        var request = HTTPRequest(
            method: .post, scheme: nil, authority: nil, path: nil, headerFields: [.contentType: "application/json"])
        request.url = URL(string: server.baseURL + "/function")
        let started = ContinuousClock.now
        do {
            _ = try await kind.transport.send(
                request, body: Data("{}".utf8),
                options: TransportOptions(timeout: Self.deadline, maxResponseBytes: 1 << 20))
            Issue.record("\(shape) over \(kind): the dribbled answer was read whole")
        } catch let error as TransportError {
            #expect(error.code == .timedOut, "\(shape) over \(kind): \(error)")
        }
        let elapsed = ContinuousClock.now - started
        // Generous for two shared cores; the dribble itself lasts 80 s or more.
        #expect(elapsed < .seconds(15), "\(shape) over \(kind) took \(elapsed)")
        try await server.shutdown()
    }
}
