import Foundation

/// Reads the subset of OpenAPI 3.1 the generator supports into `APIDocument`.
///
/// Anything outside that subset (composition keywords, inline object schemas,
/// external references, non-JSON bodies) is reported with its location rather
/// than silently skipped, so a spec change can never drop a field unnoticed.
struct OpenAPIParser {
    let diagnostics: DiagnosticCollector
    /// The `$ref`s into other documents met while parsing, collected for the validator.
    private let externals = ExternalReferenceCollector()

    private final class ExternalReferenceCollector {
        var file = ""
        var references: [ExternalReference] = []
        var serverReferences: [ExternalReference] = []
        /// Whether the references met now are read by servers only.
        var collectingServerOnly = false
    }

    init(diagnostics: DiagnosticCollector) {
        self.diagnostics = diagnostics
    }

    static let httpMethods = ["get", "put", "post", "delete", "patch"]
    static let unsupportedSchemaKeywords = [
        "oneOf", "anyOf", "allOf", "not", "additionalProperties", "patternProperties", "if", "then", "else",
        "discriminator", "prefixItems", "const", "nullable",
    ]

    /// Keywords a property schema may carry; anything else (often a typo, or a
    /// comma inside an unquoted flow-style description) is an error.
    static let knownSchemaKeywords: Set<String> = [
        "type", "format", "description", "items", "$ref", "enum", "default", "example", "examples", "title",
        "readOnly", "writeOnly", "deprecated", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
        "minLength", "maxLength", "pattern", "minItems", "maxItems", "uniqueItems", "multipleOf", "required",
        "properties", "externalDocs", "$comment",
    ]

    func parse(_ root: YAMLValue) -> APIDocument? {
        guard let reader = MappingReader(root, context: "the OpenAPI document", diagnostics: diagnostics) else {
            return nil
        }
        let file = root.file
        externals.file = file
        externals.references = []
        externals.serverReferences = []
        if let version = reader.string("openapi", required: true), !version.hasPrefix("3.") {
            diagnostics.error(
                "unsupported OpenAPI version '\(version)'; expected 3.x",
                at: reader.raw("openapi")?.location ?? reader.location)
        }
        var title = ""
        var description: String?
        var clientName = SwiftName.placeholder
        var emulatorOnly = false
        if let info = reader.mapping("info", required: true) {
            title = info.string("title", required: true) ?? ""
            description = info.string("description")
            emulatorOnly = info.bool("x-emulator-only") ?? false
            if let name = info.string("x-swift-client", required: true),
                let checked = Naming.identifier(
                    name, "'x-swift-client'", role: .type, at: info.raw("x-swift-client")?.location ?? info.location,
                    diagnostics: diagnostics)
            {
                clientName = checked
            }
        }
        var serverURL = ""
        if let servers = reader.list("servers", required: true) {
            if let first = servers.first,
                let server = MappingReader(first, context: "a server", diagnostics: diagnostics)
            {
                if let url = server.string("url", required: true) {
                    if url.hasPrefix("https://") || url.hasPrefix("http://") {
                        serverURL = url.hasSuffix("/") ? String(url.dropLast()) : url
                    } else {
                        diagnostics.error(
                            "server url must be absolute (https://…), found '\(url)'",
                            at: server.raw("url")?.location ?? server.location)
                    }
                }
            } else if servers.isEmpty {
                diagnostics.error(
                    "'servers' must name the production URL", at: reader.keyLocation("servers") ?? reader.location)
            }
        }
        let components = reader.mapping("components")
        let securitySchemes = components?.mapping("securitySchemes")
        let security = parseSecurity(
            reader.list("security"), schemes: securitySchemes, at: reader.keyLocation("security") ?? reader.location)
        let parameterComponents = components?.mapping("parameters")
        let responseComponents = components?.mapping("responses")

        var operations: [Operation] = []
        if let paths = reader.mapping("paths", required: true) {
            for path in paths.keys {
                guard let item = paths.mapping(path) else { continue }
                operations += parsePathItem(
                    path, item, parameterComponents: parameterComponents, responseComponents: responseComponents)
            }
        }
        var schemas: [Schema] = []
        if let schemaComponents = components?.mapping("schemas") {
            for name in schemaComponents.keys {
                guard let node = schemaComponents.raw(name) else { continue }
                guard
                    let swiftName = Naming.identifier(
                        name, "schema name", role: .type, at: schemaComponents.keyLocation(name) ?? node.location,
                        diagnostics: diagnostics)
                else { continue }
                if let schema = parseSchema(swiftName, node) { schemas.append(schema) }
            }
        }
        return APIDocument(
            file: file, title: title, description: description, clientName: clientName, serverURL: serverURL,
            emulatorOnly: emulatorOnly,
            security: security, operations: operations, schemas: schemas, externalReferences: externals.references,
            serverReferences: externals.serverReferences
        )
    }

