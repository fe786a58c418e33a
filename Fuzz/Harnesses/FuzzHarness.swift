import Foundation
import HTTPTypes
import IdentityOTP
import IdentitySupport
@_spi(Generated) import IdentityToolkit
import SpecCodegen

/// One function per parser of outside input, for libFuzzer (`fuzz-runner`)
/// and for the regression tests that replay the committed corpus. Each
/// must return for every input: a trap is the bug a fuzzer reports. Where a
/// parser accepts an input, the harness also checks a property of the
/// result (a round trip, a bound), so that silent corruption is found too.
public enum FuzzHarness {
    /// Every harness by name (`FUZZ_TARGET` selects one).
    public static let all: [String: @Sendable ([UInt8]) -> Void] = [
        "base32": base32, "otpauth": otpauthURI, "jwt": jwtCompactForm, "protojson": protoJSON,
        "rfc3339": rfc3339, "form": formBody, "spec": yamlSpec, "qr": qrEncoder,
        "cachecontrol": cacheControl, "stepup": stepUpChallenge,
    ]

    /// Fails loudly: a broken property is as much a finding as a crash.
    static func require(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fatalError("property violated: \(message())") }
    }

    static func base32(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        if let strict = try? Base32.decode(text, mode: .strict) {
            require((try? Base32.decode(Base32.encode(strict))) == strict, "base32 round trip")
        }
        _ = try? Base32.decode(text, mode: .lenient)
        require((try? Base32.decode(Base32.encode(bytes))) == bytes, "base32 encode/decode of raw bytes")
    }

    static func otpauthURI(_ bytes: [UInt8]) {
        guard let uri = try? OTPAuthURI(parsing: String(decoding: bytes, as: UTF8.self)) else { return }
        let again = try? OTPAuthURI(parsing: uri.string)
        require(again == uri, "otpauth URI re-parses to the same value")
    }

    static func jwtCompactForm(_ bytes: [UInt8]) {
        guard let jwt = JWTCompactForm(String(decoding: bytes, as: UTF8.self)) else { return }
        jwt.withSigningInput { input in
            require(
                input.count < bytes.count && input.elementsEqual(bytes.prefix(input.count)),
                "the signing input is a strict prefix")
        }
        // The three parts share one buffer: each must be what its text decodes to alone.
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).map {
            Data(base64URLEncodedUTF8: $0)
        }
        require(
            parts.count == 3 && parts[0] == jwt.header && parts[1] == jwt.payload && parts[2] == jwt.signature,
            "each part decodes as it does alone")
        _ = try? JSONSerialization.jsonObject(with: jwt.payload)
        strictReadersAgreeWithFoundation(header: jwt.header, claims: jwt.payload)
    }

    /// The verifier's strict readers (`x-strict-reader`) accept only what
    /// Foundation's `JSONDecoder` reads, and read it the same way (they may
    /// refuse more: duplicate names, invalid UTF-8, deep nesting).
    static func strictReadersAgreeWithFoundation(header: Data, claims: Data) {
        if let strict = try? JOSEHeader(strictJSON: header) {
            require(
                (try? JSONDecoder().decode(JOSEHeader.self, from: header)) == strict,
                "the strict header reader reads what JSONDecoder reads")
        }
        if let strict = try? IDTokenClaims(strictJSON: claims) {
            require(
                (try? JSONDecoder().decode(IDTokenClaims.self, from: claims)) == strict,
                "the strict claims reader reads what JSONDecoder reads")
        }
    }

    /// Generated models decode proto3 JSON (int64 as strings, RFC 3339 times, enums).
    static func protoJSON(_ bytes: [UInt8]) {
        let data = Data(bytes)
        strictReadersAgreeWithFoundation(header: data, claims: data)
        let decoder = JSONDecoder()
        _ = try? decoder.decode(SignInWithPasswordResponse.self, from: data)
        _ = try? decoder.decode(GetAccountInfoResponse.self, from: data)
        _ = try? decoder.decode(StartMfaEnrollmentResponse.self, from: data)
        _ = try? decoder.decode(ProjectConfig.self, from: data)
        _ = try? decoder.decode(Tenant.self, from: data)
        _ = try? decoder.decode(GrantTokenResponse.self, from: data)
        // The server side: structure bound, then decoding with proto3 name aliases.
        let request = APIServerRequest(method: .post, headerFields: [:], query: [:], body: data)
        _ = try? request.decodeBody(SignUpRequest.self, snakeCaseWireNames: ["email_verified"])
        _ = try? request.decodeBody(FinalizeMfaSignInRequest.self)
    }

    /// The key routes' `Cache-Control`, read by every token verifier.
    static func cacheControl(_ bytes: [UInt8]) {
        guard let seconds = CacheControl.maxAge(String(decoding: bytes, as: UTF8.self)) else { return }
        require(seconds >= 0 && seconds <= CacheControl.longestMaxAge, "a max-age within 0 and the cap")
    }

    /// A server's `WWW-Authenticate`, read by MultiFactorAuth's step-up
    /// helper: a challenge found is written back and read the same.
    static func stepUpChallenge(_ bytes: [UInt8]) {
        guard let challenge = StepUpChallenge(wwwAuthenticate: String(decoding: bytes, as: UTF8.self)) else { return }
        let again = StepUpChallenge(wwwAuthenticate: challenge.headerValue)
        require(
            again?.requiresSecondFactor == challenge.requiresSecondFactor
                && again?.maximumAuthenticationAge == challenge.maximumAuthenticationAge,
            "a challenge written back reads the same")
    }

    static func rfc3339(_ bytes: [UInt8]) {
        guard let date = RFC3339Date.parse(String(decoding: bytes, as: UTF8.self)) else { return }
        require(date.timeIntervalSince1970.isFinite, "a parsed time is finite")
        if abs(date.timeIntervalSince1970) < 253_402_300_800 {
            let text = RFC3339Date.format(date)
            require(RFC3339Date.parse(text) != nil, "a formatted time parses")
        }
    }

    static func formBody(_ bytes: [UInt8]) {
        // Total (the WHATWG reading): any bytes give fields, at most one per `&`-separated part.
        let fields = APIServerRequest.formFields(Data(bytes))
        require(fields.count <= bytes.count(where: { $0 == UInt8(ascii: "&") }) + 1, "a field per part at most")
        var headers = HTTPFields()
        headers[.contentType] = "application/x-www-form-urlencoded"
        let request = APIServerRequest(
            method: .post, headerFields: headers, query: [:], body: Data(bytes), acceptsFormBody: true)
        _ = try? request.decodeBody(GrantTokenRequest.self, snakeCaseWireNames: ["grant_type", "refresh_token"])
    }

    /// The YAML spec reader and validator, on one in-memory document.
    static func yamlSpec(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        _ = SpecCodegen.validate(files: ["fuzz.yaml"]) { path in
            guard path == "fuzz.yaml" else { throw CocoaError(.fileNoSuchFile) }
            return text
        }
    }

    static func qrEncoder(_ bytes: [UInt8]) {
        guard let code = try? QRCode(bytes: Array(bytes.prefix(600)), errorCorrection: .low) else { return }
        require(code.size >= 21 && code.size <= 177, "a QR symbol is version 1 to 40")
        _ = code.svg()
    }
}
