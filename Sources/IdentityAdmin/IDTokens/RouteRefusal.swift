public import Foundation
import IdentitySupport
public import IdentityToolkit
package import Logging

/// How a protected route answers a refusal: its status, headers and JSON
/// body, the same on every framework. None holds any part of the credential.
extension TokenVerificationError {
    /// 401, 403 or 503 (``TokenVerificationError/Code/httpStatus``), and 401
    /// with a ``stepUpChallenge`` when a bearer token's sign-in lacks the
    /// second factor or is too old.
    public var statusCode: Int {
        if stepUpChallenge != nil { return 401 }
        return code.httpStatus
    }

    /// The RFC 9470 challenge of a bearer token whose sign-in a new one can
    /// cure (``secondFactorRequired``,
    /// ``authenticationTooOld(authTime:maximumAge:)``) when a protected route
    /// read it; nil otherwise. A session cookie's refusal stays a 403: a
    /// browser page has no `WWW-Authenticate` to answer.
    public var stepUpChallenge: StepUpChallenge? {
        guard routeAnswer.namesBearerScheme else { return nil }
        switch code {
        case .secondFactorRequired:
            return StepUpChallenge(requiresSecondFactor: true, reason: "a sign-in with the second factor is required")
        case .authenticationTooOld:
            return StepUpChallenge(
                requiresSecondFactor: routeAnswer.secondFactorForStepUp,
                maximumAuthenticationAge: maximumAuthenticationAge, reason: "a more recent sign-in is required")
        default:
            return nil
        }
    }

    /// The `WWW-Authenticate` challenge of a 401 when the route reads a
    /// bearer token (RFC 6750 §3: the bare challenge for a missing token,
    /// `invalid_token` for a refused one, RFC 9470's ``stepUpChallenge``
    /// for a sign-in that is not enough); nil otherwise.
    public var wwwAuthenticate: String? {
        guard statusCode == 401, routeAnswer.namesBearerScheme else { return nil }
        if let stepUpChallenge { return stepUpChallenge.headerValue }
        return code == .missingCredential ? "Bearer" : "Bearer error=\"invalid_token\""
    }

    /// Every header field of the answer, for the framework adapters to
    /// copy: the JSON content type, `Cache-Control: no-store`, and
    /// ``wwwAuthenticate`` when there is one.
    public var responseHeaders: [(name: String, value: String)] {
        var fields = [("Content-Type", "application/json; charset=utf-8"), ("Cache-Control", "no-store")]
        if let wwwAuthenticate { fields.append(("WWW-Authenticate", wwwAuthenticate)) }
        return fields
    }

    /// The answer's JSON body, `{"error":{"reason":…,"message":…}}`: the
    /// ``Code``'s name and a sentence that names no claim's value (the
    /// details stay in ``description``, for the server's log).
    public var jsonBody: Data {
        struct Body: Encodable {
            struct Detail: Encodable {
                let reason: String
                let message: String
            }
            let error: Detail
        }
        // The missing credential's description names nothing; every other one may name a claim's value.
        let message = code == .missingCredential ? description : "the credential was refused: \(code)"
        // Two strings of our own: encoding cannot fail.
        return (try? CanonicalJSON.encoder.encode(Body(error: .init(reason: code.description, message: message))))
            ?? Data()
    }

    /// What an adapter's debug line for this refusal carries: the reason,
    /// what the route expects, and for a token of another project both
    /// project ids (neither is a secret; a misconfigured project shows).
    package func logMetadata(expects credential: FirebaseCredentialSource) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["reason": "\(code)", "expects": "\(credential)"]
        if let mismatch = audienceMismatch {
            metadata["expected_project"] = "\(mismatch.expected)"
            metadata["received_project"] = "\(mismatch.found)"
        }
        return metadata
    }
}