    private func parseSecurity(_ requirements: [YAMLValue]?, schemes: MappingReader?, at location: SourceLocation)
        -> SecurityKind
    {
        guard let requirements, let first = requirements.first else { return .none }
        if requirements.count > 1 {
            diagnostics.error("only one security requirement per document is supported", at: requirements[1].location)
        }
        guard let requirement = first.mappingEntries, requirement.count == 1, let name = requirement.first?.key else {
            diagnostics.error("a security requirement must name exactly one scheme", at: first.location)
            return .none
        }
        guard let scheme = schemes?.mapping(name) else {
            diagnostics.error("unknown security scheme '\(name)'", at: first.location)
            return .none
        }
        let type = scheme.string("type", required: true)
        switch type {
        case "apiKey":
            let place = scheme.string("in", required: true)
            let parameter = scheme.string("name", required: true) ?? "key"
            guard place == "query" else {
                diagnostics.error(
                    "only API keys in the query are supported, found in '\(place ?? "")'", at: scheme.location)
                return .none
            }
            return .apiKeyQuery(name: parameter)
        case "http":
            guard scheme.string("scheme")?.lowercased() == "bearer" else {
                diagnostics.error("only the http 'bearer' scheme is supported", at: scheme.location)
                return .none
            }
            return .bearer
        default:
            diagnostics.error("unsupported security scheme type '\(type ?? "")'", at: scheme.location)
            return .none
        }
    }

