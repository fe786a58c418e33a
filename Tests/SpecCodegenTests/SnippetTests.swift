import SpecCodegen
import Testing

/// One small spec per construct, checking the Swift it becomes.
@Suite struct SnippetTests {
    func types(_ schemas: String) throws -> String {
        try InMemorySpec(["api.yaml": document(schemas: schemas)]).generate([.types])[.types] ?? ""
    }

    /// `x-error-body` reasons may be read from several paths, in order.
    @Test func errorReasonsFromSeveralPaths() throws {
        let text = try types(
            """
                Failure:
                  type: object
                  description: F.
                  x-error-body:
                    message: message
                    reasons: ['errors[].reason', 'details[].reason', 'code']
                  properties:
                    message: {type: string}
                    code: {type: string}
                    errors: {type: array, items: {$ref: '#/components/schemas/Reason'}}
                    details: {type: array, items: {$ref: '#/components/schemas/Reason'}}
                Reason:
                  type: object
                  description: R.
                  properties:
                    reason: {type: string}
            """)
        #expect(
            text.contains(
                "(self.body.errors ?? []).compactMap { $0.reason } + (self.body.details ?? []).compactMap { $0.reason } + [self.body.code].compactMap { $0 }"
            ), "\(text)")
        let bad = InMemorySpec([
            "api.yaml": document(
                schemas: """
                        Failure:
                          type: object
                          description: F.
                          x-error-body:
                            message: message
                            reasons: ['message', 'nowhere[].reason']
                          properties:
                            message: {type: string}
                    """)
        ]).failures()
        #expect(
            bad.contains { $0.contains("x-error-body reasons path 'nowhere[].reason' has no property 'nowhere'") },
            "\(bad)")
    }

    /// `x-client-required`: optional on the wire (the server's method takes
    /// an optional), but the client's parameter is required and an empty
    /// value is refused before sending.
    @Test func clientRequiredQueryParameter() throws {
        let paths = """

              /v1/things/{thing}:
                patch:
                  operationId: updateThing
                  parameters:
                    - {name: thing, in: path, required: true, schema: {type: string}}
                    - {name: updateMask, in: query, x-client-required: true, schema: {type: string}}
                  responses: {'200': {description: ok}}
            """
        let spec = InMemorySpec(["api.yaml": document(schemas: "    {}", paths: paths)])
        let generated = try spec.generate([.clients, .server])
        let client = generated[.clients] ?? ""
        #expect(
            client.contains("public func updateThing(thing: String, updateMask: String) async throws {"), "\(client)")
        #expect(client.contains("guard !updateMask.isEmpty else {"), "\(client)")
        #expect(
            client.contains("throw IdentityToolkitError.invalidRequest(\"updateMask must not be empty"), "\(client)")
        let server = generated[.server] ?? ""
        #expect(server.contains("updateMask: String?,"), "\(server)")
        #expect(server.contains("request.queryParameter(\"updateMask\")"), "\(server)")
        let misuse = InMemorySpec([
            "api.yaml": document(
                schemas: "    {}",
                paths: paths.replacingOccurrences(
                    of: "{name: updateMask, in: query, x-client-required: true,",
                    with: "{name: updateMask, in: query, required: true, x-client-required: true,"))
        ]).failures()
        #expect(
            misuse.contains {
                $0.contains("x-client-required on parameter 'updateMask': only an optional string query parameter")
            }, "\(misuse)")
    }

    @Test func stringEnumBecomesAnOpenStruct() throws {
        let text = try types(
            """
                State:
                  type: string
                  description: A state.
                  enum: [STATE_UNSPECIFIED, ENABLED]
            """)
        #expect(
            text.contains(
                "public struct State: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {"))
        #expect(text.contains("public static let stateUnspecified = State(rawValue: \"STATE_UNSPECIFIED\")"))
        #expect(text.contains("public static let enabled = State(rawValue: \"ENABLED\")"))
        #expect(text.contains("public static let allKnownValues: [State] = [.stateUnspecified, .enabled]"))
    }

    @Test func fieldMaskSchemasGetTheirFieldPaths() throws {
        let text = try types(
            """
                Config:
                  type: object
                  description: A config.
                  x-field-mask: true
                  properties:
                    displayName: {type: string, description: The name.}
                    snake_field: {type: string, description: A wire name in snake_case.}
            """)
        #expect(text.contains("extension Config {"))
        #expect(text.contains("public enum FieldPath {"))
        #expect(text.contains("public static let displayName = \"displayName\""))
        #expect(text.contains("public static let snakeField = \"snake_field\""))
        let plain = try types(
            """
                Other:
                  type: object
                  description: Not masked.
                  properties:
                    a: {type: string, description: A.}
            """)
        #expect(!plain.contains("FieldPath"))
    }

    /// `x-access: package` makes the type and everything generated for it
    /// `package` in a public module; the types beside it stay public.
    @Test func packageAccessSchemasAreNoPromiseToApps() throws {
        let text = try types(
            """
                Claims:
                  type: object
                  description: Claims only our verifier reads.
                  x-access: package
                  x-field-mask: true
                  properties:
                    secret: {type: string, x-sensitive: true, description: A secret.}
                    kind: {$ref: '#/components/schemas/Kind'}
                Kind:
                  type: string
                  description: A kind.
                  x-access: package
                  enum: [a]
                Shown:
                  type: object
                  description: Apps read this.
                  properties:
                    a: {type: string, description: A.}
            """)
        #expect(text.contains("package struct Claims: Codable, Hashable, Sendable {"))
        #expect(text.contains("    package var secret: String?\n"))
        #expect(text.contains("package init(secret: String? = nil, kind: Kind? = nil) {"))
        #expect(text.contains("    package enum FieldPath {"))
        #expect(
            text.contains(
                "package struct Kind: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {"))
        #expect(text.contains("public struct Shown: Codable, Hashable, Sendable {"))
        #expect(!text.contains("public var secret") && !text.contains("public static let a "))
    }

    @Test func requiredAndOptionalProperties() throws {
        let text = try types(
            """
                Thing:
                  type: object
                  description: A thing.
                  required: [id]
                  properties:
                    id: {type: string, description: The id.}
                    note: {type: string, description: A note.}
            """)
        #expect(text.contains("    /// The id.\n    public var id: String\n"))
        #expect(text.contains("    /// A note.\n    public var note: String?\n"))
        #expect(text.contains("public init(id: String, note: String? = nil) {"))
        #expect(text.contains("self.id = try container.decode(String.self, forKey: .id)"))
        #expect(text.contains("self.note = try container.decodeIfPresent(String.self, forKey: .note)"))
        #expect(text.contains("try container.encodeIfPresent(self.note, forKey: .note)"))
    }

    @Test func proto3NumbersAndTimestampsUseTheirCoders() throws {
        let text = try types(
            """
                Times:
                  type: object
                  description: Times.
                  required: [at]
                  properties:
                    count: {type: integer, format: int32, description: C.}
                    big: {type: integer, format: int64, description: B.}
                    wide: {type: string, format: int64, description: W.}
                    at: {type: string, format: date-time, description: A.}
                    ratio: {type: number, description: R.}
                    flag: {type: boolean, description: F.}
            """)
        #expect(text.contains("self.count = try container.decodeIfPresent(ProtoInt32.self, forKey: .count)?.value"))
        #expect(text.contains("try container.encodeIfPresent(count.map(ProtoInt32.init), forKey: .count)"))
        #expect(text.contains("self.big = try container.decodeIfPresent(ProtoInt64.self, forKey: .big)?.value"))
        #expect(text.contains("self.wide = try container.decodeIfPresent(ProtoInt64.self, forKey: .wide)?.value"))
        #expect(text.contains("self.at = try container.decode(RFC3339Date.self, forKey: .at).value"))
        #expect(text.contains("try container.encode(RFC3339Date(at), forKey: .at)"))
        #expect(text.contains("public var ratio: Double?"))
        #expect(text.contains("public var flag: Bool?"))
    }

    @Test func wireNamesAndKeywordsGetCodingKeys() throws {
        let text = try types(
            """
                Token:
                  type: object
                  description: T.
                  properties:
                    access_token: {type: string, description: A.}
                    protocol: {type: string, description: P.}
            """)
        #expect(text.contains("case accessToken = \"access_token\""))
        #expect(text.contains("case `protocol`\n"))
        #expect(text.contains("public var `protocol`: String?"))
    }

    @Test func arraysAndReferences() throws {
        let text = try types(
            """
                Holder:
                  type: object
                  description: H.
                  properties:
                    items:
                      type: array
                      description: I.
                      items: {$ref: '#/components/schemas/Item'}
                    names:
                      type: array
                      description: N.
                      items: {type: string}
                Item:
                  type: object
                  description: The item.
                  properties: {}
            """)
        #expect(text.contains("public var items: [Item]?"))
        #expect(text.contains("public var names: [String]?"))
        #expect(text.contains("_ = try decoder.container(keyedBy: AnyCodingKey.self)"))
        #expect(text.contains("_ = encoder.container(keyedBy: AnyCodingKey.self)"))
    }

    @Test func sensitivePropertiesAreRedacted() throws {
        let text = try types(
            """
                Login:
                  type: object
                  description: L.
                  properties:
                    user: {type: string, description: U.}
                    password: {type: string, x-sensitive: true, description: P.}
            """)
        #expect(
            text.contains("extension Login: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {")
        )
        #expect(text.contains("\"password\": RedactedValue(self.password),"))
        #expect(text.contains("\"user\": self.user as Any,"))
    }

    @Test func operationsBecomeTypedMethodsWithPathAndQueryParameters() throws {
        let spec = document(
            schemas: """
                    Body:
                      type: object
                      description: B.
                      properties: {}
                """,
            paths: """

                  /v2/projects/{project}/things/{thing_id}:
                    patch:
                      operationId: updateThing
                      summary: Updates a thing.
                      parameters:
                        - {name: project, in: path, required: true, schema: {type: string}}
                        - {name: thing_id, in: path, required: true, schema: {type: string}}
                        - {name: updateMask, in: query, schema: {type: string}}
                      requestBody:
                        content:
                          application/json:
                            schema: {$ref: '#/components/schemas/Body'}
                      responses:
                        '200':
                          description: ok
                          content:
                            application/json:
                              schema: {$ref: '#/components/schemas/Body'}
                    get:
                      operationId: getThing
                      parameters:
                        - {name: project, in: path, required: true, schema: {type: string}}
                        - {name: thing_id, in: path, required: true, schema: {type: string}}
                      responses:
                        '200':
                          description: ok
                          content:
                            application/json:
                              schema: {$ref: '#/components/schemas/Body'}
                """,
            security: "bearer")
        let outputs = try InMemorySpec(["api.yaml": spec]).generate()
        let clients = outputs[.clients] ?? ""
        #expect(
            clients.contains(
                """
                    public func updateThing(
                        project: String,
                        thingId: String,
                        updateMask: String? = nil,
                        body: Body
                    ) async throws -> Body {
                """))
        #expect(
            clients.contains(
                #"try await executor.send(.patch, path: "/v2/projects/\(APIPath.escape(project))/things/\(APIPath.escape(thingId))", query: [("updateMask", updateMask)], body: body, response: Body.self, errorBody: nil)"#
            ))
        #expect(clients.contains("public func getThing(project: String, thingId: String) async throws -> Body {"))
        #expect(
            clients.contains(
                """
                    public init(
                        accessToken: @escaping @Sendable () async throws -> String,
                        configuration: ClientConfiguration = ClientConfiguration()
                    ) {
                """))
        let completions = outputs[.clientCompletions] ?? ""
        #expect(completions.contains("completion: @escaping @Sendable (Result<Body, any Error>) -> Void"))
        #expect(
            completions.contains(
                "CompletionDelivery.deliver({ try await self.getThing(project: project, thingId: thingId) }, completion: completion)"
            ))
    }

    @Test func facadeKinds() throws {
        let facades = """
            delivery: Deliver.run
            types:
              - name: Box
                methods:
                  - swift: open()
                    completion: open(completion:)
                    objc: openWithCompletion(_:)
                  - swift: close()
                    completion: close(completion:)
                    objc: closeWithCompletion(_:)
                    omittableCompletion: Box's guide calls close() and never waits.
                  - swift: item(at:)
                    static: true
                    throws: false
                    parameters: [{label: at, name: index, type: Int}]
                    returns: String
                    completion: item(at:completion:)
                  - swift: code(for:)
                    kind: sync
                    parameters: [{label: for, name: key, type: String}]
                    returns: String
                    objc: codeForKey(_:)
            """
        let text =
            try InMemorySpec(["f.yaml": facades]).generate([.facades], specs: [], facades: "f.yaml")[.facades] ?? ""
        // Completions are optional, as Firebase's, and have no default: in
        // top-level code `try await open()` can only be the async method.
        #expect(text.contains("public func open(completion: (@Sendable ((any Error)?) -> Void)?) {"), "\(text)")
        #expect(
            text.contains(
                "Deliver.run({ try await self.open() }, completion: { (_: Void?, error: (any Error)?) in completion?(error) })"
            ))
        #expect(text.contains("public func openWithCompletion(_ completion: (@Sendable ((any Error)?) -> Void)?) {"))
        #expect(
            text.contains(
                "public static func item(at index: Int, completion: (@Sendable (String?, (any Error)?) -> Void)?) {"))
        // A method that says why its completion may be left out gets the nil default.
        #expect(text.contains("public func close(completion: (@Sendable ((any Error)?) -> Void)? = nil) {"), "\(text)")
        #expect(
            text.contains("public func closeWithCompletion(_ completion: (@Sendable ((any Error)?) -> Void)? = nil) {"))
        #expect(
            text.contains(
                "Deliver.run({ await Self.item(at: index) }, completion: { value, error in completion?(value, error) })"
            ))
        #expect(text.contains("public func codeForKey(_ key: String) throws -> String {"))
        #expect(text.contains("try self.code(for: key)"))
    }

    /// A module whose types the twins' signatures use is imported `public`;
    /// the others stay internal imports (no "public import not used" warning).
    @Test func facadesImportPublicOnlyTheModulesTheirSignaturesUse() throws {
        let facades = """
            delivery: Deliver.run
            types:
              - name: Box
                methods:
                  - swift: put(_:)
                    parameters: [{label: _, name: value, type: JSONValue}]
                    completion: put(_:completion:)
            """
        let files = InMemorySpec(["f.yaml": facades])
        let config = GeneratorConfig(
            specs: [], facades: "f.yaml", generate: [.facades], accessModifier: "public",
            imports: ["IdentityToolkit", "Logging"], publicImports: ["IdentityToolkit"])
        let text = try SpecCodegen.generate(config: config, baseDirectory: "", readFile: files.reader())[.facades] ?? ""
        #expect(text.contains("public import IdentityToolkit\n") && text.contains("\nimport Logging\n"), "\(text)")
        let wrong = GeneratorConfig(
            specs: [], facades: "f.yaml", generate: [.facades], accessModifier: "public",
            imports: ["Logging"], publicImports: ["IdentityToolkit"])
        #expect(throws: SpecCodegenFailure.self) {
            _ = try SpecCodegen.generate(config: wrong, baseDirectory: "", readFile: files.reader())
        }
    }

    @Test func accessModifierAndUnusedOutputs() throws {
        let config = GeneratorConfig(specs: ["api.yaml"], generate: [.types], accessModifier: "package")
        let outputs = try SpecCodegen.generate(
            config: config, baseDirectory: "",
            readFile: InMemorySpec([
                "api.yaml": document(
                    schemas: """
                            Thing:
                              type: object
                              description: T.
                              properties: {}
                        """)
            ]).reader())
        #expect(outputs[.types]?.contains("package struct Thing: Codable, Hashable, Sendable {") == true)
        #expect(
            outputs[.server]
                == "// Generated by spec-codegen from the spec named in the target's config. Do not edit.\n// Nothing to generate here for this config.\n"
        )
    }

    /// A module gated on a trait gets generated files gated the same way:
    /// each wrapped whole in `#if` the condition; a condition that is not
    /// one identifier is refused rather than written into the code.
    @Test func aCompilationConditionWrapsEveryFile() throws {
        let spec = InMemorySpec([
            "api.yaml": document(
                schemas: """
                        Thing:
                          type: object
                          description: T.
                          properties: {}
                    """)
        ])
        let config = GeneratorConfig(
            specs: ["api.yaml"], generate: [.types], accessModifier: "internal", compilationCondition: "Emulator")
        let outputs = try SpecCodegen.generate(config: config, baseDirectory: "", readFile: spec.reader())
        #expect(outputs.count == OutputFile.allCases.count)
        for (file, text) in outputs {
            #expect(text.hasPrefix("#if Emulator\n") && text.hasSuffix("\n#endif\n"), "\(file)")
            #expect(text.components(separatedBy: "#if Emulator").count == 2)
        }
        #expect(outputs[.types]?.contains("struct Thing: Codable, Hashable, Sendable {") == true)
        for bad in ["Emulator || true", "", "1x", "A\n#error(\"x\")"] {
            let wrong = GeneratorConfig(specs: ["api.yaml"], generate: [.types], compilationCondition: bad)
            #expect(throws: SpecCodegenFailure.self, "\(bad)") {
                _ = try SpecCodegen.generate(config: wrong, baseDirectory: "", readFile: spec.reader())
            }
        }
    }

    @Test func serverModeDeclaresOneRequirementPerOperation() throws {
        let spec = document(
            schemas: """
                    Body:
                      type: object
                      description: B.
                      properties: {}
                """,
            paths: """

                  /v1/token:
                    post:
                      operationId: grant
                      summary: Grants.
                      requestBody:
                        content:
                          application/json:
                            schema: {$ref: '#/components/schemas/Body'}
                          application/x-www-form-urlencoded:
                            schema: {$ref: '#/components/schemas/Body'}
                      responses:
                        '200':
                          description: ok
                          content:
                            application/json:
                              schema: {$ref: '#/components/schemas/Body'}
                """)
        let text = try InMemorySpec(["api.yaml": spec]).generate([.server])[.server] ?? ""
        // Server code is never public API: a public config gives package access.
        #expect(text.contains("package protocol TestService: Sendable {"))
        #expect(!text.contains("public "))
        #expect(text.contains("    func grant(_ body: Body, request: APIServerRequest) async throws -> Body\n"))
        #expect(
            text.contains(
                #"APIServerRoute(operationID: "grant", method: .post, prefix: "/api.example.com", path: "/v1/token", authorization: .apiKey, acceptsFormBody: true) { request in"#
            ))
        #expect(
            text.contains(
                "try await APIServerResponse.json(self.grant(request.decodeBody(Body.self), request: request))"))
    }

    /// `x-emulator-request-body`: the emulator decodes a body of its own
    /// schema for an operation whose production body is not described (the
    /// legacy v3 routes); a client of it would send nothing, so generating
    /// one is an error, as is giving both bodies.
    @Test func emulatorRequestBodiesAreServedButNeverSent() throws {
        let schemas = """
                Selector:
                  type: object
                  description: S.
                  properties:
                    targetProjectId: {type: string, description: P.}
            """
        let paths = """

              /v3/download:
                post:
                  operationId: legacyDownload
                  x-emulator-request-body:
                    content:
                      application/json:
                        schema: {$ref: '#/components/schemas/Selector'}
                  responses: {'200': {description: ok}}
            """
        let spec = InMemorySpec(["api.yaml": document(schemas: schemas, paths: paths)])
        let server = try spec.generate([.server])[.server] ?? ""
        #expect(
            server.contains(
                "    func legacyDownload(_ body: Selector, request: APIServerRequest) async throws -> EmptyResponse\n"),
            "\(server)")
        #expect(
            server.contains("self.legacyDownload(request.decodeBody(Selector.self), request: request)"), "\(server)")
        let clients = spec.failures([.clients])
        #expect(
            clients.contains {
                $0.contains("'legacyDownload' has only an 'x-emulator-request-body', which no client sends")
            }, "\(clients)")
        let both = paths.replacingOccurrences(
            of: "      x-emulator-request-body:",
            with:
                "      requestBody:\n        content:\n          application/json:\n            schema: {$ref: '#/components/schemas/Selector'}\n      x-emulator-request-body:"
        )
        #expect(both != paths)
        let twice = InMemorySpec(["api.yaml": document(schemas: schemas, paths: both)]).failures([.server])
        #expect(
            twice.contains { $0.contains("'legacyDownload' has both 'requestBody' and 'x-emulator-request-body'") },
            "\(twice)")
    }

    /// Spec strings reach the output only as escaped literals or comment
    /// lines: a path with `"` and `\(`, a summary with a carriage return.
    @Test func hostilePathsAndTextAreEscaped() throws {
        let paths = #"""

              '/v1/{default}/x"\(evil)":run':
                post:
                  operationId: run
                  summary: "Line one\r public func injected() {}"
                  parameters:
                    - {name: default, in: path, required: true, schema: {type: string}}
                    - {name: $.xgafv, in: query, schema: {type: string}}
                  responses: {'200': {description: ok}}
            """#
        let spec = document(schemas: "    {}", paths: paths)
        let clients = try InMemorySpec(["api.yaml": spec]).generate([.clients])[.clients] ?? ""
        #expect(clients.contains(#"path: "/v1/\(APIPath.escape(`default`))/x\"\\(evil)\":run""#), "\(clients)")
        #expect(clients.contains(#"query: [("$.xgafv", xgafv)]"#))
        #expect(clients.contains("public func run(`default`: String, xgafv: String? = nil) async throws {"))
        #expect(clients.contains("    /// Line one\n    ///  public func injected() {}\n"))
        #expect(!clients.contains("\r"))
        let server = try InMemorySpec(["api.yaml": spec]).generate([.server])[.server] ?? ""
        #expect(server.contains(#"path: "/v1/{default}/x\"\\(evil)\":run""#))
        #expect(
            server.contains(
                #"self.run(default: request.pathParameter("default"), xgafv: request.queryParameter("$.xgafv"), request: request)"#
            ))
    }

    @Test func formOnlyBodiesAreSentAsForms() throws {
        let paths = postOperation(
            "/token", id: "token", mediaType: "application/x-www-form-urlencoded", ref: "#/components/schemas/Grant")
        let spec = document(
            schemas: """
                    Grant:
                      type: object
                      description: G.
                      properties:
                        grant_type: {type: string, description: G.}
                """, paths: paths)
        let outputs = try InMemorySpec(["api.yaml": spec]).generate([.types, .clients, .server])
        #expect(outputs[.clients]?.contains("formBody: body, response: EmptyResponse.self") == true)
        #expect(outputs[.server]?.contains("acceptsFormBody: true") == true)
    }

    /// `x-enum-varnames` names values that make no Swift name (URLs); a
    /// format-less integer is a JSON number, `format: int64` a proto3 string.
    @Test func enumVarnamesAndPlainIntegers() throws {
        let text = try types(
            """
                Scope:
                  type: string
                  description: S.
                  enum: ['https://example.com/auth/a', 'https://example.com/auth/b']
                  x-enum-varnames: [first, second]
                Times:
                  type: object
                  description: T.
                  required: [iat]
                  properties:
                    iat: {type: integer, description: Seconds.}
                    big: {type: integer, format: int64, description: B.}
            """)
        #expect(text.contains(#"public static let first = Scope(rawValue: "https://example.com/auth/a")"#))
        #expect(text.contains("public static let allKnownValues: [Scope] = [.first, .second]"))
        #expect(text.contains("self.iat = try container.decode(Int64.self, forKey: .iat)"))
        #expect(text.contains("try container.encode(self.iat, forKey: .iat)"))
        #expect(text.contains("self.big = try container.decodeIfPresent(ProtoInt64.self, forKey: .big)?.value"))
        let mismatch = InMemorySpec([
            "api.yaml": document(
                schemas: """
                        Scope:
                          type: string
                          description: S.
                          enum: [a, b]
                          x-enum-varnames: [first]
                    """)
        ]).failures()
        #expect(
            mismatch.contains { $0.contains("'x-enum-varnames' of 'Scope' lists 1 names for 2 values") }, "\(mismatch)")
    }

    /// `x-error-body.detail` joins a separate description to the short code
    /// (RFC 6749's `error` and `error_description`).
    @Test func errorBodyDetail() throws {
        let text = try types(
            """
                OAuthError:
                  type: object
                  description: E.
                  x-error-body: {message: error, detail: error_description, reasons: error}
                  required: [error]
                  properties:
                    error: {type: string, description: E.}
                    error_description: {type: string, description: D.}
            """)
        // The reader is SPI: the generated clients' plumbing, not the types' API.
        #expect(
            text.contains("    @_spi(Generated)\n    public struct ServerErrorReader: ServerErrorBody {"), "\(text)")
        #expect(text.contains("guard let message = Optional(self.body.error) else {"))
        #expect(text.contains("if let detail = self.body.errorDescription {"))
        #expect(text.contains(#"return message + " : " + detail"#))
    }

    /// An `x-emulator-only` API is served at the emulator's root, and its
    /// client goes to the emulator host (else the spec's URL) without a host prefix.
    @Test func emulatorOnlyDocuments() throws {
        let spec = """
            openapi: 3.1.0
            info:
              title: Helpers
              version: "1"
              x-swift-client: HelpersClient
              x-emulator-only: true
            servers:
              - url: http://127.0.0.1:9099
            paths:
              /emulator/v1/ping:
                get:
                  operationId: ping
                  responses: {'200': {description: ok}}
            """
        let outputs = try InMemorySpec(["api.yaml": spec]).generate([.clients, .server])
        #expect(outputs[.clients]?.contains("configuration: configuration, servedAtEmulatorRoot: true)") == true)
        #expect(outputs[.server]?.contains(#"prefix: "", path: "/emulator/v1/ping""#) == true)
    }

    /// Foundation is a public import only where public declarations use its
    /// `Date`: a module built with `InternalImportsByDefault` then needs it,
    /// and an unused public import would be a warning.
    @Test func foundationIsAPublicImportOnlyWhereDatesAre() throws {
        let dated = try types(
            """
                Stamp:
                  type: object
                  description: S.
                  properties:
                    at: {type: string, format: date-time, description: A.}
            """)
        #expect(dated.contains("\npublic import Foundation\n"))
        let plain = try types(
            """
                Name:
                  type: object
                  description: N.
                  properties:
                    name: {type: string, description: N.}
            """)
        #expect(plain.contains("\nimport Foundation\n"))
        #expect(!plain.contains("public import"))
    }

    /// `type: object` with an `additionalProperties` schema on a field is a
    /// map of plain JSON values (an ID token's `identities`); at the top level
    /// it is a `[String: Value]` typealias (a `{kid: certificate}` key set);
    /// anything a map cannot hold is an error.
    @Test func mapsOfPlainValues() throws {
        let text = try types(
            """
                Claims:
                  type: object
                  description: C.
                  required: [identities]
                  properties:
                    identities:
                      type: object
                      description: By provider.
                      additionalProperties: {type: array, items: {type: string}}
                    flags: {type: object, description: F., additionalProperties: {type: boolean}}
            """)
        #expect(text.contains("public var identities: [String: [String]]"))
        #expect(text.contains("public var flags: [String: Bool]?"))
        #expect(text.contains("self.identities = try container.decode([String: [String]].self, forKey: .identities)"))
        let topLevel = try types(
            """
                TopLevelMap:
                  type: object
                  description: T.
                  additionalProperties: {type: string}
            """)
        #expect(topLevel.contains("/// T.\npublic typealias TopLevelMap = [String: String]"), "\(topLevel)")
        let bad = InMemorySpec([
            "api.yaml": document(
                schemas: """
                        Counts:
                          type: object
                          description: C.
                          properties:
                            big: {type: object, description: B., additionalProperties: {type: integer, format: int64}}
                    """)
        ]).failures()
        #expect(
            bad.contains {
                $0.contains(
                    "a map in property 'big' may hold strings, numbers, booleans, arrays of strings or flat objects only"
                )
            }, "\(bad)")
    }

    /// A map may hold flat records (Google's `BlockingFunctionsConfig.triggers`,
    /// a `Trigger` by event); a record with a nested object or an enum is an
    /// error, because a server's checks do not reach inside a map.
    @Test func mapsOfFlatRecords() throws {
        let text = try types(
            """
                Trigger:
                  type: object
                  description: T.
                  properties:
                    functionUri: {type: string, description: U.}
                    updateTime: {type: string, format: date-time, description: W.}
                Config:
                  type: object
                  description: C.
                  properties:
                    triggers: {type: object, description: By event., additionalProperties: {$ref: '#/components/schemas/Trigger'}}
            """)
        #expect(text.contains("public var triggers: [String: Trigger]?"), "\(text)")
        let bad = InMemorySpec([
            "api.yaml": document(
                schemas: """
                        Kind:
                          type: string
                          description: K.
                          enum: [A, B]
                        Record:
                          type: object
                          description: R.
                          properties:
                            kind: {$ref: '#/components/schemas/Kind'}
                        Holder:
                          type: object
                          description: H.
                          properties:
                            records: {type: object, description: By id., additionalProperties: {$ref: '#/components/schemas/Record'}}
                    """)
        ]).failures()
        #expect(
            bad.contains {
                $0.contains(
                    "the map in property 'records' holds 'Record', which must be an object of strings, numbers, booleans and date-times only"
                )
            }, "\(bad)")
    }

    /// `a-api.yaml` with a schema `Shared`, and `b-api.yaml` whose `Holder`
    /// refers to it across documents (with `secondPaths` as its paths).
    func documentsSharingASchema(secondPaths: String? = nil) -> (first: String, second: String) {
        let first = document(
            schemas: """
                    Shared:
                      type: object
                      description: S.
                      properties:
                        name: {type: string, description: N.}
                """, client: "FirstClient")
        let holder = """
                Holder:
                  type: object
                  description: H.
                  properties:
                    shared: {$ref: 'a-api.yaml#/components/schemas/Shared'}
            """
        let second = document(schemas: holder, paths: secondPaths ?? "{}", client: "SecondClient")
        return (first, second)
    }

    /// A document may use another document's schemas (`FILE.yaml#/components/schemas/NAME`),
    /// as the admin API reuses the accounts API's `UserInfo`; they are generated once.
    @Test func referencesIntoAnotherDocumentOfTheConfig() throws {
        let (first, second) = documentsSharingASchema(
            secondPaths: postOperation("/v1/things", id: "postThing", ref: "a-api.yaml#/components/schemas/Shared"))
        let outputs = try InMemorySpec(["a-api.yaml": first, "b-api.yaml": second]).generate([.types, .clients])
        #expect(outputs[.types]?.components(separatedBy: "public struct Shared:").count == 2)
        #expect(outputs[.types]?.contains("public var shared: Shared?") == true)
        #expect(outputs[.clients]?.contains("public func postThing(_ body: Shared) async throws {") == true)
        let missing = InMemorySpec([
            "a-api.yaml": first,
            "b-api.yaml": second.replacingOccurrences(of: "schemas/Shared'", with: "schemas/Missing'"),
        ]).failures()
        #expect(missing.contains { $0.contains("error: unknown reference 'Missing' in 'a-api.yaml'") }, "\(missing)")
    }

    /// `typesFrom` generates the schemas of some specs only (the emulator's
    /// state format), the others read for references: their types are imported.
    @Test func typesFromLimitsTheTypesToSomeSpecs() throws {
        let (first, second) = documentsSharingASchema()
        let files = InMemorySpec(["a-api.yaml": first, "b-api.yaml": second])
        let config = GeneratorConfig(
            specs: ["a-api.yaml", "b-api.yaml"], generate: [.types], accessModifier: "internal",
            typesFrom: ["b-api.yaml"])
        let types = try SpecCodegen.generate(config: config, baseDirectory: "", readFile: files.reader())[.types] ?? ""
        #expect(
            types.contains("struct Holder:") && types.contains("var shared: Shared?")
                && !types.contains("struct Shared:"), "\(types)")
        let unlisted = GeneratorConfig(specs: ["a-api.yaml"], generate: [.types], typesFrom: ["b-api.yaml"])
        #expect(throws: SpecCodegenFailure.self) {
            _ = try SpecCodegen.generate(config: unlisted, baseDirectory: "", readFile: files.reader())
        }
    }

    /// `x-emulator-response-body`: a server answers the emulator's wider
    /// schema (another document's, which a config without a server need not
    /// list), clients still decode the production one, and the wider schema
    /// must carry every production field as it is.
    @Test func theEmulatorsResponseBodyWidensTheProductionAnswer() throws {
        func api(widening name: String) -> String {
            document(
                schemas: """
                        Thing:
                          type: object
                          description: T.
                          properties:
                            name: {type: string, description: N.}
                            count: {type: integer, format: int32, description: C.}
                    """,
                paths: """

                      /v1/things/{id}:
                        get:
                          operationId: getThing
                          parameters:
                            - {name: id, in: path, required: true, description: I., schema: {type: string}}
                          x-emulator-response-body:
                            content:
                              application/json:
                                schema: {$ref: 'z-emulator.yaml#/components/schemas/\(name)'}
                          responses:
                            '200':
                              description: ok
                              content:
                                application/json:
                                  schema: {$ref: '#/components/schemas/Thing'}
                    """)
        }
        let emulator = document(
            schemas: """
                    WideThing:
                      type: object
                      description: W.
                      properties:
                        thingId: {type: string, description: The id.}
                        name: {type: string, description: N.}
                        count: {type: integer, format: int32, description: C.}
                    NarrowThing:
                      type: object
                      description: W.
                      properties:
                        thingId: {type: string, description: The id.}
                        name: {type: string, description: N.}
                    RetypedThing:
                      type: object
                      description: W.
                      properties:
                        name: {type: string, description: N.}
                        count: {type: string, description: C.}
                """, client: "EmulatorFormats")
        let both = ["a-api.yaml", "z-emulator.yaml"]
        let server = try InMemorySpec(["a-api.yaml": api(widening: "WideThing"), "z-emulator.yaml": emulator]).generate(
            [.server], specs: both)
        #expect(
            server[.server]?.contains("func getThing(id: String, request: APIServerRequest) async throws -> WideThing")
                == true, "\(server[.server] ?? "")")
        // The client's config lists no emulator document; its method returns production's type.
        let client = try InMemorySpec(["a-api.yaml": api(widening: "WideThing")]).generate(
            [.types, .clients], specs: ["a-api.yaml"])
        #expect(
            client[.clients]?.contains("public func getThing(id: String) async throws -> Thing") == true,
            "\(client[.clients] ?? "")")
        func failures(_ name: String, specs: [String]) -> [String] {
            do {
                _ = try InMemorySpec(["a-api.yaml": api(widening: name), "z-emulator.yaml": emulator]).generate(
                    [.server], specs: specs)
                return []
            } catch let failure as SpecCodegenFailure {
                return failure.diagnostics.map(\.description)
            } catch { return ["\(error)"] }
        }
        #expect(
            failures("NarrowThing", specs: both).contains {
                $0.contains("must answer every field of 'Thing' as it is: 'count' is missing")
            })
        #expect(failures("RetypedThing", specs: both).contains { $0.contains("'count' has another type") })
        #expect(
            failures("WideThing", specs: ["a-api.yaml"]).contains {
                $0.contains("reference to 'z-emulator.yaml', which is not among the specs of the config")
            })
    }
}
