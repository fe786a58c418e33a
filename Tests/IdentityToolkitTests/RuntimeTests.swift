import Foundation
import HTTPTypes
import IdentitySupport
import IdentityToolkitTestSupport
import Logging
import Testing

@_spi(Generated) @testable import IdentityToolkit

@Suite struct RuntimeTests {
    @Test(
        arguments: [
            ("INVALID_CODE", "INVALID_CODE", nil),
            ("TOO_MANY_ATTEMPTS_TRY_LATER : Try again later.", "TOO_MANY_ATTEMPTS_TRY_LATER", "Try again later."),
            (
                "WEAK_PASSWORD : Password should be at least 6 characters", "WEAK_PASSWORD",
                "Password should be at least 6 characters"
            ),
            (
                "INVALID_ARGUMENT : ((Missing phoneEnrollmentInfo.)) : x", "INVALID_ARGUMENT",
                "((Missing phoneEnrollmentInfo.)) : x"
            ),
            ("CODE:", "CODE", nil),
        ] as [(String, String, String?)])
    func serverMessagesSplitAtTheFirstColon(message: String, shortCode: String, detail: String?) {
        let error = ServerError(status: 400, message: message)
        #expect(error.shortCode == shortCode)
        #expect(error.detail == detail)
    }

    @Test(arguments: [
        ("2024-03-05T10:11:12Z", 1_709_633_472.0),
        ("2024-03-05T10:11:12.5Z", 1_709_633_472.5),
        ("2024-03-05T10:11:12.345678Z", 1_709_633_472.345678),
        ("2024-03-05t10:11:12.000000001z", 1_709_633_472.000000001),
        ("2024-03-05T12:11:12+02:00", 1_709_633_472.0),
        ("2024-03-05T05:41:12-04:30", 1_709_633_472.0),
        ("1969-12-31T23:59:59Z", -1.0),
        ("2106-02-07T06:28:16Z", 4_294_967_296.0),
        ("2024-02-29T00:00:00Z", 1_709_164_800.0),
    ])
    func rfc3339Parsing(text: String, seconds: Double) throws {
        let date = try #require(RFC3339Date.parse(text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.000_001)
    }

    @Test(arguments: [
        "", "2024-03-05", "2024-03-05T10:11:12", "2024-13-05T10:11:12Z", "2023-02-29T00:00:00Z",
        "2024-03-05T10:11:12.Z", "2024-03-05T25:00:00Z", "2024-03-05T10:11:12Zjunk", "2024-03-05T10:11:12+0200",
    ])
    func rfc3339Rejects(text: String) {
        #expect(RFC3339Date.parse(text) == nil)
    }

    @Test func rfc3339FormattingRoundTrips() {
        // proto3 JSON's canonical digits: 3, or 6 for microseconds (JavaScript's toISOString for milliseconds).
        #expect(RFC3339Date.format(Date(timeIntervalSince1970: 1_709_633_472)) == "2024-03-05T10:11:12.000Z")
        #expect(RFC3339Date.format(Date(timeIntervalSince1970: 1_709_633_472.25)) == "2024-03-05T10:11:12.250Z")
        #expect(RFC3339Date.format(Date(timeIntervalSince1970: 1_709_633_472.000125)) == "2024-03-05T10:11:12.000125Z")
        #expect(RFC3339Date.format(Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59.000Z")
        for seconds in stride(from: -86_400.0 * 400, to: 86_400.0 * 365 * 200, by: 86_400.0 * 37.3 + 0.125) {
            let date = Date(timeIntervalSince1970: seconds)
            let parsed = RFC3339Date.parse(RFC3339Date.format(date))
            #expect(parsed.map { abs($0.timeIntervalSince1970 - seconds) < 0.000_001 } == true)
        }
    }

    @Test func proto3IntegersAcceptNumbersAndStrings() throws {
        let decoder = JSONDecoder()
        #expect(try decoder.decode(ProtoInt64.self, from: Data("9007199254740993".utf8)).value == 9_007_199_254_740_993)
        #expect(try decoder.decode(ProtoInt64.self, from: Data(#""-42""#.utf8)).value == -42)
        #expect(try decoder.decode(ProtoInt32.self, from: Data(#""10""#.utf8)).value == 10)
        #expect(throws: DecodingError.self) { try decoder.decode(ProtoInt32.self, from: Data(#""x""#.utf8)) }
        #expect(throws: DecodingError.self) { try decoder.decode(ProtoInt32.self, from: Data("4294967296".utf8)) }
        #expect(String(decoding: try JSONEncoder().encode(ProtoInt64(7)), as: UTF8.self) == #""7""#)
        #expect(String(decoding: try JSONEncoder().encode(ProtoInt32(7)), as: UTF8.self) == "7")
    }