    private func parsePathItem(
        _ path: String, _ item: MappingReader, parameterComponents: MappingReader?, responseComponents: MappingReader?
    ) -> [Operation] {
        if item.has("$ref") {
            diagnostics.error("path item references are not supported", at: item.keyLocation("$ref") ?? item.location)
        }
        let shared = (item.list("parameters") ?? []).compactMap { parseParameter($0, components: parameterComponents) }
        var operations: [Operation] = []
        for method in Self.httpMethods {
            guard let operation = item.mapping(method) else { continue }
            guard let operationID = operation.string("operationId", required: true),
                let id = Naming.identifier(
                    operationID, "operationId", at: operation.raw("operationId")?.location ?? operation.location,
                    diagnostics: diagnostics)
            else { continue }
            var parameters = shared
            for parameter in (operation.list("parameters") ?? []).compactMap({
                parseParameter($0, components: parameterComponents)
            }) {
                parameters.removeAll { $0.0 == parameter.0 && $0.1.name == parameter.1.name }
                parameters.append(parameter)
            }
            let pathNames = Self.templateNames(in: path)
            let declaredPath = parameters.filter { $0.0 == "path" }.map(\.1)
            for name in pathNames where !declaredPath.contains(where: { $0.name == name }) {
                diagnostics.error(
                    "path parameter '{\(name)}' of \(method.uppercased()) \(path) is not declared",
                    at: operation.location)
            }
            for parameter in declaredPath where !pathNames.contains(parameter.name) {
                diagnostics.error(
                    "path parameter '\(parameter.name)' does not appear in '\(path)'", at: operation.location)
            }
            var requestBody: SchemaReference?
            var bodyEncoding = BodyEncoding.json
            if let body = operation.mapping("requestBody") {
                (requestBody, bodyEncoding) = requestBodyReference(body, what: "request body of '\(id)'")
            }
            var emulatorRequestBody: SchemaReference?
            if let body = operation.mapping("x-emulator-request-body") {
                let encoding: BodyEncoding
                (emulatorRequestBody, encoding) = requestBodyReference(
                    body, what: "'x-emulator-request-body' of '\(id)'")
                if requestBody != nil {
                    diagnostics.error(
                        "'\(id)' has both 'requestBody' and 'x-emulator-request-body'; the emulator's body is for operations whose production body is not described",
                        at: operation.keyLocation("x-emulator-request-body") ?? operation.location)
                }
                if encoding != .json {
                    diagnostics.error(
                        "'x-emulator-request-body' of '\(id)' must be JSON only",
                        at: operation.keyLocation("x-emulator-request-body") ?? operation.location)
                }
            }
            var emulatorResponse: SchemaReference?
            if let body = operation.mapping("x-emulator-response-body") {
                externals.collectingServerOnly = true
                emulatorResponse = jsonSchemaReference(body, what: "'x-emulator-response-body' of '\(id)'")
                externals.collectingServerOnly = false
            }
            var response: SchemaReference?
            var responseHeaders: [String] = []
            var errorResponse: SchemaReference?
            var respondsWithHTML = false
            if let responses = operation.mapping("responses", required: true) {
                for code in responses.keys {
                    guard var responseNode = responses.raw(code) else { continue }
                    if let resolved = resolveComponent(responseNode, kind: "responses", in: responseComponents) {
                        responseNode = resolved
                    } else if responseNode.mappingEntries?.contains(where: { $0.key == "$ref" }) == true {
                        continue
                    }
                    guard
                        let reader = MappingReader(
                            responseNode, context: "response '\(code)' of '\(id)'", diagnostics: diagnostics)
                    else { continue }
                    if code.hasPrefix("2") {
                        if response != nil {
                            diagnostics.error(
                                "'\(id)' has more than one success response",
                                at: responses.keyLocation(code) ?? reader.location)
                        }
                        if let html = reader.mapping("content")?.mapping(Self.htmlMediaType) {
                            // A page for a browser (the emulator's action links): text, not a model.
                            respondsWithHTML = true
                            if operation.has("requestBody"),
                                operation.mapping("requestBody")?.mapping("content")?.keys != [Self.formMediaType]
                            {
                                diagnostics.error(
                                    "'\(id)' answers with a page; such an operation takes no request body but a form (`\(Self.formMediaType)`)",
                                    at: html.location)
                            }
                            if html.mapping("schema")?.string("type") != "string"
                                || reader.mapping("content")?.keys.count != 1
                            {
                                diagnostics.error(
                                    "response '\(code)' of '\(id)' with '\(Self.htmlMediaType)' content must have that content only, with a `type: string` schema",
                                    at: html.location)
                            }
                        } else {
                            response =
                                reader.has("content")
                                ? jsonSchemaReference(reader, what: "response '\(code)' of '\(id)'") : nil
                        }
                        responseHeaders = reader.mapping("headers")?.keys ?? []
                        if !responseHeaders.isEmpty, operation.has("requestBody") {
                            diagnostics.error(
                                "'\(id)' declares response headers; they are supported on operations without a request body only",
                                at: reader.keyLocation("headers") ?? reader.location)
                        }
                    } else if code == "default" {
                        errorResponse =
                            reader.has("content") ? jsonSchemaReference(reader, what: "error response of '\(id)'") : nil
                    }
                }
            }
            // Operation-level security: only `security: []` (open to all), an
            // exception to the document's requirement.
            var isOpen = false
            if let security = operation.raw("security") {
                if security.sequenceItems?.isEmpty == true {
                    isOpen = true
                } else {
                    diagnostics.error(
                        "an operation's 'security' may only be [] (served without the document's authorization)",
                        at: security.location)
                }
            }
            let aliases = operation.stringList("x-server-aliases") ?? []
            for alias in aliases
            where !alias.hasPrefix("/") || alias.contains("{") || alias.contains("?") || alias.contains(" ") {
                diagnostics.error(
                    "'x-server-aliases' of '\(id)': '\(alias)' must be a full path starting with '/', without parameters",
                    at: operation.keyLocation("x-server-aliases") ?? operation.location)
            }
            if !aliases.isEmpty, !parameters.filter({ $0.0 == "path" }).isEmpty {
                diagnostics.error(
                    "'x-server-aliases' of '\(id)': an operation with path parameters cannot have aliases",
                    at: operation.keyLocation("x-server-aliases") ?? operation.location)
            }
            if emulatorResponse != nil, response == nil || respondsWithHTML {
                diagnostics.error(
                    "'x-emulator-response-body' of '\(id)' widens a JSON success response, which '\(id)' does not have",
                    at: operation.keyLocation("x-emulator-response-body") ?? operation.location)
            }
            operations.append(
                Operation(
                    id: id, method: method.uppercased(), path: path,
                    summary: operation.string("summary") ?? operation.string("description"),
                    pathParameters: parameters.filter { $0.0 == "path" }.map(\.1),
                    queryParameters: parameters.filter { $0.0 == "query" }.map(\.1),
                    requestBody: requestBody, emulatorRequestBody: emulatorRequestBody, bodyEncoding: bodyEncoding,
                    response: response, emulatorResponse: emulatorResponse, responseHeaders: responseHeaders,
                    errorResponse: errorResponse,
                    respondsWithHTML: respondsWithHTML, isOpen: isOpen, serverAliases: aliases,
                    location: item.keyLocation(method) ?? operation.location
                )
            )
        }
        return operations
    }

