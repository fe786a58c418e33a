import SpecCodegen
import Testing

/// Every kind of bad spec gives a precise `file:line:column: error: message`
/// and never a crash.
@Suite struct DiagnosticsTests {
    func failures(_ spec: String) -> [String] {
        InMemorySpec(["api.yaml": spec]).failures()
    }

    @Test func malformedYAML() {
        #expect(
            failures("openapi: 3.1.0\ninfo: [title\n") == [
                "api.yaml:3:1: error: malformed YAML: while parsing a flow sequence (from line 2, column 7) did not find expected ',' or ']'"
            ])
    }

    @Test func duplicateKeys() {
        #expect(
            failures("openapi: 3.1.0\nopenapi: 3.1.0\n").first?.hasPrefix(
                "api.yaml:1:1: error: malformed YAML: duplicate key 'openapi'") == true)
    }

    @Test func unknownReference() {
        let spec = document(
            schemas: """
                    Thing:
                      type: object
                      description: T.
                      properties:
                        other: {$ref: '#/components/schemas/Missing'}
                """)
        #expect(failures(spec) == ["api.yaml:20:23: error: unknown reference '#/components/schemas/Missing'"])
    }

    /// `x-strict-reader` takes only what its reader reads as `init(from:)` decodes:
    /// a proto3 number, a date, free JSON or an object without a reader of its own is an error at the field.
    @Test func strictReaderFieldsItCannotRead() {
        let spec = document(
            schemas: """
                    Claims:
                      type: object
                      description: C.
                      x-strict-reader: true
                      properties:
                        fine: {type: string, description: F.}
                        serial: {type: integer, format: int64, description: S.}
                        other: {$ref: '#/components/schemas/Plain'}
                        extra: {type: object, additionalProperties: true, description: E.}
                    Plain:
                      type: object
                      description: P.
                      properties:
                        note: {type: string, description: N.}
                """)
        let rule =
            "must be a string, an integer (no format), a boolean, a string enum, an object schema with 'x-strict-reader', or an array or map of those"
        #expect(
            failures(spec) == [
                "api.yaml:22:17: error: 'Claims' has 'x-strict-reader', so its field 'serial' \(rule)",
                "api.yaml:23:16: error: 'Claims' has 'x-strict-reader', so its field 'other' \(rule)",
                "api.yaml:24:16: error: 'Claims' has 'x-strict-reader', so its field 'extra' \(rule)",
            ])
    }

    /// `x-access: package` hides a wire type from apps: a public type's
    /// field or a client's call cannot use it, and the value is one of two words.
    @Test func packageAccessThatAppsWouldSee() {
        let spec = document(
            schemas: """
                    Hidden:
                      type: object
                      description: H.
                      x-access: package
                      properties:
                        note: {type: string, description: N.}
                    Shown:
                      type: object
                      description: S.
                      properties:
                        inner: {type: array, items: {$ref: '#/components/schemas/Hidden'}, description: I.}
                    Odd:
                      type: string
                      description: O.
                      x-access: private
                      enum: [a]
                """, paths: postOperation("/v1/hidden", id: "sendHidden", ref: "#/components/schemas/Hidden"))
        #expect(
            failures(spec) == [
                "api.yaml:17:28: error: the request body of 'sendHidden' is 'Hidden', which has 'x-access: package': a client's call cannot take or return a type apps cannot name",
                "api.yaml:34:16: error: 'Shown' is public, so its field 'inner' cannot be of 'Hidden', which has 'x-access: package' (give 'Shown' 'x-access: package' too)",
                "api.yaml:38:17: error: 'x-access' of 'Odd' must be 'public' or 'package', found 'private'",
            ])
    }

    @Test func sinceOnARequiredField() {
        let spec = document(
            schemas: """
                    Thing:
                      type: object
                      description: T.
                      required: [added]
                      properties:
                        added: {type: string, x-since: '1.1', description: A.}
                """)
        #expect(
            failures(spec) == [
                "api.yaml:21:31: error: x-since on required property 'added' of 'Thing': only an optional field can be added compatibly"
            ])
    }

    @Test func externalReference() {
        let spec = document(
            schemas: """
                    Thing:
                      type: object
                      description: T.
                      properties:
                        other: {$ref: 'other.yaml#/components/schemas/X'}
                """)
        // Another document of the config may be referenced; one that is not in the config is an error at the reference.
        #expect(
            failures(spec) == [
                "api.yaml:20:23: error: reference to 'other.yaml', which is not among the specs of the config: add it to the config's \"specs\" list"
            ])
        let remote = document(
            schemas: """
                    Thing:
                      type: object
                      description: T.
                      properties:
                        other: {$ref: 'https://example.com/x.yaml#/components/schemas/X'}
                """)
        #expect(
            failures(remote) == [
                "api.yaml:20:23: error: unsupported reference 'https://example.com/x.yaml#/components/schemas/X'; another document is named by a relative path to a .yaml file"
            ])
    }

    /// `validate` of one file resolves its references from the file's own
    /// folder and checks the documents they name, as OpenAPI tools do; a
    /// reference to a file that is not there is an error naming it.
    @Test func validateReadsTheDocumentsAFileReferences() {
        let referencing = """
            openapi: 3.1.0
            info: {title: A, version: '1', description: A., x-swift-client: AClient}
            servers: [{url: 'https://a.example.com'}]
            paths: {}
            components:
              schemas:
                Thing:
                  type: object
                  description: T.
                  properties:
                    other: {$ref: 'shared.yaml#/components/schemas/X'}
            """
        let shared = """
            openapi: 3.1.0
            info: {title: Shared, version: '1', description: S., x-swift-client: SharedClient}
            servers: [{url: 'https://s.example.com'}]
            paths: {}
            components:
              schemas:
                X: {type: object, description: X., properties: {name: {type: string}}}
            """
        let files = InMemorySpec(["specs/a.yaml": referencing, "specs/shared.yaml": shared]).reader()
        #expect(SpecCodegen.validate(files: ["specs/a.yaml"], readFile: files).filter { $0.severity == .error }.isEmpty)
        #expect(
            SpecCodegen.validate(files: ["specs/a.yaml", "specs/shared.yaml"], readFile: files).filter {
                $0.severity == .error
            }.isEmpty)
        let missing = SpecCodegen.validate(
            files: ["specs/a.yaml"], readFile: InMemorySpec(["specs/a.yaml": referencing]).reader())
        #expect(
            missing.map(\.description).contains { $0.hasPrefix("specs/shared.yaml:1:1: error: cannot read the file") },
            "\(missing)")
    }

    @Test func duplicateOperationID() {
        let operation = """
                post:
                  operationId: doIt
                  responses: {'200': {description: ok}}
            """
        let spec = document(schemas: "    {}", paths: "\n  /a:\n\(operation)\n  /b:\n\(operation)")
        #expect(
            failures(spec) == ["api.yaml:16:5: error: duplicate operation id 'doIt' (first defined at api.yaml:12:5)"])
    }

    @Test func unsupportedConstructs() {
        let spec = document(
            schemas: """
                    Thing:
                      type: object
                      description: T.
                      properties:
                        either:
                          oneOf: [{type: string}, {type: integer}]
                        inline:
                          type: object
                          description: I.
                """)
        #expect(
            failures(spec) == [
                "api.yaml:21:11: error: unsupported schema construct 'oneOf' in property 'either' of 'Thing'",
                "api.yaml:23:17: error: unsupported schema construct: inline object in property 'inline' of 'Thing'; define it under components/schemas and use $ref",
            ])
    }

    @Test func commaInAnUnquotedFlowDescription() {
        let spec = document(
            schemas: """
                    Thing:
                      type: object
                      description: T.
                      properties:
                        name: {type: string, description: The name, as typed.}
                """)
        #expect(
            failures(spec) == [
                "api.yaml:20:53: error: unknown schema keyword 'as typed.' in property 'name' of 'Thing' (quote descriptions that contain ': ' or ',')"
            ])
    }

    @Test func missingClientNameAndUndeclaredPathParameter() {
        let spec = """
            openapi: 3.1.0
            info: {title: T, version: "1"}
            servers: [{url: https://x.example.com}]
            paths:
              /v1/things/{id}:
                get:
                  operationId: getThing
                  responses: {'200': {description: ok}}
            """
        #expect(
            failures(spec) == [
                "api.yaml:2:7: error: 'info' of the OpenAPI document is missing 'x-swift-client'",
                "api.yaml:7:7: error: path parameter '{id}' of GET /v1/things/{id} is not declared",
            ])
    }

    @Test func requiredFieldThatIsNoProperty() {
        let spec = document(
            schemas: """
                    Thing:
                      type: object
                      description: T.
                      required: [nope]
                      properties: {}
                """)
        #expect(failures(spec) == ["api.yaml:19:7: error: required field 'nope' is not a property of 'Thing'"])
    }

    @Test func badFacadeEntries() {
        let facades = """
            delivery: D.run
            types:
              - name: Box
                methods:
                  - swift: open(with:)
                    parameters: [{label: at, name: x, type: Int}]
                    completion: open(with:completion:)
                  - swift: close()
                    objc: closeNow(_:)
                  - swift: not a name
                    completion: x(completion:)
                  - swift: peek()
                    kind: sync
                    objc: peek(_:)
                    colour: red
            """
        #expect(
            InMemorySpec(["f.yaml": facades]).failures([.facades], facades: "f.yaml") == [
                "f.yaml:5:9: error: the labels of method 'open(with:)' of 'Box' do not match its parameters (at:)",
                "f.yaml:8:9: error: async method 'close()' of 'Box' needs a 'completion' name",
                "f.yaml:10:16: error: 'swift' of a method of 'Box' must be a Swift function name like 'name(label:_:)', found 'not a name'",
                "f.yaml:14:9: error: Objective-C name 'peek(_:)' of method 'peek()' of 'Box' must take 0 arguments",
                "f.yaml:15:9: error: unknown key 'colour' in a method of 'Box'",
            ])
    }

    @Test func badErrorTables() {
        let errors = """
            domain: D
            fallback: {unknownServerCode: a, transportFailure: a, undecodableResponse: zz}
            codes:
              - {name: a, code: 1, userInfoName: ERROR_A, description: A.}
              - {name: b, code: 1, userInfoName: ERROR_B, description: B.}
            serverCodes:
              - {server: X, code: c}
            """
        #expect(
            InMemorySpec(["e.yaml": errors]).failures([.errorCodes], errors: "e.yaml", errorType: "E") == [
                "e.yaml:2:11: error: fallback names unknown error code 'zz'",
                "e.yaml:5:5: error: raw value 1 of 'b' is already used by 'a'",
                "e.yaml:7:5: error: server code 'X' maps to unknown error code 'c'",
            ])
    }

    @Test func garbageNeverCrashes() {
        for text in [
            "", "[]", "openapi: [", "\u{0}\u{1}", "openapi: 3.1.0", "openapi: 2.0\ninfo: 5\npaths: []", "a: &x [*x]",
            "openapi: 3.1.0\npaths:\n  /x:\n    get: 7",
            "openapi: 3.1.0\ncomponents:\n  schemas:\n    A: {type: [string, null]}",
        ] {
            #expect(!failures(text).isEmpty, "\(text.debugDescription) should fail")
        }
    }

    @Test func validateClassifiesFiles() {
        let diagnostics = SpecCodegen.validate(
            files: ["x.yaml"], readFile: InMemorySpec(["x.yaml": "hello: world"]).reader())
        #expect(
            diagnostics.map(\.description) == [
                "x.yaml:1:1: error: not a spec file: expected an OpenAPI document ('openapi'), an errors file ('codes') or a facades file ('types')"
            ])
    }

    /// A dangling `$ref` in a request body or a response is reported at the
    /// reference itself, not at the operation.
    @Test func danglingBodyReferenceIsReportedAtTheReference() {
        let paths = postOperation("/a", id: "doIt", ref: "#/components/schemas/Missing")
        #expect(
            failures(document(schemas: "    {}", paths: paths)) == [
                "api.yaml:17:28: error: unknown reference '#/components/schemas/Missing' in the request body of 'doIt'"
            ])
    }

    /// Names that cannot become Swift are errors at their own line, never broken output.
    @Test func namesThatCannotBecomeSwift() {
        let paths = """

              /a/{$}:
                get:
                  operationId: do-it
                  responses: {'200': {description: ok}}
              /b/{x}:
                get:
                  operationId: fine
                  parameters:
                    - {name: x, in: path, required: true, schema: {type: string}}
                    - {name: self, in: query, schema: {type: string}}
                    - {name: "$", in: query, schema: {type: string}}
                  responses: {'200': {description: ok}}
            """
        let spec = document(
            schemas: """
                    Type:
                      type: object
                      description: T.
                    Thing:
                      type: object
                      description: T.
                      properties:
                        naïve: {type: string, description: N.}
                        self: {type: string, description: S.}
                        ok: {type: string, x-swift-name: "bad name", description: O.}
                    Mood:
                      type: string
                      description: M.
                      enum: [HAPPY, "é"]
                """, paths: paths)
        let found = failures(spec)
        for expected in [
            "error: operationId 'do-it' cannot become a Swift name",
            "error: the Swift form of parameter 'self' 'self' would clash with a name the generated code uses; set 'x-swift-name'",
            "error: the Swift form of parameter '$' '' cannot become a Swift name (ASCII letters, digits and '_', not starting with a digit); set 'x-swift-name'",
            "error: schema name 'Type' cannot name a generated type",
            "error: the Swift form of property 'naïve' of 'Thing' 'naïve' cannot become a Swift name",
            "error: the Swift form of property 'self' of 'Thing' 'self' would clash",
            "error: x-swift-name of property 'ok' of 'Thing' 'bad name' cannot become a Swift name",
            "error: the Swift form of enum value 'é' of 'Mood' 'é' cannot become a Swift name",
        ] {
            #expect(found.contains { $0.contains(expected) }, "missing: \(expected)\nin: \(found)")
        }
        #expect(found.allSatisfy { $0.hasPrefix("api.yaml:") }, "\(found)")
    }

    /// A form body can only carry scalars; the spec says which content it takes.
    @Test func formBodiesMustBeFlat() {
        let paths =
            postOperation(
                "/token", id: "token", mediaType: "application/x-www-form-urlencoded",
                ref: "#/components/schemas/Nested")
            + postOperation("/xml", id: "xml", mediaType: "application/xml", ref: "#/components/schemas/Inner")
        let spec = document(
            schemas: """
                    Nested:
                      type: object
                      description: N.
                      properties:
                        inner: {$ref: '#/components/schemas/Inner'}
                        list: {type: array, items: {type: string}, description: L.}
                    Inner:
                      type: object
                      description: I.
                """, paths: paths)
        let found = failures(spec)
        #expect(
            found.contains {
                $0.contains(
                    "'Nested' is sent as a form in 'token', so its field 'inner' must be a string, an integer or a string enum"
                )
            }, "\(found)")
        #expect(
            found.contains { $0.contains("'Nested' is sent as a form in 'token', so its field 'list' must be") },
            "\(found)")
        #expect(
            found.contains {
                $0.contains(
                    "request body of 'xml' has content 'application/xml'; only 'application/json' and 'application/x-www-form-urlencoded' are supported"
                )
            }, "\(found)")
    }

    /// Map schemas hold plain values and are responses only.
    @Test func mapSchemasAreChecked() {
        let spec = document(
            schemas: """
                    Holder:
                      type: object
                      description: H.
                      properties:
                        x: {type: string}
                    Nested:
                      type: object
                      description: A map of objects.
                      additionalProperties: {$ref: '#/components/schemas/Holder'}
                    Plain:
                      type: object
                      description: A map of strings.
                      additionalProperties: {type: string}
                """, paths: postOperation("/v1/things:put", id: "putThing", ref: "#/components/schemas/Plain"))
        let found = InMemorySpec(["api.yaml": spec]).failures()
        #expect(
            found.contains {
                $0.contains("the map 'Nested' may hold strings, numbers, booleans or arrays of strings only")
            }, "\(found)")
        #expect(
            found.contains {
                $0.contains("the request body of 'putThing' must be an object schema with properties, 'Plain' is a map")
            }, "\(found)")
    }

    /// Facade names and types are checked too: no literal, comment or
    /// statement can ride in on a type.
    @Test func facadeNamesAndTypesAreChecked() {
        let facades = """
            delivery: "Deliver.run(); evil()"
            types:
              - name: Shelf
                methods:
                  - swift: widget(named:)
                    parameters:
                      - {label: named, name: name, type: "String\\\" + \\\"x"}
                    returns: "String /* x */"
                    completion: widget(named:completion:)
            """
        let found = InMemorySpec(["api.yaml": document(schemas: "    {}"), "facades.yaml": facades]).failures(
            [.facades], facades: "facades.yaml")
        #expect(found.contains { $0.contains("'delivery' 'Deliver.run(); evil()' must be a Swift name") }, "\(found)")
        #expect(
            found.contains { $0.contains("parameter type 'String") && $0.contains("is not a Swift type") }, "\(found)")
        #expect(found.contains { $0.contains("'returns' 'String /* x */' is not a Swift type") }, "\(found)")
    }

    /// A completion may lose its place in a call only for a stated reason, and
    /// only where a completion is optional and there is one.
    @Test func anOmittableCompletionNeedsAReasonAndAnOptionalCompletion() {
        let blank = """
            delivery: Deliver.run
            types:
              - name: Box
                methods:
                  - swift: open()
                    completion: open(completion:)
                    omittableCompletion: "  "
                  - swift: code()
                    kind: sync
                    returns: String
                    objc: codeValue()
                    omittableCompletion: a reason
            """
        let found = InMemorySpec(["api.yaml": document(schemas: "    {}"), "facades.yaml": blank]).failures(
            [.facades], facades: "facades.yaml")
        #expect(
            found.contains { $0.contains("'omittableCompletion' of method 'open()' of 'Box' must say why") }, "\(found)"
        )
        #expect(
            found.contains { $0.contains("sync method 'code()' of 'Box' has no completion to leave out") }, "\(found)")
        let required = """
            delivery: Deliver.run
            optionalCompletions: false
            types:
              - name: Box
                methods:
                  - swift: open()
                    completion: open(completion:)
                    omittableCompletion: a reason
            """
        let refused = InMemorySpec(["api.yaml": document(schemas: "    {}"), "facades.yaml": required]).failures(
            [.facades], facades: "facades.yaml")
        #expect(
            refused.contains { $0.contains("'omittableCompletion' of 'open()' needs 'optionalCompletions: true'") },
            "\(refused)")
    }
}