    @Test func emulatorHostComesFromTheEnvironment() {
        #expect(
            ClientConfiguration.environmentEmulatorHost(["FIREBASE_AUTH_EMULATOR_HOST": "localhost:9099"])
                == "localhost:9099")
        #expect(ClientConfiguration.environmentEmulatorHost(["FIREBASE_AUTH_EMULATOR_HOST": ""]) == nil)
        #expect(ClientConfiguration.environmentEmulatorHost([:]) == nil)
    }

    @Test(arguments: ["localhost", "http://localhost:9099", "localhost:0", "localhost:99999", ":9099", "a/b:80"])
    func badEmulatorHostsAreRefusedBeforeSending(host: String) async {
        let transport = RecordingTransport()
        let client = AccountsClient(
            apiKey: "k", configuration: ClientConfiguration(transport: transport, emulatorHost: host))
        await #expect(throws: IdentityToolkitError.self) { try await client.signUp(SignUpRequest()) }
        #expect(await transport.requests.isEmpty)
    }

    @Test func aFailingAccessTokenProviderSendsNothing() async {
        struct NoToken: Error {}
        let transport = RecordingTransport()
        let client = AdminClient(
            accessToken: { throw NoToken() },
            configuration: ClientConfiguration(transport: transport, emulatorHost: nil))
        do {
            _ = try await client.getProjectConfig(project: "p")
            Issue.record("expected an error")
        } catch let error as IdentityToolkitError where error.code == .accessTokenUnavailable {
            #expect(error.underlyingError is NoToken)
        } catch {
            Issue.record("unexpected \(error)")
        }
        #expect(await transport.requests.isEmpty)
    }

    /// The executor's own deadline (``Deadline``) covers a transport that
    /// never answers, and the caller sees the transport's `timedOut`.
    @Test func aTransportThatNeverAnswersTimesOutAsATransportError() async {
        struct NeverAnswers: HTTPTransport {
            func send(_ request: HTTPRequest, body: Data?, options: TransportOptions) async throws -> (
                HTTPResponse, Data
            ) {
                try await Task.sleep(for: .seconds(3600))
                throw CancellationError()
            }
        }
        let client = AccountsClient(
            apiKey: "k",
            configuration: ClientConfiguration(
                transport: NeverAnswers(), emulatorHost: nil, requestTimeout: .milliseconds(200)))
        do {
            _ = try await client.lookup(GetAccountInfoRequest(idToken: "t"))
            Issue.record("expected a timeout")
        } catch let error as IdentityToolkitError where error.code == .transport {
            #expect(error.underlyingError as? TransportError == .timedOut)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func completionTwinsCompleteExactlyOnce() async throws {
        let transport = RecordingTransport(body: #"{"localId":"u1"}"#)
        let client = AccountsClient(
            apiKey: "k", configuration: ClientConfiguration(transport: transport, emulatorHost: nil))
        let counter = Counter()
        let localId: String? = await withCheckedContinuation { continuation in
            client.signUp(SignUpRequest()) { result in
                counter.increment()
                continuation.resume(returning: try? result.get().localId)
            }
        }
        #expect(localId == "u1")
        await transport.respond(status: 400, body: #"{"error":{"code":400,"message":"EMAIL_EXISTS"}}"#)
        let bridge = Locked<Task<Void, Never>?>(nil)
        let failure: (any Error)? = await withCheckedContinuation { continuation in
            let task = client.signUp(SignUpRequest()) { result in
                counter.increment()
                if case .failure(let error) = result {
                    continuation.resume(returning: error)
                } else {
                    continuation.resume(returning: nil)
                }
            }
            bridge.withLock { $0 = task }
        }
        guard let error = (failure as? IdentityToolkitError)?.serverError else {
            Issue.record("expected a server error, got \(String(describing: failure))")
            return
        }
        #expect(error.shortCode == "EMAIL_EXISTS")
        // The bridge's task ends after its one call: no second call can follow.
        await bridge.current?.value
        #expect(counter.value == 2)
    }

    @Test func cancellingACompletionTaskCompletesWithCancellation() async throws {
        let server = try await LoopbackHTTPServer()
        defer { Task { try? await server.shutdown() } }
        // A client whose every call waits 5 s at the server.
        let transport = SlowPathTransport(base: URLSessionTransport.shared, slowURL: "\(server.baseURL)/slow?ms=5000")
        let client = AccountsClient(
            apiKey: "k", configuration: ClientConfiguration(transport: transport, emulatorHost: nil))
        let counter = Counter()
        let error: (any Error)? = await withCheckedContinuation { continuation in
            let task = client.signUp(SignUpRequest()) { result in
                counter.increment()
                if case .failure(let error) = result {
                    continuation.resume(returning: error)
                } else {
                    continuation.resume(returning: nil)
                }
            }
            Task {
                try? await Task.sleep(for: .milliseconds(100))
                task.cancel()
            }
        }
        #expect(error is CancellationError)
        #expect(counter.value == 1)
    }

    @Test func logsNeverContainSecrets() async throws {
        let records = LogRecords()
        var logger = Logger(label: "test") { _ in CapturingLogHandler(records: records) }
        logger.logLevel = .trace
        let transport = RecordingTransport(status: 400, body: #"{"error":{"code":400,"message":"INVALID_PASSWORD"}}"#)
        let client = AccountsClient(
            apiKey: "SECRET-API-KEY",
            configuration: ClientConfiguration(transport: transport, emulatorHost: nil, logger: logger))
        _ = try? await client.signInWithPassword(
            SignInWithPasswordRequest(email: "ada@example.com", password: "SECRET-PASSWORD"))
        let admin = AdminClient(
            accessToken: { "SECRET-TOKEN" },
            configuration: ClientConfiguration(transport: transport, emulatorHost: nil, logger: logger))
        _ = try? await admin.getProjectConfig(project: "p")
        let lines = records.lines
        #expect(lines.count >= 4)
        for line in lines {
            #expect(!line.contains("SECRET"), "\(line)")
        }
        #expect(lines.contains { $0.contains("/v1/accounts:signInWithPassword") && $0.contains("400") })
    }

    @Test func modelDescriptionsRedactSecrets() {
        let request = SignInWithPasswordRequest(email: "ada@example.com", password: "SECRET-PASSWORD")
        #expect(
            "\(request)"
                == #"SignInWithPasswordRequest(email: "ada@example.com", password: <redacted>, returnSecureToken: nil, tenantId: nil)"#
        )
        let tokens = GrantTokenResponse(
            accessToken: "SECRET-1", idToken: "SECRET-2", refreshToken: "SECRET-3", userId: "u1")
        var dumped = ""
        dump(tokens, to: &dumped)
        #expect(!dumped.contains("SECRET"))
        #expect(!String(reflecting: [tokens]).contains("SECRET"))
        #expect(!"\(IdentityToolkitError.server(ServerError(status: 400, message: "INVALID_CODE")))".contains("SECRET"))
    }
}

/// Sends every request to one fixed URL instead (used to make a call slow).
struct SlowPathTransport: HTTPTransport {
    let base: any HTTPTransport
    let slowURL: String

    func send(_ request: HTTPRequest, body: Data?, options: TransportOptions) async throws -> (HTTPResponse, Data) {
        var redirected = HTTPRequest(method: .get, scheme: nil, authority: nil, path: nil)
        redirected.url = URL(string: slowURL)
        return try await base.send(redirected, body: nil, options: options)
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

@Suite struct ServerRequestDecodingTests {
    struct Body: Decodable, Equatable {
        var returnSecureToken: Bool?
        var created_at: String?
    }

    @Test func bothPathsDecodeTheSame() throws {
        func decode(_ json: String) throws -> Body {
            try APIServerRequest(method: .post, headerFields: [:], query: [:], body: Data(json.utf8)).decodeBody(
                Body.self, snakeCaseWireNames: ["created_at"])
        }
        #expect(try decode(#"{"returnSecureToken":true}"#) == Body(returnSecureToken: true))
        #expect(try decode(#"{"return_secure_token":true}"#) == Body(returnSecureToken: true))
        #expect(try decode(#"{"createdAt":"x"}"#) == Body(created_at: "x"))
        #expect(try decode(#"{"created_at":"x"}"#) == Body(created_at: "x"))
        // Both spellings sent: the wire name's own wins, whatever the order.
        #expect(try decode(#"{"return_secure_token":false,"returnSecureToken":true}"#) == Body(returnSecureToken: true))
        #expect(try decode(#"{"created_at":"wire","createdAt":"other"}"#) == Body(created_at: "wire"))
    }

    /// A schema whose one field has a snake_case wire name.
    final class NestedSnake: Decodable {
        let a_b: NestedSnake?
    }

    /// The same with a lowerCamelCase wire name.
    final class NestedCamel: Decodable {
        let aB: NestedCamel?
    }

    /// Aliasing once copied each subtree for its other spelling, twice per
    /// level: 20 levels of `{"a_b": …}` took 15 s and 1.5 GB. One spelling
    /// per key keeps the work linear; nesting at the cap is answered at once,
    /// whichever spelling is sent and whichever the schema has.
    @Test(arguments: ["a_b", "aB"])
    func nestingAtTheCapDecodesInLinearTime(sentKey: String) throws {
        let depth = APIServerRequest.maximumNesting
        let json =
            String(repeating: "{\"\(sentKey)\":", count: depth - 1) + "{}" + String(repeating: "}", count: depth - 1)
        let request = APIServerRequest(method: .post, headerFields: [:], query: [:], body: Data(json.utf8))
        let clock = ContinuousClock()
        var levels = (snake: 0, camel: 0)
        let elapsed = try clock.measure {
            var snake: NestedSnake? = try request.decodeBody(NestedSnake.self, snakeCaseWireNames: ["a_b"])
            while let next = snake {
                levels.snake += 1
                snake = next.a_b
            }
            var camel: NestedCamel? = try request.decodeBody(NestedCamel.self)
            while let next = camel {
                levels.camel += 1
                camel = next.aB
            }
        }
        #expect(levels.snake == depth && levels.camel == depth, "every level was read, under either spelling")
        // Well under 50 ms alone; generous for a suite running in parallel
        // on two shared cores (the old decoder needed hours: 2^31 copies).
        #expect(elapsed < .seconds(2), "\(elapsed) for \(depth) levels of \(sentKey), twice")
        print("decoding \(depth) levels of \(sentKey), twice: \(elapsed)")
    }

    /// A schema with every kind of required field, and one that counts how
    /// often it is decoded.
    struct Required: Decodable, Equatable {
        enum Kind: String, Decodable { case a }
        struct Inner: Decodable, Equatable {
            var name: String
            var list: [String]
        }
        var text: String
        var list: [String]
        var inner: Inner
        var map: [String: String]
        var counted: Counted?
    }

    struct Counted: Decodable, Equatable {
        nonisolated(unsafe) static var decodings = 0
        init(from decoder: any Decoder) throws {
            Self.decodings += 1
            _ = try decoder.singleValueContainer().decode(Int.self)
        }
    }

    static func decode<Body: Decodable>(_ type: Body.Type, _ json: String, snakeCaseWireNames: Set<String> = []) throws
        -> Body
    {
        try APIServerRequest(method: .post, headerFields: [:], query: [:], body: Data(json.utf8)).decodeBody(
            Body.self, snakeCaseWireNames: snakeCaseWireNames)
    }

    static func message(_ body: () throws -> Any) -> String? {
        do {
            _ = try body()
            return nil
        } catch let error as APIServerError {
            return error.detail
        } catch {
            return "\(error)"
        }
    }

    /// Absent required fields are read empty in the one pass, each field
    /// decoded once (the old decoder re-decoded the whole body per absent
    /// field); a field no empty value fits is reported missing, by its path.
    @Test func absentRequiredFieldsAreFilledInOnePass() throws {
        Counted.decodings = 0
        let body = try Self.decode(Required.self, #"{"counted": 7}"#)
        #expect(
            body.text == "" && body.list == [] && body.inner == Required.Inner(name: "", list: []) && body.map == [:])
        #expect(Counted.decodings == 1)
        struct WithNumber: Decodable {
            var inner: Inner
            struct Inner: Decodable { var count: Int }
        }
        #expect(Self.message { try Self.decode(WithNumber.self, "{}") } == "missing required field inner.count")
        struct WithKind: Decodable { var kind: Required.Kind }
        #expect(Self.message { try Self.decode(WithKind.self, "{}") } == "missing required field kind")
        struct WithFlag: Decodable { var flag: Bool }
        #expect(Self.message { try Self.decode(WithFlag.self, #"{"other":1}"#) } == "missing required field flag")
    }

    /// Other spellings are resolved by name, at every level; the keys of a
    /// map are the caller's data and stay as sent.
    @Test func otherSpellingsAreResolvedByNameAndMapKeysStay() throws {
        struct Outer: Decodable, Equatable {
            var innerValue: Inner?
            var claims: [String: String]?
        }
        struct Inner: Decodable, Equatable {
            var grant_type: String?
            var idToken: String?
        }
        let body = try Self.decode(
            Outer.self, #"{"inner_value":{"grantType":"g","id_token":"t"},"claims":{"my_role":"r","myRole":"s"}}"#,
            snakeCaseWireNames: ["grant_type"])
        #expect(
            body == Outer(innerValue: Inner(grant_type: "g", idToken: "t"), claims: ["my_role": "r", "myRole": "s"]))
        // Two other spellings of one name: the first in name order, whatever the order sent.
        struct One: Decodable { var aB: String? }
        #expect(try Self.decode(One.self, #"{"a__b":"first","a_b":"second"}"#).aB == "first")
        #expect(try Self.decode(One.self, #"{"a_b":"second","a__b":"first"}"#).aB == "first")
    }

    /// What is no JSON object is refused with the error production gives.
    @Test(arguments: [
        ("[1]", "the body must be a JSON object"),
        (#"{"a":1,"a":2}"#, "the body is not valid JSON"),
        (#"{"a":1} x"#, "the body is not valid JSON"),
        (#"{"returnSecureToken":"yes"}"#, "invalid value for returnSecureToken: expected Bool"),
        (#"{"returnSecureToken":null}"#, nil),
    ])
    func malformedBodiesAreRefused(json: String, expected: String?) {
        #expect(Self.message { try Self.decode(Body.self, json) } == expected)
    }

    /// A form's fields decode as a JSON object's, other spellings included.
    @Test func formsDecodeAsObjects() throws {
        var request = APIServerRequest(
            method: .post, headerFields: [.contentType: "application/x-www-form-urlencoded"], query: [:],
            body: Data("created_at=x&return_secure_token=true".utf8))
        request.acceptsFormBody = true
        struct Form: Decodable, Equatable {
            var created_at: String
            var grantType: String
        }
        #expect(
            try request.decodeBody(Form.self, snakeCaseWireNames: ["created_at"])
                == Form(created_at: "x", grantType: ""))
    }
}

/// The compact form decodes its three parts into one buffer and reads the
/// signing input in place: the parts must still be what each part decodes
/// to on its own, and every malformed part must still refuse the token.
@Suite struct JWTCompactFormTests {
    /// A JWT re-spelled with the standard alphabet or padding (the same
    /// bytes, so the same signature) is no longer a JWT.
    @Test func theCompactFormRefusesOtherSpellings() throws {
        // Header and payload bytes chosen so that their encodings hold `-` and `_`.
        let header = Data([0xFB, 0xFF, 0x7B]).base64URLEncoded
        let payload = Data([0xFF, 0xEF, 0x7E, 0x01]).base64URLEncoded
        let signature = Data([0xFA, 0xFB]).base64URLEncoded
        #expect(header.contains("-") || header.contains("_"))
        let token = "\(header).\(payload).\(signature)"
        #expect(JWTCompactForm(token) != nil)
        let standard = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        #expect(JWTCompactForm(standard) == nil)
        #expect(JWTCompactForm("\(header).\(payload).\(signature)=") == nil)
        #expect(JWTCompactForm("\(header).\(payload)==.\(signature)") == nil)
    }

    /// Parts of every length modulo 3 (so every kind of tail), with bytes
    /// whose encodings use the whole alphabet.
    @Test func partsAndSigningInputAreEachPartsOwn() throws {
        var generator = SystemRandomNumberGenerator()
        for headerLength in 1...7 {
            for payloadLength in [1, 2, 3, 4, 5, 200, 701] {
                for signatureLength in [0, 1, 2, 256] {
                    let parts = [headerLength, payloadLength, signatureLength].map { count in
                        Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
                    }
                    let encoded = parts.map(\.base64URLEncoded)
                    let form = try #require(JWTCompactForm(encoded.joined(separator: ".")))
                    #expect(form.header == parts[0] && form.payload == parts[1] && form.signature == parts[2])
                    #expect(Array(form.payload) == Array(parts[1]), "the payload reads as a Data of its own")
                    #expect(form.payload.startIndex == 0)
                    form.withSigningInput { #expect(Array($0) == Array("\(encoded[0]).\(encoded[1])".utf8)) }
                }
            }
        }
    }

    @Test func aSubstringsTokenIsReadAsItsOwnText() throws {
        let token =
            "xx"
            + [Data("{}".utf8), Data("{\"a\":1}".utf8), Data([1, 2, 3])].map(\.base64URLEncoded).joined(separator: ".")
            + "yy"
        let form = try #require(JWTCompactForm(String(token.dropFirst(2).dropLast(2))))
        #expect(form.payload == Data("{\"a\":1}".utf8))
        form.withSigningInput {
            #expect(
                String(decoding: $0, as: UTF8.self)
                    == token.dropFirst(2).split(separator: ".").prefix(2).joined(separator: "."))
        }
    }

    /// Each part malformed in turn (a lone symbol, a symbol outside the
    /// alphabet, leftover bits, padding), and the shapes that are not three parts.
    @Test func everyMalformedPartRefusesTheToken() {
        let good = ["eyJhIjoxfQ", "eyJiIjoyfQ", "AQID"]
        for index in 0..<3 {
            for bad in ["eyJhIjoxf", "eyJh*joxfQ", "eyJhIjoxfR", "eyJhIjoxfQ==", "eyJh IjoxfQ", "é"] {
                var parts = good
                parts[index] = bad
                #expect(JWTCompactForm(parts.joined(separator: ".")) == nil, "part \(index): \(bad)")
            }
        }
        #expect(JWTCompactForm(good.joined(separator: ".")) != nil)
        #expect(JWTCompactForm(good.joined(separator: ".") + ".") == nil)
        #expect(JWTCompactForm(good.prefix(2).joined(separator: ".")) == nil)
        #expect(JWTCompactForm(".\(good[1]).\(good[2])") == nil)
        #expect(JWTCompactForm("\(good[0])..\(good[2])") == nil)
        #expect(
            JWTCompactForm("\(good[0]).\(good[1]).") != nil, "an empty signature is a shape the signature check refuses"
        )
        #expect(JWTCompactForm("") == nil)
        #expect(JWTCompactForm("..") == nil)
        let long = String(repeating: "A", count: JWTCompactForm.maximumLength)
        #expect(JWTCompactForm("\(good[0]).\(good[1]).\(long)") == nil)
    }
}

/// The one rule for a uid's length (1 to 128 characters), which a token
/// verification asks of every `sub` and counts in characters only when it must.
@Suite struct UIDLengthTests {
    @Test(arguments: [
        ("", false), ("a", true), (String(repeating: "a", count: 128), true),
        (String(repeating: "a", count: 129), false),
        (String(repeating: "é", count: 128), true), (String(repeating: "é", count: 129), false),
        (String(repeating: "👩‍👩‍👧", count: 128), true), (String(repeating: "👩‍👩‍👧", count: 129), false),
    ])
    func isValidUID(uid: String, valid: Bool) {
        #expect(IdentityPlatformLimits.isValidUID(uid) == valid)
        #expect(IdentityPlatformLimits.isValidUID(uid) == (1...128).contains(uid.count))
    }
}

@Suite struct HostAndPortTests {
    @Test(arguments: ["127.0.0.1:9099", "localhost:1", "[::1]:65535", "emulator.internal:8080"])
    func accepted(text: String) {
        #expect(HostAndPort(text)?.description == text)
    }

    @Test(arguments: [
        "127.0.0.1", ":9099", "host:0", "host:65536", "host:-1", "a/b:1", "user@host:1", "h?x:1", "::1:9099", "host :1",
        "host:1x", "",
    ])
    func refused(text: String) {
        #expect(HostAndPort(text) == nil)
    }
}
