/// Clients: one struct per document with one `async throws` method per
/// operation, and their completion-handler twins.
extension Translator {
    func clientsFile(_ documents: [APIDocument], imports: [SwiftName]) -> SwiftFile {
        let returnsHeaders = documents.contains { $0.operations.contains { !$0.responseHeaders.isEmpty } }
        return SwiftFile(
            header: Self.header,
            imports: self.imports(["Foundation", "HTTPTypes"], imports, exposed: returnsHeaders ? ["HTTPTypes"] : []),
            declarations: documents.map { .type(client($0)) })
    }

    private func client(_ document: APIDocument) -> TypeDeclaration {
        var members: [Declaration] = [
            .variable(
                VariableDeclaration(
                    doc: document.emulatorOnly
                        ? "The emulator's default address, used when no emulator host is configured."
                        : "The production base URL; the emulator form is derived from it.", access: access,
                    isStatic: true, isLet: true, name: "productionBaseURL", type: "String",
                    initialValue: .literal(document.serverURL))),
            // Package-wide at most: the executor is how the client works, not
            // what it offers (its configuration is the caller's own).
            .variable(
                VariableDeclaration(
                    doc: "Builds, sends and decodes the requests of this client.",
                    access: access == .public ? .package : access,
                    isLet: true, name: "executor", type: "APIRequestExecutor")),
        ]
        let root: Code = document.emulatorOnly ? ", servedAtEmulatorRoot: true" : ""
        let configurationParameter = FunctionDeclaration.Parameter(
            label: "configuration", name: "configuration", type: "ClientConfiguration",
            defaultValue: "ClientConfiguration()")
        switch document.security {
        case .apiKeyQuery(let name):
            members.append(
                .function(
                    FunctionDeclaration(
                        doc:
                            "Creates a client that sends `apiKey` as the `\(name)` query parameter.\n- Parameters:\n  - apiKey: The project's Web API key.\n  - configuration: Transport, emulator, timeout and logging settings.",
                        access: access, kind: .initializer(failable: false),
                        parameters: [.init(label: "apiKey", name: "apiKey", type: "String"), configurationParameter],
                        body: [
                            .line(
                                "self.executor = APIRequestExecutor(productionBaseURL: Self.productionBaseURL, credential: .apiKeyQuery(name: \(literal: name), value: apiKey), configuration: configuration\(root))"
                            )
                        ]
                    )))
        case .bearer:
            members.append(
                .function(
                    FunctionDeclaration(
                        doc:
                            "Creates a client that authorises every call with a bearer token.\n- Parameters:\n  - accessToken: Returns a current OAuth2 access token; called before each request.\n  - configuration: Transport, emulator, timeout and logging settings.",
                        access: access, kind: .initializer(failable: false),
                        parameters: [
                            .init(
                                label: "accessToken", name: "accessToken",
                                type: "@escaping @Sendable () async throws -> String"), configurationParameter,
                        ],
                        body: [
                            .line(
                                "self.executor = APIRequestExecutor(productionBaseURL: Self.productionBaseURL, credential: .bearer(accessToken), configuration: configuration\(root))"
                            )
                        ]
                    )))
        case .none:
            members.append(
                .function(
                    FunctionDeclaration(
                        doc:
                            "Creates a client.\n- Parameter configuration: Transport, emulator, timeout and logging settings.",
                        access: access, kind: .initializer(failable: false), parameters: [configurationParameter],
                        body: [
                            .line(
                                "self.executor = APIRequestExecutor(productionBaseURL: Self.productionBaseURL, credential: .none, configuration: configuration\(root))"
                            )
                        ]
                    )))
        }
        for operation in document.operations {
            members.append(.function(operationMethod(operation)))
            if !operation.responseHeaders.isEmpty {
                members.append(.function(operationMethod(operation, returningHeaders: true)))
            }
        }
        return TypeDeclaration(
            doc: docText(document.description ?? document.title)
                + "\n\nOne `async throws` method per operation; each throws ``IdentityToolkitError``.",
            access: access, kind: .struct, name: "\(document.clientName)", conformances: ["Sendable"], members: members
        )
    }

    func operationDoc(_ operation: Operation, extra: [(String, String)] = [], returns: String?) -> String {
        var doc = docText(operation.summary) + "\n\n`\(operation.method) \(operation.path)`"
        var parameters: [(String, String)] = []
        for parameter in operation.pathParameters + operation.queryParameters {
            parameters.append((parameter.swiftName.bare, docText(parameter.description)))
        }
        if operation.requestBody != nil {
            parameters.append(
                ("body", operation.bodyEncoding == .form ? "The request body, sent as a form." : "The request body."))
        }
        parameters += extra
        if parameters.count == 1, let (name, text) = parameters.first {
            doc += "\n- Parameter \(name): \(text)"
        } else if !parameters.isEmpty {
            doc += "\n- Parameters:"
            for (name, text) in parameters { doc += "\n  - \(name): \(text)" }
        }
        if let returns { doc += "\n- Returns: \(returns)" }
        return doc
    }

