/// Servers: one service protocol per document with `registerRoutes(on:)`, and the
/// known-value checks that keep requests within the spec's enums.
extension Translator {
    func serverFile(_ documents: [APIDocument], schemas: [Schema], imports: [SwiftName]) -> SwiftFile {
        let checked = Self.schemasReachingEnums(schemas)
        var declarations: [Declaration] = []
        for document in documents {
            let service: Code = "\(document.clientName.serviceName)"
            var requirements: [Declaration] = []
            var routes: [Statement] = []
            let (hostPrefix, basePath) = Self.hostPrefix(document.serverURL)
            let prefix = document.emulatorOnly ? "" : hostPrefix
            for operation in document.operations {
                let response: Code =
                    operation.respondsWithHTML
                    ? "String" : operation.serverResponse.map { "\($0.name)" } ?? "EmptyResponse"
                var parameters = operationParameters(operation, forClient: false).map { parameter in
                    FunctionDeclaration.Parameter(label: parameter.label, name: parameter.name, type: parameter.type)
                }
                parameters.append(.init(label: "request", name: "request", type: "APIServerRequest"))
                requirements.append(
                    .function(
                        FunctionDeclaration(
                            doc: docText(operation.summary) + "\n\n`\(operation.method) \(operation.path)`",
                            kind: .function("\(operation.id)"), parameters: parameters, isAsync: true, isThrowing: true,
                            returnType: response
                        )))
                var arguments: [(label: Code?, value: Code)] = []
                for parameter in operation.pathParameters {
                    arguments.append(("\(parameter.swiftName)", "request.pathParameter(\(literal: parameter.name))"))
                }
                for parameter in operation.queryParameters {
                    let accessor: Code = parameter.required ? "requiredQueryParameter" : "queryParameter"
                    let value: Code =
                        parameter.valueType == .string
                        ? "request.\(accessor)(\(literal: parameter.name))"
                        : "request.\(accessor)(\(literal: parameter.name), as: \(parameter.valueType.swiftType).self)"
                    arguments.append(("\(parameter.swiftName)", value))
                }
                if let body = operation.serverRequestBody {
                    let check: Code = checked.contains(body.name) ? ".checkedKnownValues()" : ""
                    let snakeNames = Self.snakeCaseWireNames(reachableFrom: body.name, in: schemas)
                    let snake: Code =
                        snakeNames.isEmpty
                        ? "" : ", snakeCaseWireNames: [\(snakeNames.map { Code.literal($0) }, separator: ", ")]"
                    arguments.append(
                        (arguments.isEmpty ? nil : "body", "request.decodeBody(\(body.name).self\(snake))\(check)"))
                }
                arguments.append(("request", "request"))
                let authorization: Code
                switch document.security {
                case _ where operation.isOpen: authorization = ".none"
                case .bearer: authorization = ".bearer"
                case .none: authorization = ".none"
                case .apiKeyQuery: authorization = ".apiKey"
                }
                let form: Code = operation.bodyEncoding == .json ? "" : ", acceptsFormBody: true"
                let errorBody: Code = operation.errorResponse.map { ", errorBody: \($0.name).self" } ?? ""
                let method = methodCase(operation.method)
                let call = Code.call(Code.member("self", operation.id), arguments)
                // The operation's own path, then its aliases (full paths, served at the root).
                for (routePrefix, routePath) in [(prefix, basePath + operation.path)]
                    + operation.serverAliases.map({ ("", $0) })
                {
                    routes.append(
                        .bracketed(
                            open:
                                "registry.register(APIServerRoute(operationID: \(literal: operation.id.bare), method: \(method), prefix: \(literal: routePrefix), path: \(literal: routePath), authorization: \(authorization)\(form)\(errorBody)) { request in",
                            [
                                .line(
                                    operation.respondsWithHTML
                                        ? "try await APIServerResponse.html(\(call))"
                                        : "try await APIServerResponse.json(\(call))")
                            ],
                            close: "})"
                        ))
                }
            }
            declarations.append(
                .type(
                    TypeDeclaration(
                        doc:
                            "The server side of \(document.clientName): one requirement per operation of the spec.\n\nA server (such as the emulator) implements it and calls ``registerRoutes(on:)``,\nwhose routes decode each request and encode each response as the spec says.",
                        access: access, kind: .protocol, name: service, conformances: ["Sendable"],
                        members: requirements
                    )))
            // The full path of each operation without path parameters, so
            // that a server links to its own routes (an emulator's action
            // link) without spelling the path a second time.
            let paths: [Declaration] = document.operations.filter(\.pathParameters.isEmpty).map { operation in
                .variable(
                    VariableDeclaration(
                        doc:
                            "The path of `\(operation.id.bare)` (`\(operation.method) \(operation.path)`), as a server serves it.",
                        access: access,
                        isStatic: true, isLet: false, name: "\(operation.id.suffixed("Path"))", type: "String",
                        getter: [.line("\(literal: prefix + basePath + operation.path)")]))
            }
            declarations.append(
                .extension(
                    ExtensionDeclaration(
                        extendedType: service,
                        members: [
                            .function(
                                FunctionDeclaration(
                                    doc: (prefix.isEmpty
                                        ? "Registers the routes of this API, served at the root."
                                        : "Registers the routes of this API, served below the prefix `\(prefix)`.")
                                        + "\n- Parameter registry: The server's router.",
                                    access: access, kind: .function("registerRoutes"),
                                    parameters: [
                                        .init(label: "on", name: "registry", type: "some APIServerRouteRegistry")
                                    ], body: routes
                                ))
                        ] + paths)))
        }
        declarations += knownValueChecks(schemas, checked: checked)
        return SwiftFile(
            header: Self.header, imports: self.imports(["Foundation"], imports), declarations: declarations)
    }

