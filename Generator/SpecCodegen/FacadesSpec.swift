/// `facades.yaml`: for each hand-written public async method, the
/// completion-handler twin and the Objective-C-style alias to generate.
///
/// ```yaml
/// delivery: AuthCompletionDelivery.deliver   # hand-written: runs the async
///                                            # call, calls the completion once
/// types:
///   - name: MultiFactor
///     methods:
///       - swift: enroll(with:displayName:)
///         parameters:
///           - {label: with, name: assertion, type: MultiFactorAssertion}
///           - {label: displayName, name: displayName, type: String?}
///         completion: enroll(with:displayName:completion:)
///         objc: enrollWithAssertion(_:displayName:completion:)
///       - swift: assertionForEnrollment(with:oneTimePassword:)
///         kind: sync            # no twin; `objc` is a plain alias
///         static: true
///         throws: false
///         ...
/// ```
struct FacadesSpec {
    struct FacadeType {
        var name: String
        var methods: [Method]
        var location: SourceLocation
    }

    struct Method {
        enum Kind: String { case async, sync }

        var swift: FunctionName
        var kind: Kind
        var isStatic: Bool
        var throwing: Bool
        var parameters: [FacadeParameter]
        var returns: String?
        var completion: FunctionName?
        var objc: FunctionName?
        var doc: String?
        var location: SourceLocation
    }

    struct FacadeParameter {
        var label: String
        var name: String
        var type: String
    }

    var file: String
    var delivery: String
    var types: [FacadeType]

    static func parse(_ root: YAMLValue, diagnostics: DiagnosticCollector) -> FacadesSpec? {
        guard let reader = MappingReader(root, context: "the facades file", diagnostics: diagnostics) else { return nil }
        let delivery = reader.string("delivery", required: true) ?? ""
        var types: [FacadeType] = []
        var typeNames: Set<String> = []
        for item in reader.list("types", required: true) ?? [] {
            guard let typeReader = MappingReader(item, context: "a facade type", diagnostics: diagnostics) else { continue }
            guard let name = typeReader.string("name", required: true) else { continue }
            if !Naming.isIdentifier(name) {
                diagnostics.error("facade type name '\(name)' is not a Swift identifier", at: typeReader.location)
            }
            if !typeNames.insert(name).inserted {
                diagnostics.error("facade type '\(name)' is listed twice", at: typeReader.location)
            }
            var methods: [Method] = []
            for methodNode in typeReader.list("methods", required: true) ?? [] {
                if let method = parseMethod(methodNode, owner: name, diagnostics: diagnostics) { methods.append(method) }
            }
            typeReader.rejectUnknownKeys()
            var generatedNames: [String: SourceLocation] = [:]
            for method in methods {
                for generated in [method.completion, method.objc].compactMap({ $0 }) {
                    if let first = generatedNames[generated.description] {
                        diagnostics.error("'\(generated)' is generated twice for '\(name)' (first at \(first))", at: method.location)
                    }
                    generatedNames[generated.description] = method.location
                }
            }
            types.append(FacadeType(name: name, methods: methods, location: item.location))
        }
        reader.rejectUnknownKeys()
        return FacadesSpec(file: root.file, delivery: delivery, types: types)
    }

