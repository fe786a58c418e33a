/// `facades.yaml`: completion-handler twins of hand-written async methods and
/// their Objective-C-style names, each a one-line call of the Swift method.
extension Translator {
    func facadesFile(_ spec: FacadesSpec, imports: [SwiftName], publicImports: [SwiftName] = []) -> SwiftFile {
        var declarations: [Declaration] = []
        for type in spec.types {
            var members: [Declaration] = []
            for method in type.methods {
                let parameters = method.parameters.map {
                    FunctionDeclaration.Parameter(label: $0.label.map { "\($0)" }, name: "\($0.name)", type: $0.type)
                }
                let receiver: Code = method.isStatic ? "Self" : "self"
                let swiftCall = Code.call(Code.member(receiver, method.swift.base), forwardedArguments(parameters))
                switch method.kind {
                case .async:
                    guard let completion = method.completion else { continue }
                    // Optional as Firebase's twins (a caller may pass nil), or
                    // required where the spec says so. A nil default only
                    // where the method says why it may be left out: with one,
                    // `try await f()` in top-level code compiles to the twin.
                    let optional = spec.optionalCompletions
                    let completionDefault: Code? = optional && method.omittableCompletion != nil ? "nil" : nil
                    let call: Code = optional ? "completion?" : "completion"
                    let completionType: Code
                    let adapter: Code
                    if let returns = method.returns {
                        completionType =
                            optional
                            ? "(@Sendable (\(returns)?, (any Error)?) -> Void)?"
                            : "@escaping @Sendable (\(returns)?, (any Error)?) -> Void"
                        adapter = "{ value, error in \(call)(value, error) }"
                    } else {
                        completionType =
                            optional
                            ? "(@Sendable ((any Error)?) -> Void)?" : "@escaping @Sendable ((any Error)?) -> Void"
                        adapter = "{ (_: Void?, error: (any Error)?) in \(call)(error) }"
                    }
                    let twinParameters =
                        relabel(parameters, completion.labels)
                        + [
                            FunctionDeclaration.Parameter(
                                label: completion.labels.last.flatMap { $0.map { "\($0)" } }, name: "completion",
                                type: completionType,
                                defaultValue: completionDefault)
                        ]
                    let tryKeyword: Code = method.throwing ? "try " : ""
                    members.append(
                        .function(
                            FunctionDeclaration(
                                doc: (method.doc.map { "\($0)\n\n" } ?? "")
                                    + "Completion-handler form of ``\(method.swift)``.\n"
                                    + Self.parameterList(
                                        parameters.map { "\($0.name)" }, asIn: "\(method.swift)",
                                        completion: "Called exactly once, as `\(spec.delivery)` documents."),
                                access: access, isStatic: method.isStatic, kind: .function("\(completion.base)"),
                                parameters: twinParameters,
                                body: [
                                    .line(
                                        "\(spec.delivery)({ \(tryKeyword)await \(swiftCall) }, completion: \(adapter))")
                                ]
                            )))
                    if let objc = method.objc {
                        let twinCall = Code.call(
                            Code.member(receiver, completion.base), forwardedArguments(twinParameters))
                        var aliasParameters = relabel(twinParameters, objc.labels)
                        aliasParameters[aliasParameters.count - 1].defaultValue = completionDefault
                        members.append(
                            .function(
                                FunctionDeclaration(
                                    doc: "Objective-C-style name of ``\(completion)``.", access: access,
                                    isStatic: method.isStatic,
                                    kind: .function("\(objc.base)"), parameters: aliasParameters,
                                    body: [.line(twinCall)]
                                )))
                    }
                case .sync:
                    guard let objc = method.objc else { continue }
                    let tryKeyword: Code = method.throwing ? "try " : ""
                    members.append(
                        .function(
                            FunctionDeclaration(
                                doc: "Objective-C-style name of ``\(method.swift)``.", access: access,
                                isStatic: method.isStatic,
                                kind: .function("\(objc.base)"), parameters: relabel(parameters, objc.labels),
                                isThrowing: method.throwing, returnType: method.returns,
                                body: [.line("\(tryKeyword)\(swiftCall)")]
                            )))
                }
            }
            declarations.append(.extension(ExtensionDeclaration(extendedType: "\(type.name)", members: members)))
        }
        return SwiftFile(
            header: Self.header,
            imports: self.imports(["Foundation"], imports, exposed: Set(publicImports.map { "\($0)" })),
            declarations: declarations)
    }

    /// The same parameters under another function name's labels.
    /// DocC wants every parameter listed once a doc comment lists one: the
    /// method's own parameters point at the async form's documentation.
    static func parameterList(_ names: [String], asIn method: String, completion: String) -> String {
        guard !names.isEmpty else { return "- Parameter completion: \(completion)" }
        return
            (["- Parameters:"] + names.map { "  - \($0): As for ``\(method)``." } + ["  - completion: \(completion)"])
            .joined(separator: "\n")
    }

    private func relabel(_ parameters: [FunctionDeclaration.Parameter], _ labels: [SwiftName?]) -> [FunctionDeclaration
        .Parameter]
    {
        zip(parameters, labels).map { parameter, label in
            FunctionDeclaration.Parameter(label: label.map { "\($0)" }, name: parameter.name, type: parameter.type)
        }
    }
}