    static func templateNames(in path: String) -> [String] {
        var names: [String] = []
        var current: String?
        for character in path {
            if character == "{" {
                current = ""
            } else if character == "}", let name = current {
                names.append(name)
                current = nil
            } else if current != nil {
                current?.append(character)
            }
        }
        return names
    }

    /// Resolves `$ref: '#/components/KIND/NAME'`; nil when the node is no reference.
    private func resolveComponent(_ node: YAMLValue, kind: String, in components: MappingReader?) -> YAMLValue? {
        guard let entries = node.mappingEntries, let ref = entries.first(where: { $0.key == "$ref" }) else {
            return nil
        }
        let prefix = "#/components/\(kind)/"
        guard let target = ref.value.scalar, target.hasPrefix(prefix) else {
            diagnostics.error(
                "unsupported reference '\(ref.value.scalar ?? "")'; expected '\(prefix)NAME'", at: ref.value.location)
            return nil
        }
        guard let resolved = components?.raw(String(target.dropFirst(prefix.count))) else {
            diagnostics.error("unknown reference '\(target)'", at: ref.value.location)
            return nil
        }
        return resolved
    }

    private func parseParameter(_ node: YAMLValue, components: MappingReader?) -> (String, Parameter)? {
        let resolved = resolveComponent(node, kind: "parameters", in: components)
        if resolved == nil, node.mappingEntries?.contains(where: { $0.key == "$ref" }) == true { return nil }
        guard let reader = MappingReader(resolved ?? node, context: "a parameter", diagnostics: diagnostics) else {
            return nil
        }
        guard let name = reader.string("name", required: true), let place = reader.string("in", required: true) else {
            return nil
        }
        guard place == "path" || place == "query" else {
            diagnostics.error(
                "parameter '\(name)' is in '\(place)'; only path and query parameters are supported",
                at: reader.location)
            return nil
        }
        var valueType = Parameter.ValueType.string
        if let schema = reader.mapping("schema"), let type = schema.string("type"), type != "string" {
            switch (type, schema.string("format")) {
            case ("integer", "int32"): valueType = .int32
            case ("integer", "int64"), ("integer", nil): valueType = .int64
            default:
                diagnostics.error(
                    "parameter '\(name)' has type '\(type)'\(schema.string("format").map { " (format '\($0)')" } ?? ""); only string and integer (int32, int64) parameters are supported",
                    at: schema.location)
            }
        }
        let required = reader.bool("required") ?? false
        if place == "path" && valueType != .string {
            diagnostics.error("path parameter '\(name)' must be a string", at: reader.location)
        }
        if place == "path" && !required {
            diagnostics.error("path parameter '\(name)' must be required", at: reader.location)
        }
        let clientRequired = reader.bool("x-client-required") ?? false
        if clientRequired && (place != "query" || required || valueType != .string) {
            diagnostics.error(
                "x-client-required on parameter '\(name)': only an optional string query parameter can be required by the client alone",
                at: reader.raw("x-client-required")?.location ?? reader.location)
        }
        let explicit = reader.string("x-swift-name")
        guard
            let swiftName = Naming.identifier(
                explicit ?? Naming.camelCase(name),
                explicit == nil ? "the Swift form of parameter '\(name)'" : "x-swift-name of parameter '\(name)'",
                role: .member,
                at: reader.raw("x-swift-name")?.location ?? reader.keyLocation("name") ?? reader.location,
                diagnostics: diagnostics)
        else { return nil }
        return (
            place,
            Parameter(
                name: name, swiftName: swiftName, required: required, description: reader.string("description"),
                valueType: valueType,
                clientRequired: clientRequired)
        )
    }

