import Foundation
import HTTPTypes
import IdentityToolkit

/// An in-memory transport that records requests and answers with a fixed response.
actor RecordingTransport: HTTPTransport {
    private(set) var requests: [HTTPRequest] = []
    private(set) var bodies: [Data?] = []
    let status: Int
    let body: String

    init(status: Int, body: String) {
        self.status = status
        self.body = body
    }

    func send(_ request: HTTPRequest, body: Data?, options: TransportOptions) async throws -> (HTTPResponse, Data) {
        requests.append(request)
        bodies.append(body)
        return (HTTPResponse(status: .init(code: status)), Data(self.body.utf8))
    }
}