    /// The method's one statement: `try await executor.send(…)` with the
    /// path template as an interpolated literal and the query as wire names.
    private func operationMethod(_ operation: Operation, returningHeaders: Bool = false) -> FunctionDeclaration {
        let pathNames = Dictionary(
            operation.pathParameters.map { ($0.name, $0.swiftName) }, uniquingKeysWith: { first, _ in first })
        let path = Code.interpolatedPath(operation.path) { pathNames[$0] }
        let query: [Code] = operation.queryParameters.map { parameter in
            switch (parameter.valueType, parameter.requiredByClient) {
            case (.string, _): return "(\(literal: parameter.name), \(parameter.swiftName))"
            case (_, true): return "(\(literal: parameter.name), String(\(parameter.swiftName)))"
            case (_, false): return "(\(literal: parameter.name), \(parameter.swiftName).map(String.init))"
            }
        }
        let response: Code = operation.response.map { "\($0.name)" } ?? "EmptyResponse"
        let errorBody: Code = operation.errorResponse.map { "\($0.name).\(Self.errorReaderName).self" } ?? "nil"
        let method = methodCase(operation.method)
        // `x-client-required`: an empty value is refused before anything is sent.
        let returnKeyword: Code = operation.queryParameters.contains(where: \.clientRequired) ? "return " : ""
        let checks: [Statement] = operation.queryParameters.filter(\.clientRequired).map { parameter in
            .block(
                "guard !\(parameter.swiftName).isEmpty else",
                [
                    .line(
                        "throw IdentityToolkitError.invalidRequest(\(literal: "\(parameter.name) must not be empty: \(operation.id.bare) without it means something else (see the spec)"))"
                    )
                ])
        }
        var arguments: [(label: Code?, value: Code)] = [
            (nil, method), ("path", path), ("query", "[\(query, separator: ", ")]"),
        ]
        if operation.requestBody != nil {
            arguments.append((operation.bodyEncoding == .form ? "formBody" : "body", "body"))
        }
        arguments += [("response", "\(response).self"), ("errorBody", errorBody)]
        if returningHeaders {
            let headers = operation.responseHeaders.map { "`\($0)`" }.joined(separator: ", ")
            // An operation without a response body returns the header fields alone.
            let call = Code.call("executor.sendReturningHeaders", arguments)
            return FunctionDeclaration(
                doc: operationDoc(
                    operation,
                    returns: operation.response.map {
                        "The decoded `\($0.name.bare)` and the response's header fields (the spec declares \(headers))."
                    }
                        ?? "The response's header fields (the spec declares \(headers))."),
                access: access, kind: .function("\(operation.id)WithHeaders"),
                parameters: operationParameters(operation),
                isAsync: true, isThrowing: true,
                returnType: operation.response == nil ? "HTTPFields" : "(\(response), HTTPFields)",
                body: checks + [
                    .line(
                        operation.response == nil ? "return try await \(call).1" : "\(returnKeyword)try await \(call)")
                ]
            )
        }
        if operation.respondsWithHTML {
            var textArguments: [(label: Code?, value: Code)] = [
                (nil, method), ("path", path), ("query", "[\(query, separator: ", ")]"),
            ]
            if operation.requestBody != nil { textArguments.append(("formBody", "body")) }
            textArguments.append(("errorBody", errorBody))
            return FunctionDeclaration(
                doc: operationDoc(operation, returns: "The page's HTML text."),
                access: access, kind: .function("\(operation.id)"), parameters: operationParameters(operation),
                isAsync: true, isThrowing: true, returnType: "String",
                body: checks + [
                    .line("\(returnKeyword)try await \(Code.call("executor.sendReturningText", textArguments))")
                ]
            )
        }
        // An operation without a response body returns nothing: the empty
        // value the executor decodes is the runtime's business, not the API's.
        let send = Code.call("executor.send", arguments)
        return FunctionDeclaration(
            doc: operationDoc(operation, returns: operation.response.map { "The decoded `\($0.name)`." }),
            access: access, kind: .function("\(operation.id)"), parameters: operationParameters(operation),
            isAsync: true, isThrowing: true, returnType: operation.response == nil ? nil : response,
            body: checks + [
                .line(operation.response == nil ? "_ = try await \(send)" : "\(returnKeyword)try await \(send)")
            ]
        )
    }

    func completionsFile(_ documents: [APIDocument], imports: [SwiftName]) -> SwiftFile {
        var declarations: [Declaration] = []
        for document in documents {
            let members: [Declaration] = document.operations.map { operation in
                let response: Code =
                    operation.respondsWithHTML ? "String" : operation.response.map { "\($0.name)" } ?? "Void"
                var parameters = operationParameters(operation)
                let call = Code.call(Code.member("self", operation.id), forwardedArguments(parameters))
                parameters.append(
                    .init(
                        label: "completion", name: "completion",
                        type: "@escaping @Sendable (Result<\(response), any Error>) -> Void"))
                return .function(
                    FunctionDeclaration(
                        doc: operationDoc(
                            operation,
                            extra: [
                                (
                                    "completion",
                                    "Called exactly once, on `CompletionDelivery.queue` (never the main queue unless set so), with the response or the error; a cancelled task completes with `CancellationError`."
                                )
                            ],
                            returns: "The task running the call; cancel it to abandon the call."),
                        attributes: ["@discardableResult"], access: access, kind: .function("\(operation.id)"),
                        parameters: parameters,
                        returnType: "Task<Void, Never>",
                        body: [.line("CompletionDelivery.deliver({ try await \(call) }, completion: completion)")]
                    ))
            }
            declarations.append(
                .extension(ExtensionDeclaration(extendedType: "\(document.clientName)", members: members)))
        }
        return SwiftFile(
            header: Self.header, imports: self.imports(["Foundation"], imports), declarations: declarations)
    }
}