    static let jsonMediaType = "application/json"
    static let htmlMediaType = "text/html"
    static let formMediaType = "application/x-www-form-urlencoded"

    /// A request body: its schema, and whether it is JSON, a form or either.
    /// A form body has the same schema as JSON would (flat, scalar fields).
    private func requestBodyReference(_ holder: MappingReader, what: String) -> (SchemaReference?, BodyEncoding) {
        guard let content = holder.mapping("content", required: true) else { return (nil, .json) }
        let json = content.has(Self.jsonMediaType)
        let form = content.has(Self.formMediaType)
        for mediaType in content.keys where mediaType != Self.jsonMediaType && mediaType != Self.formMediaType {
            diagnostics.error(
                "\(what) has content '\(mediaType)'; only '\(Self.jsonMediaType)' and '\(Self.formMediaType)' are supported",
                at: content.keyLocation(mediaType) ?? content.location)
        }
        let encoding: BodyEncoding = json ? (form ? .jsonOrForm : .json) : .form
        let reference = schemaReference(holder, mediaType: json ? Self.jsonMediaType : Self.formMediaType, what: what)
        if json && form, let formReference = schemaReference(holder, mediaType: Self.formMediaType, what: what),
            formReference.name != reference?.name
        {
            diagnostics.error("the form and JSON forms of \(what) must use the same schema", at: formReference.location)
        }
        return (reference, encoding)
    }

    /// The schema behind `content: application/json: schema: $ref`.
    private func jsonSchemaReference(_ holder: MappingReader, what: String) -> SchemaReference? {
        schemaReference(holder, mediaType: Self.jsonMediaType, what: what)
    }

    private func schemaReference(_ holder: MappingReader, mediaType: String, what: String) -> SchemaReference? {
        if holder.has("$ref") {
            diagnostics.error(
                "references to request bodies are not supported in \(what)",
                at: holder.keyLocation("$ref") ?? holder.location)
            return nil
        }
        guard let content = holder.mapping("content", required: true) else { return nil }
        guard let body = content.mapping(mediaType) else {
            diagnostics.error("\(what) has no '\(mediaType)' content", at: content.location)
            return nil
        }
        guard let schema = body.raw("schema") else {
            diagnostics.error("\(what) has no schema", at: body.location)
            return nil
        }
        guard let entries = schema.mappingEntries, let ref = entries.first(where: { $0.key == "$ref" }) else {
            diagnostics.error("\(what) must reference a component schema with $ref", at: schema.location)
            return nil
        }
        guard let text = ref.value.scalar, let name = schemaName(fromReference: text, at: ref.value.location) else {
            return nil
        }
        return SchemaReference(name: name, location: ref.value.location)
    }

