import Foundation
import GeneratorGoldenReference
import HTTPTypes
@_spi(Generated) import IdentityToolkit
import IdentityToolkitTestSupport
import Testing

/// Exercises the compiled golden reference: the generated code must not only
/// build but behave.
@Suite struct GoldenRuntimeTests {
    @Test func modelsUseWireNamesAndProto3JSON() throws {
        let json =
            #"{"name":"w","created_at":"2024-05-01T12:00:00.250Z","size":"7","serial":12345678901234,"color":"DEEP_RED","default":"d","marker":{},"unknown":true,"parts":[{"id":"p"}]}"#
        let widget = try JSONDecoder().decode(Widget.self, from: Data(json.utf8))
        #expect(widget.name == "w")
        #expect(widget.createdAt == Date(timeIntervalSince1970: 1_714_564_800.25))
        #expect(widget.size == 7)
        #expect(widget.serial == 12_345_678_901_234)
        #expect(widget.color == .deepRed)
        #expect(widget.defaultValue == "d")
        #expect(widget.marker == Marker())
        #expect(widget.parts == [Part(id: "p")])
        #expect(widget.secretCode == nil)

        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let encoded = String(decoding: try encoder.encode(widget), as: UTF8.self)
        #expect(
            encoded
                == #"{"color":"DEEP_RED","created_at":"2024-05-01T12:00:00.250Z","default":"d","marker":{},"name":"w","parts":[{"id":"p"}],"serial":"12345678901234","size":7}"#
        )
    }

    /// `x-strict-reader`: the generated pull reader gives what `JSONDecoder`
    /// gives (odd and keyword names, nested readers, arrays, maps, enums, null
    /// as absence, unknown members skipped) and names the member that failed.
    @Test func strictReadersReadAsCodableDecodes() throws {
        let documents = [
            #"{"default":"d","quote\"d":"q","count":1e3,"flag":false,"kind":"self","stub":{"note":"n","x":[1,{"y":null}]},"#
                + #""stubs":[{},{"note":null}],"by_kind":{"a":["x","é"],"b":[]},"labels":{"k":"v"},"unknown":{"deep":[true]}}"#,
            #"{"count":-7,"stub":{},"default":"\u00e9","flag":null,"kind":null,"stubs":null,"by_kind":null,"labels":null}"#,
        ]
        for json in documents {
            let data = Data(json.utf8)
            #expect(try Ticket(strictJSON: data) == JSONDecoder().decode(Ticket.self, from: data), "\(json)")
        }
        func failure(_ json: String) -> DecodingError? {
            do {
                _ = try Ticket(strictJSON: Data(json.utf8))
                return nil
            } catch {
                return error as? DecodingError
            }
        }
        guard case .keyNotFound(let key, let context)? = failure(#"{"default":"d","stub":{}}"#) else {
            Issue.record("no keyNotFound")
            return
        }
        #expect(key.stringValue == "count" && context.codingPath.isEmpty)
        guard
            case .typeMismatch(_, let mismatch)? = failure(#"{"default":"d","count":1,"stub":{},"stubs":[{"note":5}]}"#)
        else {
            Issue.record("no typeMismatch")
            return
        }
        #expect(mismatch.codingPath.map(\.stringValue) == ["stubs", "Index 0", "note"])
        guard case .valueNotFound? = failure(#"{"default":null,"count":1,"stub":{}}"#) else {
            Issue.record("null read as a value")
            return
        }
        // Refused where Codable's reader would pick one of two: a duplicate, however it is escaped.
        for json in [
            #"{"default":"a","default":"b","count":1,"stub":{}}"#,
            #"{"default":"a","d\u0065fault":"b","count":1,"stub":{}}"#,
            #"{"default":"a","count":1,"stub":{},"u":1,"u":2}"#, #"{"default":"a","count":1,"stub":{}} x"#,
            #"{"default":"a","count":1.5,"stub":{}}"#, #"{"default":"a","count":9223372036854775808,"stub":{}}"#,
        ] {
            #expect(failure(json) != nil, "\(json)")
        }
    }

    @Test func missingRequiredFieldsFailToDecode() {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Widget.self, from: Data(#"{"name":"w"}"#.utf8))
        }
    }

    /// `x-enum-numbers`: a value also decodes from its protocol-buffer number, and encodes as its name.
    @Test func enumsDecodeTheirNumbers() throws {
        #expect(try JSONDecoder().decode(Color.self, from: Data("1".utf8)) == .deepRed)
        #expect(try JSONDecoder().decode(Color.self, from: Data("9".utf8)).rawValue == "9")
        #expect(
            String(
                decoding: try JSONEncoder().encode(try JSONDecoder().decode(Color.self, from: Data("2".utf8))),
                as: UTF8.self) == #""blue""#)
    }

    @Test func enumsAreOpenSets() throws {
        let color = try JSONDecoder().decode(Color.self, from: Data(#""GREEN""#.utf8))
        #expect(color.rawValue == "GREEN")
        #expect(String(decoding: try JSONEncoder().encode(color), as: UTF8.self) == #""GREEN""#)
        #expect(Color.allKnownValues == [.colorUnspecified, .deepRed, .blue])
    }

    /// Fields added with `x-since` keep each earlier release's initializer:
    /// code written against 1.0 or 1.2 still compiles (by its full name, as a
    /// function reference, too), and a call that names only old fields picks
    /// the full initializer without ambiguity.
    @Test func fieldsAddedSinceKeepTheOldInitializers() {
        let created = Date(timeIntervalSince1970: 0)
        let before12:
            (String, Date, Int32?, Int64?, Double?, Bool?, Color?, [String]?, [Part]?, String?, String?, Marker?) ->
                Widget = Widget.init(
                    name:createdAt:size:serial:weight:active:color:tags:parts:secretCode:defaultValue:marker:)
        let old = before12("w", created, 1, nil, nil, nil, nil, nil, nil, nil, nil, nil)
        #expect(old.size == 1 && old.origin == nil && old.batch == nil)
        let before110:
            (
                String, Date, Int32?, Int64?, Double?, Bool?, Color?, [String]?, [Part]?, String?, String?, Marker?,
                String?
            ) -> Widget = Widget.init(
                name:createdAt:size:serial:weight:active:color:tags:parts:secretCode:defaultValue:marker:origin:)
        #expect(before110("w", created, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, "here").origin == "here")
        let full = Widget(name: "w", createdAt: created, origin: "here", batch: "b7")
        #expect(full.origin == "here" && full.batch == "b7")
        #expect(
            Widget(name: "w", createdAt: created, size: 2)
                == Widget(name: "w", createdAt: created, size: 2, origin: nil, batch: nil))
    }

    @Test func sensitiveFieldsAreRedactedEverywhere() {
        let widget = Widget(name: "w", createdAt: Date(timeIntervalSince1970: 0), secretCode: "hunter2")
        #expect(!widget.description.contains("hunter2"))
        #expect(widget.description.contains("secretCode: <redacted>"))
        #expect(!String(reflecting: widget).contains("hunter2"))
        var dumped = ""
        dump(widget, to: &dumped)
        #expect(!dumped.contains("hunter2"))
        // A value holding a redacting value stays redacted.
        #expect(!String(describing: [widget]).contains("hunter2"))
        #expect(!String(describing: Optional(widget)).contains("hunter2"))
    }

    @Test func facadeTwinsCallTheAsyncMethodAndCompleteOnce() async throws {
        let shelf = Shelf(kind: 3)
        let value: String = try await withCheckedThrowingContinuation { continuation in
            shelf.widgetWithName("a") { value, error in
                if let value {
                    continuation.resume(returning: value)
                } else {
                    continuation.resume(throwing: error ?? GoldenError(code: .internal))
                }
            }
        }
        #expect(value == "widget a on shelf 3")
        let failure: (any Error)? = await withCheckedContinuation { continuation in
            shelf.widget(named: "") { _, error in continuation.resume(returning: error) }
        }
        #expect((failure as? GoldenError)?.code == .badKey)
        let cleared: (any Error)? = await withCheckedContinuation { continuation in
            shelf.clearWithCompletion { error in continuation.resume(returning: error) }
        }
        #expect(cleared == nil)
        let made: Int? = await withCheckedContinuation { continuation in
            Shelf.make(kind: 9) { shelf, _ in continuation.resume(returning: shelf?.kind) }
        }
        #expect(made == 9)
        #expect(shelf.labelForName("ab", uppercased: true) == "AB")
    }

    @Test func errorCodeTablesComeFromTheSpec() {
        #expect(GoldenError.errorDomain == "GoldenErrorDomain")
        #expect(GoldenError.Code(serverCode: "INVALID_KEY") == .badKey)
        #expect(GoldenError.Code(serverCode: "KEY_EXPIRED") == .badKey)
        #expect(GoldenError.Code(serverCode: "NOPE") == nil)
        #expect(GoldenError.Code.forServerReason("keyInvalidFormat") == .badKey)
        #expect(GoldenError.Code.forServerReason("other") == nil)
        #expect(GoldenError.Code.badKey.userInfoName == "ERROR_BAD_KEY")
        #expect(GoldenError.Code.badKey.defaultDescription == #"The key is "bad"."#)
        #expect(GoldenError.badKey.rawValue == 100)
        #expect(GoldenError.Code.unknownServerCode == .internal)
        #expect(GoldenError.Code.transportFailure == .network)
    }

    @Test func clientsBuildRequestsFromTheSpec() async throws {
        let transport = RecordingTransport(status: 200, body: #"{"name":"w","created_at":"2024-05-01T12:00:00Z"}"#)
        let client = WidgetsClient(
            apiKey: "k", configuration: ClientConfiguration(transport: transport, emulatorHost: nil))
        _ = try await client.getWidget(shelf: "a/b", widget: "w 1", viewMode: "full", maxParts: 3)
        let request = try #require(await transport.requests.first)
        #expect(request.method == .get)
        // An integer parameter travels in decimal.
        #expect(
            request.url?.absoluteString
                == "https://widgets.example.com/v1/shelves/a%2Fb/widgets/w%201?view_mode=full&max_parts=3&key=k")

        let tokens = TokensClient(
            accessToken: { "tok" },
            configuration: ClientConfiguration(transport: transport, emulatorHost: "127.0.0.1:9099"))
        _ = try await tokens.revokeToken(token: "t", reason: "r")
        let revoke = try #require(await transport.requests.last)
        #expect(revoke.method == .delete)
        #expect(revoke.headerFields[.authorization] == "Bearer tok")
        #expect(revoke.url?.absoluteString == "http://127.0.0.1:9099/tokens.example.com/base/v2/tokens/t?reason=r")
    }

    /// A `text/html` response is a page: clients get its text, servers return a String served as HTML.
    @Test func htmlResponsesAreText() async throws {
        let transport = RecordingTransport(status: 200, body: "<p>hi</p>")
        let client = WidgetsClient(
            apiKey: "k", configuration: ClientConfiguration(transport: transport, emulatorHost: nil))
        #expect(try await client.getPage(title: "x") == "<p>hi</p>")
        #expect(await transport.requests.first?.headerFields[.accept] == "text/html")
        let route = try RouteTable(GoldenWidgetsServer()).route(.get, "/widgets.example.com/v1/widgets:page")
        let response = try await route.handler(
            APIServerRequest(method: .get, headerFields: [:], query: ["title": "T"], body: Data()))
        #expect(
            response.contentType == "text/html; charset=utf-8"
                && String(decoding: response.body, as: UTF8.self) == "<h1>T</h1>")
    }

    /// A map schema is a `[String: Value]` typealias, decoded and served as a JSON object.
    @Test func mapResponsesRoundTrip() async throws {
        let transport = RecordingTransport(status: 200, body: #"{"w1":"first","w9":"ninth"}"#)
        let client = WidgetsClient(
            apiKey: "k", configuration: ClientConfiguration(transport: transport, emulatorHost: nil))
        let labels: [String: String] = try await client.getLabels()
        #expect(labels == ["w1": "first", "w9": "ninth"])
        let route = try RouteTable(GoldenWidgetsServer()).route(.get, "/widgets.example.com/v1/widgets:labels")
        let response = try await route.handler(
            APIServerRequest(method: .get, headerFields: [:], query: [:], body: Data()))
        #expect(try JSONDecoder().decode(Labels.self, from: response.body) == ["w1": "first", "w2": "second"])
    }

    @Test func errorBodiesAreReadAlongTheSpecsPaths() async throws {
        let transport = RecordingTransport(
            status: 400,
            body: #"{"error":{"message":"INVALID_KEY : no such key","details":[{"reason":"keyInvalid"},{}]}}"#)
        let client = WidgetsClient(
            apiKey: "k", configuration: ClientConfiguration(transport: transport, emulatorHost: nil))
        do {
            _ = try await client.getWidget(shelf: "s", widget: "w")
            Issue.record("expected an error")
        } catch let failure as IdentityToolkitError where failure.code == .server {
            let error = try #require(failure.serverError)
            #expect(error == ServerError(status: 400, message: "INVALID_KEY : no such key", reasons: ["keyInvalid"]))
            #expect(error.shortCode == "INVALID_KEY")
            #expect(error.detail == "no such key")
        }
    }

    /// A route knows its template's parameter names, `{name}:verb` (Google's
    /// custom methods) included, and refuses a value with a raw colon (the
    /// emulator's router tests the matching itself, on Hummingbird's trie).
    @Test func routesNameTheirPathParameters() throws {
        let route = APIServerRoute(
            operationID: "verb", method: .post, prefix: "/host",
            path: "/v1/projects/{project}/tenants/{tenant}:createThing",
            authorization: .none
        ) { _ in try APIServerResponse.json(EmptyResponse()) }
        #expect(route.pathParameterNames == ["project", "tenant"])
        #expect(route.template == "/host/v1/projects/{project}/tenants/{tenant}:createThing")
        #expect(APIServerRoute.pathParameterValue("p%201") == "p 1")
        #expect(APIServerRoute.pathParameterValue("a:b") == nil)
        #expect(APIServerRoute.pathParameterValue("") == nil)
        #expect(APIServerRoute.pathParameterValue("bad%zz") == nil)
    }

    @Test func generatedRoutesDecodeDispatchAndEncode() async throws {
        let table = RouteTable(GoldenWidgetsServer())
        GoldenTokensServer().registerRoutes(on: table)
        let route = try table.route(.get, "/widgets.example.com/v1/shelves/{shelf}/widgets/{widget}")
        #expect(route.operationID == "getWidget")
        #expect(route.authorization == .apiKey)
        #expect(route.pathParameterNames == ["shelf", "widget"])
        let parameters = ["shelf": "s 1", "widget": "w"]
        let response = try await route.handler(
            APIServerRequest(
                method: .get, headerFields: [:], query: ["view_mode": "full"], body: Data(), pathParameters: parameters)
        )
        #expect(try JSONDecoder().decode(Widget.self, from: response.body).name == "s 1/w/full")
        // An integer parameter is decoded, and refused when it is no integer of its size.
        let counted = try await route.handler(
            APIServerRequest(
                method: .get, headerFields: [:], query: ["max_parts": "7"], body: Data(), pathParameters: parameters))
        #expect(try JSONDecoder().decode(Widget.self, from: counted.body).name == "s 1/w/-/7")
        for bad in ["x", "2147483648", "", "1.5"] {
            await #expect(
                throws: APIServerError.undecodableRequest("query parameter max_parts must be an integer of 32 bits")
            ) {
                _ = try await route.handler(
                    APIServerRequest(
                        method: .get, headerFields: [:], query: ["max_parts": bad], body: Data(),
                        pathParameters: parameters))
            }
        }

        let create = try table.route(.post, "/widgets.example.com/v1/widgets:create")
        #expect(create.errorBody is Failure.Type)
        // Request bodies are read with proto3 JSON's name rules: snake_case wire names or camelCase.
        let created = try await create.handler(
            APIServerRequest(
                method: .post, headerFields: [:], query: [:],
                body: Data(#"{"name":"n","created_at":"2024-01-01T00:00:00Z","secretCode":"x"}"#.utf8)))
        #expect(try JSONDecoder().decode(Widget.self, from: created.body).serial == 1)
        await #expect(throws: APIServerError.nameMissing) {
            _ = try await create.handler(
                APIServerRequest(
                    method: .post, headerFields: [:], query: [:],
                    body: Data(#"{"name":"","created_at":"2024-01-01T00:00:00Z"}"#.utf8)))
        }
        await #expect(throws: APIServerError.undecodableRequest("missing required field created_at")) {
            _ = try await create.handler(
                APIServerRequest(method: .post, headerFields: [:], query: [:], body: Data(#"{"name":"n"}"#.utf8)))
        }
        // An absent required text field reaches the operation empty, which names it with its own code.
        await #expect(throws: APIServerError.nameMissing) {
            _ = try await create.handler(
                APIServerRequest(
                    method: .post, headerFields: [:], query: [:],
                    body: Data(#"{"created_at":"2024-01-01T00:00:00Z"}"#.utf8)))
        }
        // `x-server-aliases`: the same operation at another full path.
        let alias = try table.route(.post, "/legacy.example.com/v0/createWidget")
        #expect(alias.operationID == "createWidget" && alias.prefix.isEmpty)
        let revoke = try table.route(.delete, "/tokens.example.com/base/v2/tokens/{token}")
        #expect(revoke.errorBody == nil)
        let tokenParameters = ["token": "t"]
        #expect(revoke.authorization == .bearer)
        await #expect(throws: APIServerError.undecodableRequest("missing query parameter reason")) {
            _ = try await revoke.handler(
                APIServerRequest(
                    method: .delete, headerFields: [:], query: [:], body: Data(), pathParameters: tokenParameters))
        }
    }

    /// A path with `"` and `\(` in the spec, keyword parameter names and
    /// Google's `$.xgafv`: the generated client sends exactly the spec's path
    /// and wire names, and the generated route matches it.
    @Test func hostileNamesAndPathsRoundTrip() async throws {
        let transport = RecordingTransport(status: 200, body: "{}")
        let client = WidgetsClient(
            apiKey: "k", configuration: ClientConfiguration(transport: transport, emulatorHost: nil))
        _ = try await client.runOdd(default: "d/1", xgafv: "2", in: "x", body: OddRequest(default: "v", kind: .default))
        let request = try #require(await transport.requests.first)
        #expect(request.path == #"/v1/odd/d%2F1/say"hi\(x)":run?%24.xgafv=2&in=x&key=k"#)
        #expect(OddKind.allKnownValues.map(\.rawValue) == ["default", "self", "a\"b", "new\nline", "123start"])
        let route = try RouteTable(GoldenWidgetsServer()).route(
            .post, #"/widgets.example.com/v1/odd/{default}/say"hi\(x)":run"#)
        #expect(route.operationID == "runOdd")
        #expect(route.pathParameterNames == ["default"])
    }

    /// A form-only operation: the client sends `application/x-www-form-urlencoded`
    /// with the wire names, and the generated route reads the form back.
    @Test func formBodiesAreSentAndReadAsForms() async throws {
        let transport = RecordingTransport(status: 200, body: #"{"default":"a b"}"#)
        let client = WidgetsClient(
            apiKey: "k", configuration: ClientConfiguration(transport: transport, emulatorHost: nil))
        let body = OddRequest(
            default: "a b&c=d", private: 7, selfLink: nil, quoted: "q\"", kind: OddKind(rawValue: "new\nline"))
        _ = try await client.exchangeForm(body)
        let request = try #require(await transport.requests.first)
        #expect(request.headerFields[.contentType] == "application/x-www-form-urlencoded")
        let sent = try #require(await transport.bodies.first ?? nil)
        #expect(
            String(decoding: sent, as: UTF8.self) == "default=a%20b%26c%3Dd&kind=new%0Aline&private=7&quote%22d=q%22")

        let route = try RouteTable(GoldenWidgetsServer()).route(.post, "/widgets.example.com/v1/forms:exchange")
        let echoed = try await route.handler(
            APIServerRequest(
                method: .post, headerFields: [.contentType: "application/x-www-form-urlencoded"], query: [:],
                body: sent,
                acceptsFormBody: route.acceptsFormBody))
        let decoded = try JSONDecoder().decode(OddRequest.self, from: echoed.body)
        #expect(decoded.default == "a b&c=d")
        #expect(decoded.quoted == "q\"")
        #expect(decoded.private == 7)
        #expect(decoded.kind == OddKind(rawValue: "new\nline"))
    }
}

/// The routes a generated service registers, looked up by method and
/// template (matching a request's path is the server's job).
final class RouteTable: APIServerRouteRegistry {
    private(set) var routes: [APIServerRoute] = []

    init(_ service: some WidgetsService) {
        service.registerRoutes(on: self)
    }

    func register(_ route: APIServerRoute) { routes.append(route) }

    func route(_ method: HTTPRequest.Method, _ template: String) throws -> APIServerRoute {
        try #require(routes.first { $0.method == method && $0.template == template }, "no route \(method) \(template)")
    }
}
