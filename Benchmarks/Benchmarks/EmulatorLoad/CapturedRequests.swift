// The raw load client replays requests that the generated `AccountsClient`
// builds, captured instead of sent, so that no path, query or JSON key of the
// spec is written a second time here.
import Foundation
import HTTPTypes
import IdentityToolkit
import NIOConcurrencyHelpers
import NIOCore

/// A transport that keeps the one request it is given and sends nothing.
final class CapturingTransport: HTTPTransport {
    struct Captured: Sendable {
        var request: HTTPRequest
        var body: Data
    }

    struct NotSent: Error {}

    private let captured = NIOLockedValueBox<Captured?>(nil)

    func send(_ request: HTTPRequest, body: Data?, options: TransportOptions) async throws -> (HTTPResponse, Data) {
        captured.withLockedValue { $0 = Captured(request: request, body: body ?? Data()) }
        throw NotSent()
    }

    /// What `call` sends through a client over this transport.
    static func capture(emulatorHost: String, _ call: (AccountsClient) async throws -> Void) async throws -> Captured {
        let transport = CapturingTransport()
        _ = try? await call(
            AccountsClient(
                apiKey: "load", configuration: ClientConfiguration(transport: transport, emulatorHost: emulatorHost)))
        guard let captured = transport.captured.withLockedValue({ $0 }) else {
            throw LoadError.unexpected("the generated client sent no request")
        }
        return captured
    }
}

extension CapturingTransport.Captured {
    /// The HTTP/1.1 request head, up to and including `Content-Length: `;
    /// the caller appends the length, a blank line and the body.
    var headUpToContentLength: String {
        var head = "\(request.method.rawValue) \(request.path ?? "/") HTTP/1.1\r\nHost: \(request.authority ?? "")\r\n"
        for field in request.headerFields where field.name != .contentLength {
            head += "\(field.name.rawName): \(field.value)\r\n"
        }
        return head + "Content-Length: "
    }

    /// The whole request as bytes on the wire.
    var wireBytes: ByteBuffer {
        var buffer = ByteBuffer(string: headUpToContentLength + "\(body.count)\r\n\r\n")
        buffer.writeBytes(body)
        return buffer
    }
}

/// The TOTP step's request for one user, with its pending credential and
/// code still to fill in (they change with every sign-in; both are written
/// as they come, which is right for base64url and digits, the only forms
/// the emulator and TOTP give them).
struct TOTPStepTemplate: Sendable {
    var head: String
    /// The body around the credential and the code: before, between, after.
    var bodyParts: (String, String, String)

    private static let credentialMark = "PENDING-CREDENTIAL-MARK"
    private static let codeMark = "VERIFICATION-CODE-MARK"

    init(emulatorHost: String, enrollmentID: String) async throws {
        let captured = try await CapturingTransport.capture(emulatorHost: emulatorHost) { accounts in
            _ = try await accounts.finalizeMfaSignIn(
                FinalizeMfaSignInRequest(
                    mfaPendingCredential: Self.credentialMark, mfaEnrollmentId: enrollmentID,
                    totpVerificationInfo: .init(verificationCode: Self.codeMark)))
        }
        let body = String(decoding: captured.body, as: UTF8.self)
        guard let credential = body.range(of: Self.credentialMark), let code = body.range(of: Self.codeMark),
            credential.upperBound <= code.lowerBound
        else {
            throw LoadError.unexpected("the TOTP step's body does not hold its marks in order")
        }
        head = captured.headUpToContentLength
        bodyParts = (
            String(body[..<credential.lowerBound]), String(body[credential.upperBound..<code.lowerBound]),
            String(body[code.upperBound...])
        )
    }

    /// Writes the whole request for `credential` and `code` into `buffer`.
    func write(credential: String, code: String, into buffer: inout ByteBuffer) {
        let bodyLength =
            bodyParts.0.utf8.count + credential.utf8.count + bodyParts.1.utf8.count + code.utf8.count
            + bodyParts.2.utf8.count
        buffer.writeString(head)
        buffer.writeString(String(bodyLength))
        buffer.writeString("\r\n\r\n")
        buffer.writeString(bodyParts.0)
        buffer.writeString(credential)
        buffer.writeString(bodyParts.1)
        buffer.writeString(code)
        buffer.writeString(bodyParts.2)
    }
}