    /// The schema a `$ref` names, checked as a Swift type name at the
    /// reference: `#/components/schemas/NAME` in this document, or
    /// `FILE.yaml#/components/schemas/NAME` in another document of the config.
    private func schemaName(fromReference ref: String, at location: SourceLocation) -> SwiftName? {
        let prefix = "#/components/schemas/"
        guard let hash = ref.firstIndex(of: "#"), ref[hash...].hasPrefix(prefix) else {
            diagnostics.error(
                "unsupported reference '\(ref)'; expected '\(prefix)NAME' or 'FILE.yaml\(prefix)NAME'", at: location)
            return nil
        }
        let file = String(ref[..<hash])
        guard
            let name = Naming.identifier(
                String(ref[hash...].dropFirst(prefix.count)), "referenced schema name", role: .type, at: location,
                diagnostics: diagnostics)
        else {
            return nil
        }
        if !file.isEmpty {
            guard file.hasSuffix(".yaml") || file.hasSuffix(".yml"), !file.contains("://") else {
                diagnostics.error(
                    "unsupported reference '\(ref)'; another document is named by a relative path to a .yaml file",
                    at: location)
                return nil
            }
            let folder = (externals.file as NSString).deletingLastPathComponent
            let reference = ExternalReference(
                file: SpecCodegen.normalize(folder.isEmpty ? file : folder + "/" + file), name: name, location: location
            )
            if externals.collectingServerOnly {
                externals.serverReferences.append(reference)
            } else {
                externals.references.append(reference)
            }
        }
        return name
    }

    private func parseSchema(_ name: SwiftName, _ node: YAMLValue) -> Schema? {
        guard var schema = parseSchemaKind(name, node) else { return nil }
        if let reader = MappingReader(node, context: "schema '\(name)'", diagnostics: diagnostics),
            let access = reader.string("x-access")
        {
            switch access {
            case "package": schema.packageOnly = true
            case "public": schema.packageOnly = false
            default:
                diagnostics.error(
                    "'x-access' of '\(name)' must be 'public' or 'package', found '\(access)'",
                    at: reader.raw("x-access")?.location ?? reader.location)
            }
        }
        return schema
    }

