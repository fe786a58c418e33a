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
        var name: SwiftName
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
        var returns: Code?
        var completion: FunctionName?
        var objc: FunctionName?
        var doc: String?
        /// Why a caller may leave the completion out (`omittableCompletion:`):
        /// only then does an optional completion get a `nil` default. Without
        /// a default, `try await f()` in top-level code can only be the async
        /// method; with one, it silently compiles to the twin and is not
        /// awaited. So a default needs a documented call that omits it.
        var omittableCompletion: String?
        var location: SourceLocation
    }

    struct FacadeParameter {
        /// nil for `_`.
        var label: SwiftName?
        var name: SwiftName
        var type: Code
    }

    var file: String
    /// The hand-written function that runs an async call and completes once.
    var delivery: Code
    /// Whether a completion is optional, so that a caller may pass `nil`
    /// (Firebase's shape, `optionalCompletions: true`, the default), or
    /// required (`false`). Either way it has no default value unless its
    /// method names a reason (`omittableCompletion`).
    var optionalCompletions: Bool
    var types: [FacadeType]

    static func parse(_ root: YAMLValue, diagnostics: DiagnosticCollector) -> FacadesSpec? {
        guard let reader = MappingReader(root, context: "the facades file", diagnostics: diagnostics) else {
            return nil
        }
        let delivery =
            reader.string("delivery", required: true).flatMap {
                Naming.qualifiedName(
                    $0, "'delivery'", at: reader.raw("delivery")?.location ?? reader.location, diagnostics: diagnostics)
            } ?? "_invalid"
        var types: [FacadeType] = []
        var typeNames: Set<SwiftName> = []
        for item in reader.list("types", required: true) ?? [] {
            guard let typeReader = MappingReader(item, context: "a facade type", diagnostics: diagnostics) else {
                continue
            }
            guard let text = typeReader.string("name", required: true),
                let name = Naming.identifier(
                    text, "facade type name", at: typeReader.raw("name")?.location ?? typeReader.location,
                    diagnostics: diagnostics)
            else { continue }
            if !typeNames.insert(name).inserted {
                diagnostics.error("facade type '\(name)' is listed twice", at: typeReader.location)
            }
            var methods: [Method] = []
            for methodNode in typeReader.list("methods", required: true) ?? [] {
                if let method = parseMethod(methodNode, owner: name, diagnostics: diagnostics) {
                    methods.append(method)
                }
            }
            typeReader.rejectUnknownKeys()
            var generatedNames: [String: SourceLocation] = [:]
            for method in methods {
                for generated in [method.completion, method.objc].compactMap({ $0 }) {
                    if let first = generatedNames[generated.description] {
                        diagnostics.error(
                            "'\(generated)' is generated twice for '\(name)' (first at \(first))", at: method.location)
                    }
                    generatedNames[generated.description] = method.location
                }
            }
            types.append(FacadeType(name: name, methods: methods, location: item.location))
        }
        let optionalCompletions = reader.bool("optionalCompletions") ?? true
        if !optionalCompletions {
            for method in types.flatMap(\.methods) where method.omittableCompletion != nil {
                diagnostics.error(
                    "'omittableCompletion' of '\(method.swift)' needs 'optionalCompletions: true' (a required completion cannot be left out)",
                    at: method.location)
            }
        }
        reader.rejectUnknownKeys()
        return FacadesSpec(file: root.file, delivery: delivery, optionalCompletions: optionalCompletions, types: types)
    }

    private static func parseMethod(_ node: YAMLValue, owner: SwiftName, diagnostics: DiagnosticCollector) -> Method? {
        guard let reader = MappingReader(node, context: "a method of '\(owner)'", diagnostics: diagnostics) else {
            return nil
        }
        func name(_ key: String, required: Bool = false) -> FunctionName? {
            guard let text = reader.string(key, required: required) else { return nil }
            guard let parsed = FunctionName(text) else {
                diagnostics.error(
                    "'\(key)' of a method of '\(owner)' must be a Swift function name like 'name(label:_:)', found '\(text)'",
                    at: reader.raw(key)?.location ?? reader.location)
                return nil
            }
            return parsed
        }
        let swift = name("swift", required: true)
        let kindText = reader.string("kind") ?? "async"
        let kind = Method.Kind(rawValue: kindText)
        if kind == nil {
            diagnostics.error(
                "'kind' must be 'async' or 'sync', found '\(kindText)'",
                at: reader.raw("kind")?.location ?? reader.location)
        }
        var parameters: [FacadeParameter] = []
        for item in reader.list("parameters") ?? [] {
            guard let parameter = MappingReader(item, context: "a parameter", diagnostics: diagnostics) else {
                continue
            }
            let label = parameter.string("label", required: true)
            let checkedLabel = label.flatMap {
                $0 == "_"
                    ? nil
                    : Naming.identifier(
                        $0, "parameter label", at: parameter.raw("label")?.location ?? parameter.location,
                        diagnostics: diagnostics)
            }
            let parameterName = parameter.string("name", required: true).flatMap {
                Naming.identifier(
                    $0, "parameter name", at: parameter.raw("name")?.location ?? parameter.location,
                    diagnostics: diagnostics)
            }
            let type = parameter.string("type", required: true).flatMap {
                Naming.typeExpression(
                    $0, "parameter type", at: parameter.raw("type")?.location ?? parameter.location,
                    diagnostics: diagnostics)
            }
            parameter.rejectUnknownKeys()
            if let label, label == "_" || checkedLabel != nil, let parameterName, let type {
                parameters.append(FacadeParameter(label: checkedLabel, name: parameterName, type: type))
            }
        }
        let method = Method(
            swift: swift ?? FunctionName("_invalid()")!, kind: kind ?? .async,
            isStatic: reader.bool("static") ?? false, throwing: reader.bool("throws") ?? true,
            parameters: parameters,
            returns: reader.string("returns").flatMap {
                Naming.typeExpression(
                    $0, "'returns'", at: reader.raw("returns")?.location ?? reader.location, diagnostics: diagnostics)
            },
            completion: name("completion"), objc: name("objc"), doc: reader.string("doc"),
            omittableCompletion: reader.string("omittableCompletion"), location: node.location
        )
        reader.rejectUnknownKeys()
        guard let swift, kind != nil else { return nil }

        let where_ = "method '\(swift)' of '\(owner)'"
        if swift.labels != parameters.map(\.label) {
            diagnostics.error(
                "the labels of \(where_) do not match its parameters (\(parameters.map { "\($0.label?.bare ?? "_"):" }.joined()))",
                at: method.location)
        }
        switch method.kind {
        case .async:
            guard let completion = method.completion else {
                diagnostics.error("async \(where_) needs a 'completion' name", at: method.location)
                return nil
            }
            if completion.labels.count != parameters.count + 1 {
                diagnostics.error(
                    "completion twin '\(completion)' of \(where_) must take \(parameters.count + 1) arguments (the parameters and the completion)",
                    at: reader.keyLocation("completion") ?? method.location)
            }
            if let reason = method.omittableCompletion, reason.allSatisfy(\.isWhitespace) {
                diagnostics.error(
                    "'omittableCompletion' of \(where_) must say why a caller may leave the completion out (a documented call that does)",
                    at: reader.keyLocation("omittableCompletion") ?? method.location)
            }
            if let objc = method.objc, objc.labels.count != parameters.count + 1 {
                diagnostics.error(
                    "Objective-C name '\(objc)' of \(where_) must take \(parameters.count + 1) arguments (the parameters and the completion)",
                    at: reader.keyLocation("objc") ?? method.location)
            }
        case .sync:
            if method.omittableCompletion != nil {
                diagnostics.error(
                    "sync \(where_) has no completion to leave out ('omittableCompletion')",
                    at: reader.keyLocation("omittableCompletion") ?? method.location)
            }
            if method.completion != nil {
                diagnostics.error(
                    "sync \(where_) cannot have a completion twin",
                    at: reader.keyLocation("completion") ?? method.location)
            }
            guard let objc = method.objc else {
                diagnostics.error(
                    "sync \(where_) needs an 'objc' name (it is the only thing generated for it)", at: method.location)
                return nil
            }
            if objc.labels.count != parameters.count {
                diagnostics.error(
                    "Objective-C name '\(objc)' of \(where_) must take \(parameters.count) arguments",
                    at: reader.keyLocation("objc") ?? method.location)
            }
        }
        return method
    }
}
