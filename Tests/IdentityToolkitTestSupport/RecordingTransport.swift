#if AsyncHTTPClient
import Foundation
import HTTPTypes
import IdentityToolkit

/// An in-memory transport that records requests and answers with a fixed response.
public actor RecordingTransport: HTTPTransport {
    public private(set) var requests: [HTTPRequest] = []
    public private(set) var bodies: [Data?] = []
    public var status: Int
    public var body: String

    public init(status: Int = 200, body: String = "{}") {
        self.status = status
        self.body = body
    }

    /// Changes the canned response.
    public func respond(status: Int, body: String) {
        self.status = status
        self.body = body
    }

    public func send(_ request: HTTPRequest, body: Data?, options: TransportOptions) async throws -> (
        HTTPResponse, Data
    ) {
        requests.append(request)
        bodies.append(body)
        return (HTTPResponse(status: .init(code: status)), Data(self.body.utf8))
    }
}
#endif