    private func parseSchemaKind(_ name: SwiftName, _ node: YAMLValue) -> Schema? {
        guard let reader = MappingReader(node, context: "schema '\(name)'", diagnostics: diagnostics) else {
            return nil
        }
        rejectUnsupportedKeywords(reader, owner: "schema '\(name)'", allowsMap: true)
        let description = reader.string("description")
        let type = reader.string("type", required: true)
        // An object without properties whose values share one schema: a map.
        if type == "object", !reader.has("properties"), let values = reader.mapping("additionalProperties") {
            guard let value = parseType(values, owner: "values of schema '\(name)'") else { return nil }
            return Schema(
                name: name, description: description, kind: .map(value: value), errorBody: nil, location: node.location)
        }
        switch type {
        case "object":
            var properties: [Property] = []
            let required = Set(reader.stringList("required") ?? [])
            if let propertyReader = reader.mapping("properties") {
                for wireName in propertyReader.keys {
                    guard let propertyNode = propertyReader.raw(wireName) else { continue }
                    if let property = parseProperty(
                        wireName, propertyNode, required: required.contains(wireName), owner: name)
                    {
                        if properties.contains(where: { $0.swiftName == property.swiftName }) {
                            diagnostics.error(
                                "properties of '\(name)' clash on the Swift name '\(property.swiftName)'",
                                at: property.location)
                        }
                        properties.append(property)
                    }
                }
            }
            for field in required.sorted() where !properties.contains(where: { $0.wireName == field }) {
                diagnostics.error(
                    "required field '\(field)' is not a property of '\(name)'",
                    at: reader.keyLocation("required") ?? reader.location)
            }
            var errorBody: ErrorBodyPaths?
            if let paths = reader.mapping("x-error-body") {
                let message = paths.string("message", required: true) ?? ""
                let detail = paths.string("detail")
                // One path, or a list of them.
                let reasons =
                    paths.raw("reasons")?.scalar != nil
                    ? paths.string("reasons", required: true).map { [$0] } ?? []
                    : paths.stringList("reasons") ?? paths.string("reasons", required: true).map { [$0] } ?? []
                paths.rejectUnknownKeys()
                errorBody = ErrorBodyPaths(
                    message: message.split(separator: ".").map(String.init),
                    detail: detail.map { $0.split(separator: ".").map(String.init) },
                    reasons: reasons.map { $0.split(separator: ".").map(String.init) }, location: paths.location
                )
            }
            return Schema(
                name: name, description: description, kind: .object(properties: properties), errorBody: errorBody,
                fieldMask: reader.bool("x-field-mask") ?? false, strictReader: reader.bool("x-strict-reader") ?? false,
                location: node.location)
        case "string":
            guard let values = reader.stringList("enum"), !values.isEmpty else {
                diagnostics.error("top-level string schema '\(name)' must list its 'enum' values", at: reader.location)
                return nil
            }
            var seen: Set<SwiftName> = []
            var enumValues: [EnumValue] = []
            let location = reader.keyLocation("enum") ?? reader.location
            // `x-enum-varnames` (as other OpenAPI generators read it) names
            // values whose wire form makes no Swift name, such as URLs.
            let explicitNames = reader.stringList("x-enum-varnames")
            if let explicitNames, explicitNames.count != values.count {
                diagnostics.error(
                    "'x-enum-varnames' of '\(name)' lists \(explicitNames.count) names for \(values.count) values",
                    at: reader.keyLocation("x-enum-varnames") ?? location)
            }
            // `x-enum-numbers`: the values' protocol-buffer numbers, which
            // some clients send instead of the names (Android's SDK).
            let numbers = reader.stringList("x-enum-numbers")
            if let numbers, numbers.count != values.count || numbers.contains(where: { Int($0) == nil }) {
                diagnostics.error(
                    "'x-enum-numbers' of '\(name)' must list one integer per value (\(values.count))",
                    at: reader.keyLocation("x-enum-numbers") ?? location)
            }
            if let numbers, Set(numbers).count != numbers.count {
                diagnostics.error(
                    "'x-enum-numbers' of '\(name)' lists a number twice",
                    at: reader.keyLocation("x-enum-numbers") ?? location)
            }
            for (index, value) in values.enumerated() {
                let explicit = explicitNames.flatMap { index < $0.count ? $0[index] : nil }
                let what =
                    explicit == nil
                    ? "the Swift form of enum value '\(value)' of '\(name)'"
                    : "the x-enum-varnames entry for '\(value)' of '\(name)'"
                guard
                    let swiftName = Naming.identifier(
                        explicit ?? Naming.camelCase(value), what, at: location, diagnostics: diagnostics)
                else { continue }
                if !seen.insert(swiftName).inserted || swiftName.bare == "allKnownValues"
                    || swiftName.bare == "rawValue" || swiftName.bare == "description"
                {
                    diagnostics.error("enum values of '\(name)' clash on the Swift name '\(swiftName)'", at: location)
                }
                enumValues.append(
                    EnumValue(
                        wire: value, swiftName: swiftName,
                        number: numbers.flatMap { index < $0.count ? Int($0[index]) : nil }))
            }
            return Schema(
                name: name, description: description, kind: .stringEnum(values: enumValues), errorBody: nil,
                location: node.location)
        case nil:
            return nil
        default:
            diagnostics.error(
                "unsupported schema construct: top-level schema '\(name)' of type '\(type ?? "")'; expected an object or a string enum",
                at: reader.raw("type")?.location ?? reader.location)
            return nil
        }
    }

    /// Reports keywords outside the supported subset; true when it found any.
    @discardableResult
    private func rejectUnsupportedKeywords(_ reader: MappingReader, owner: String, allowsMap: Bool = false) -> Bool {
        var found = false
        for keyword in reader.keys {
            if Self.unsupportedSchemaKeywords.contains(keyword) {
                if keyword == "additionalProperties", reader.raw(keyword)?.scalar == "false" { continue }
                // A property `type: object` with an `additionalProperties` schema is a map.
                if allowsMap, keyword == "additionalProperties",
                    reader.raw(keyword)?.mappingEntries != nil || reader.raw(keyword)?.scalar == "true",
                    reader.string("type") == "object", !reader.has("properties")
                {
                    continue
                }
                diagnostics.error(
                    "unsupported schema construct '\(keyword)' in \(owner)",
                    at: reader.keyLocation(keyword) ?? reader.location)
                found = true
            } else if !keyword.hasPrefix("x-") && !Self.knownSchemaKeywords.contains(keyword) {
                diagnostics.error(
                    "unknown schema keyword '\(keyword)' in \(owner) (quote descriptions that contain ': ' or ',')",
                    at: reader.keyLocation(keyword) ?? reader.location)
            }
        }
        return found
    }