    private static func parseMethod(_ node: YAMLValue, owner: String, diagnostics: DiagnosticCollector) -> Method? {
        guard let reader = MappingReader(node, context: "a method of '\(owner)'", diagnostics: diagnostics) else { return nil }
        func name(_ key: String, required: Bool = false) -> FunctionName? {
            guard let text = reader.string(key, required: required) else { return nil }
            guard let parsed = FunctionName(text) else {
                diagnostics.error("'\(key)' of a method of '\(owner)' must be a Swift function name like 'name(label:_:)', found '\(text)'", at: reader.raw(key)?.location ?? reader.location)
                return nil
            }
            return parsed
        }
        let swift = name("swift", required: true)
        let kindText = reader.string("kind") ?? "async"
        let kind = Method.Kind(rawValue: kindText)
        if kind == nil {
            diagnostics.error("'kind' must be 'async' or 'sync', found '\(kindText)'", at: reader.raw("kind")?.location ?? reader.location)
        }
        var parameters: [FacadeParameter] = []
        for item in reader.list("parameters") ?? [] {
            guard let parameter = MappingReader(item, context: "a parameter", diagnostics: diagnostics) else { continue }
            let label = parameter.string("label", required: true)
            let parameterName = parameter.string("name", required: true)
            let type = parameter.string("type", required: true)
            parameter.rejectUnknownKeys()
            if let label, let parameterName, let type { parameters.append(FacadeParameter(label: label, name: parameterName, type: type)) }
        }
        let method = Method(
            swift: swift ?? FunctionName(base: "_", labels: []), kind: kind ?? .async,
            isStatic: reader.bool("static") ?? false, throwing: reader.bool("throws") ?? true,
            parameters: parameters, returns: reader.string("returns"),
            completion: name("completion"), objc: name("objc"), doc: reader.string("doc"), location: node.location
        )
        reader.rejectUnknownKeys()
        guard let swift, kind != nil else { return nil }

        let where_ = "method '\(swift)' of '\(owner)'"
        if swift.labels != parameters.map(\.label) {
            diagnostics.error("the labels of \(where_) do not match its parameters (\(parameters.map { "\($0.label):" }.joined()))", at: method.location)
        }
        switch method.kind {
        case .async:
            guard let completion = method.completion else {
                diagnostics.error("async \(where_) needs a 'completion' name", at: method.location)
                return nil
            }
            if completion.labels.count != parameters.count + 1 {
                diagnostics.error("completion twin '\(completion)' of \(where_) must take \(parameters.count + 1) arguments (the parameters and the completion)", at: reader.keyLocation("completion") ?? method.location)
            }
            if let objc = method.objc, objc.labels.count != parameters.count + 1 {
                diagnostics.error("Objective-C name '\(objc)' of \(where_) must take \(parameters.count + 1) arguments (the parameters and the completion)", at: reader.keyLocation("objc") ?? method.location)
            }
        case .sync:
            if method.completion != nil {
                diagnostics.error("sync \(where_) cannot have a completion twin", at: reader.keyLocation("completion") ?? method.location)
            }
            guard let objc = method.objc else {
                diagnostics.error("sync \(where_) needs an 'objc' name (it is the only thing generated for it)", at: method.location)
                return nil
            }
            if objc.labels.count != parameters.count {
                diagnostics.error("Objective-C name '\(objc)' of \(where_) must take \(parameters.count) arguments", at: reader.keyLocation("objc") ?? method.location)
            }
        }
        return method
    }
}

/// A Swift function name such as `enroll(with:displayName:)`; `_` is an
/// unlabeled argument.
struct FunctionName: Equatable, CustomStringConvertible {
    var base: String
    var labels: [String]

    init(base: String, labels: [String]) {
        self.base = base
        self.labels = labels
    }

    init?(_ text: String) {
        guard let open = text.firstIndex(of: "("), text.hasSuffix(")") else { return nil }
        let base = String(text[..<open])
        let inside = text[text.index(after: open)..<text.index(before: text.endIndex)]
        guard Naming.isIdentifier(base) else { return nil }
        var labels: [String] = []
        if !inside.isEmpty {
            guard inside.hasSuffix(":") else { return nil }
            for label in inside.dropLast().split(separator: ":", omittingEmptySubsequences: false) {
                let label = String(label)
                guard label == "_" || Naming.isIdentifier(label) else { return nil }
                labels.append(label)
            }
        }
        self.base = base
        self.labels = labels
    }

    var description: String { "\(base)(\(labels.map { "\($0):" }.joined()))" }
}