    /// Object schemas with a snake_case wire name, directly or through their fields.
    /// The snake_case wire names of a request schema and of every schema
    /// it reaches, sorted: the server's decoder reads each key under one
    /// spelling, and these are the ones that are not lowerCamelCase.
    static func snakeCaseWireNames(reachableFrom root: SwiftName, in schemas: [Schema]) -> [String] {
        let byName = Dictionary(schemas.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        func target(_ type: TypeRef) -> SwiftName? {
            switch type {
            case .reference(let name, _): return name
            case .array(let element), .map(let element): return target(element)
            default: return nil
            }
        }
        var names: Set<String> = []
        var visited: Set<SwiftName> = []
        var pending = [root]
        while let name = pending.popLast() {
            guard visited.insert(name).inserted, let schema = byName[name] else { continue }
            switch schema.kind {
            case .object(let properties):
                for property in properties {
                    if property.wireName.contains("_") { names.insert(property.wireName) }
                    if let next = target(property.type) { pending.append(next) }
                }
            case .map(let value):
                if let next = target(value) { pending.append(next) }
            default:
                break
            }
        }
        return names.sorted()
    }

    /// Object schemas that hold an enum, directly or through their fields.
    static func schemasReachingEnums(_ schemas: [Schema]) -> Set<SwiftName> {
        schemasReaching(schemas) { schema in
            if case .stringEnum = schema.kind { return true }
            return false
        }
    }

    /// Object schemas that are `base`, or reach one through their fields.
    private static func schemasReaching(_ schemas: [Schema], base: (Schema) -> Bool) -> Set<SwiftName> {
        let byName = Dictionary(schemas.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var result: Set<SwiftName> = []
        var changed = true
        func target(_ type: TypeRef) -> SwiftName? {
            switch type {
            case .reference(let name, _): return name
            case .array(let element), .map(let element): return target(element)
            default: return nil
            }
        }
        let seeds = Set(schemas.filter(base).map(\.name))
        while changed {
            changed = false
            for schema in schemas where !result.contains(schema.name) {
                guard case .object(let properties) = schema.kind else { continue }
                let reaches =
                    (seeds.contains(schema.name) && !isEnum(schema))
                    || properties.contains { property in
                        guard let name = target(property.type), let referenced = byName[name] else { return false }
                        if seeds.contains(name) && isEnum(referenced) { return true }
                        return result.contains(name)
                    }
                if reaches {
                    result.insert(schema.name)
                    changed = true
                }
            }
        }
        return result
    }

    /// For servers: open enums decode any value, but a request may only use
    /// the values the spec lists (an empty one stands for an absent required
    /// field, which the operation names itself). One check per object
    /// schema that reaches an enum.
    private func knownValueChecks(_ schemas: [Schema], checked: Set<SwiftName>) -> [Declaration] {
        let enums = Set(
            schemas.compactMap { schema -> SwiftName? in
                if case .stringEnum = schema.kind { return schema.name }
                return nil
            })
        var declarations: [Declaration] = []
        for schema in schemas.sorted(by: { $0.name < $1.name }) where checked.contains(schema.name) {
            guard case .object(let properties) = schema.kind else { continue }
            var body: [Statement] = []
            for property in properties {
                let stored = Code.member("self", property.swiftName)
                let value: Code = property.required ? stored : "(\(stored))"
                func check(_ element: Code, _ type: TypeRef, _ path: Code) -> Statement? {
                    guard case .reference(let target, _) = type else { return nil }
                    if enums.contains(target) {
                        return .block(
                            "if !\(element).rawValue.isEmpty, !\(target).allKnownValues.contains(\(element))",
                            [.line("return \(path)")])
                    }
                    if checked.contains(target) {
                        return .block(
                            "if let found = \(element).firstUnknownValue(at: \(path) + \".\")", [.line("return found")])
                    }
                    return nil
                }
                let path: Code = "path + \(literal: property.wireName)"
                switch property.type {
                case .array(let element):
                    if let inner = check("element", element, "\(path) + \"[\\(index)]\"") {
                        let list: Code = property.required ? value : "\(value) ?? []"
                        body.append(.block("for (index, element) in (\(list)).enumerated()", [inner]))
                    }
                default:
                    if property.required {
                        if let statement = check(value, property.type, path) { body.append(statement) }
                    } else if let statement = check("value", property.type, path) {
                        body.append(.block("if let value = \(stored)", [statement]))
                    }
                }
            }
            body.append(.line("return nil"))
            declarations.append(
                .extension(
                    ExtensionDeclaration(
                        extendedType: "\(schema.name)",
                        members: [
                            .function(
                                FunctionDeclaration(
                                    doc:
                                        "The wire path of the first field whose value the spec's enum does not list, if any.",
                                    kind: .function("firstUnknownValue"),
                                    parameters: [.init(label: "at", name: "path", type: "String")],
                                    returnType: "String?", body: body)),
                            .function(
                                FunctionDeclaration(
                                    doc:
                                        "Self, or 400 `INVALID_ARGUMENT` naming a field whose value the spec does not list.",
                                    kind: .function("checkedKnownValues"), parameters: [], isThrowing: true,
                                    returnType: "Self",
                                    body: [
                                        .block(
                                            "if let field = firstUnknownValue(at: \"\")",
                                            [
                                                .line(
                                                    "throw APIServerError.undecodableRequest(\"invalid value for \\(field)\")"
                                                )
                                            ]),
                                        .line("return self"),
                                    ])),
                        ])))
        }
        return declarations
    }

    private static func isEnum(_ schema: Schema) -> Bool {
        if case .stringEnum = schema.kind { return true }
        return false
    }
}