    private func parseProperty(_ wireName: String, _ node: YAMLValue, required: Bool, owner: SwiftName) -> Property? {
        guard
            let reader = MappingReader(node, context: "property '\(wireName)' of '\(owner)'", diagnostics: diagnostics)
        else { return nil }
        let explicit = reader.string("x-swift-name")
        guard
            let swiftName = Naming.identifier(
                explicit ?? Naming.camelCase(wireName),
                explicit == nil
                    ? "the Swift form of property '\(wireName)' of '\(owner)'"
                    : "x-swift-name of property '\(wireName)' of '\(owner)'",
                role: .member, at: reader.raw("x-swift-name")?.location ?? node.location, diagnostics: diagnostics)
        else { return nil }
        guard let type = parseType(reader, owner: "property '\(wireName)' of '\(owner)'") else { return nil }
        let since = reader.string("x-since")
        if since != nil && required {
            // A new required field breaks every caller of the initializer: no overload can keep the old one working.
            diagnostics.error(
                "x-since on required property '\(wireName)' of '\(owner)': only an optional field can be added compatibly",
                at: reader.keyLocation("x-since") ?? node.location)
        }
        return Property(
            wireName: wireName, swiftName: swiftName, type: type, required: required,
            sensitive: reader.bool("x-sensitive") ?? false, description: reader.string("description"),
            since: since, location: node.location
        )
    }

    private func parseType(_ reader: MappingReader, owner: String) -> TypeRef? {
        if rejectUnsupportedKeywords(reader, owner: owner, allowsMap: true) { return nil }
        if let ref = reader.raw("$ref") {
            guard let text = ref.scalar, let name = schemaName(fromReference: text, at: ref.location) else {
                return nil
            }
            return .reference(name, ref.location)
        }
        let typeNode = reader.raw("type")
        guard let type = typeNode?.scalar else {
            diagnostics.error("\(owner) needs a 'type' or a '$ref'", at: typeNode?.location ?? reader.location)
            return nil
        }
        let format = reader.string("format")
        switch (type, format) {
        case ("string", nil), ("string", "byte"), ("string", "uri"), ("string", "email"): return .string
        case ("string", "date-time"): return .dateTime
        // proto3 JSON writes int64 as a string; Google's API descriptions say so.
        case ("string", "int64"): return .int64
        case ("integer", "int32"): return .int32
        case ("integer", "int64"): return .int64
        // Without a format, an integer is a plain JSON number (JWT times, RFC 6749 `expires_in`).
        case ("integer", nil): return .integer
        case ("number", _): return .double
        case ("boolean", nil): return .bool
        case ("array", nil):
            guard let items = reader.mapping("items", required: true) else { return nil }
            guard let element = parseType(items, owner: "items of \(owner)") else { return nil }
            return .array(element)
        // `additionalProperties: true`: a free-form object of any JSON values.
        case ("object", nil) where reader.raw("additionalProperties")?.scalar == "true":
            return .map(.json)
        case ("object", nil) where reader.mapping("additionalProperties") != nil:
            guard let values = reader.mapping("additionalProperties"),
                let value = parseType(values, owner: "values of \(owner)")
            else { return nil }
            return .map(value)
        case ("object", _):
            diagnostics.error(
                "unsupported schema construct: inline object in \(owner); define it under components/schemas and use $ref",
                at: typeNode?.location ?? reader.location)
            return nil
        default:
            diagnostics.error(
                "unsupported type '\(type)'\(format.map { " with format '\($0)'" } ?? "") in \(owner)",
                at: typeNode?.location ?? reader.location)
            return nil
        }
    }
}
