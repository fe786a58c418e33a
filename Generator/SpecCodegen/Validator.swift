/// Checks that need all documents at once: references, name clashes across
/// documents, and the shapes the translator relies on. Returns the schemas
/// merged across documents (an identical definition may repeat).
struct Validator {
    let diagnostics: DiagnosticCollector
    /// Whether the server-only references (`x-emulator-response-body`) must
    /// resolve: true when a server is generated or a spec is validated.
    var requiresServerSchemas = true

    func validate(_ documents: [APIDocument]) -> [Schema] {
        var operationIDs: [SwiftName: SourceLocation] = [:]
        var clientNames: [SwiftName: String] = [:]
        var merged: [SwiftName: Schema] = [:]
        var order: [SwiftName] = []
        var reportedErrorBodies: Set<String> = []
        for document in documents {
            if let other = clientNames[document.clientName] {
                diagnostics.error(
                    "client name '\(document.clientName)' is also used by \(other)",
                    at: SourceLocation(file: document.file, line: 1, column: 1))
            }
            clientNames[document.clientName] = document.file
            var local = Dictionary(document.schemas.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            // Schemas of other documents that this one references by file.
            for reference in document.externalReferences {
                guard let target = documents.first(where: { $0.file == reference.file }) else {
                    diagnostics.error(
                        "reference to '\(reference.file)', which is not among the specs of the config: add it to the config's \"specs\" list",
                        at: reference.location)
                    continue
                }
                guard let schema = target.schemas.first(where: { $0.name == reference.name }) else {
                    diagnostics.error(
                        "unknown reference '\(reference.name)' in '\(reference.file)'", at: reference.location)
                    continue
                }
                if local[reference.name] == nil { local[reference.name] = schema }
            }
            // Schemas only a server encodes: a config without a server may leave their documents out.
            var unresolvedServerNames: Set<SwiftName> = []
            for reference in document.serverReferences {
                guard let target = documents.first(where: { $0.file == reference.file }) else {
                    if requiresServerSchemas {
                        diagnostics.error(
                            "reference to '\(reference.file)', which is not among the specs of the config: add it to the config's \"specs\" list",
                            at: reference.location)
                    }
                    unresolvedServerNames.insert(reference.name)
                    continue
                }
                guard let schema = target.schemas.first(where: { $0.name == reference.name }) else {
                    diagnostics.error(
                        "unknown reference '\(reference.name)' in '\(reference.file)'", at: reference.location)
                    unresolvedServerNames.insert(reference.name)
                    continue
                }
                if local[reference.name] == nil { local[reference.name] = schema }
            }
            for operation in document.operations {
                if let first = operationIDs[operation.id] {
                    diagnostics.error(
                        "duplicate operation id '\(operation.id)' (first defined at \(first))", at: operation.location)
                } else {
                    operationIDs[operation.id] = operation.location
                }
                for (role, reference) in [
                    ("request body", operation.requestBody), ("request body", operation.emulatorRequestBody),
                    ("response", operation.response), ("emulator response", operation.emulatorResponse),
                    ("error response", operation.errorResponse),
                ] {
                    guard let reference else { continue }
                    let name = reference.name
                    if role == "emulator response", unresolvedServerNames.contains(name) { continue }
                    guard let schema = local[name] else {
                        // An unresolved reference into another document was reported already.
                        if document.externalReferences.contains(where: { $0.name == name }) { continue }
                        diagnostics.error(
                            "unknown reference '#/components/schemas/\(name)' in the \(role) of '\(operation.id)'",
                            at: reference.location)
                        continue
                    }
                    if case .stringEnum = schema.kind {
                        diagnostics.error(
                            "the \(role) of '\(operation.id)' must be an object schema, '\(name)' is an enum",
                            at: reference.location)
                    }
                    if schema.packageOnly, !role.hasPrefix("emulator") {
                        diagnostics.error(
                            "the \(role) of '\(operation.id)' is '\(name)', which has 'x-access: package': a client's call cannot take or return a type apps cannot name",
                            at: reference.location)
                    }
                    if case .map = schema.kind, !role.hasSuffix("response") || role.hasPrefix("error") {
                        diagnostics.error(
                            "the \(role) of '\(operation.id)' must be an object schema with properties, '\(name)' is a map",
                            at: reference.location)
                    }
                    if role == "request body", operation.bodyEncoding != .json,
                        case .object(let properties) = schema.kind
                    {
                        for property in properties where !property.type.isFormScalar(enums: local) {
                            diagnostics.error(
                                "'\(name)' is sent as a form in '\(operation.id)', so its field '\(property.wireName)' must be a string, an integer or a string enum",
                                at: property.location)
                        }
                    }
                    if role == "error response", schema.errorBody == nil,
                        reportedErrorBodies.insert(document.file + name.bare).inserted
                    {
                        diagnostics.error(
                            "error response schema '\(name)' needs 'x-error-body' to say where the message and reasons are",
                            at: schema.location)
                    }
                }
            }
            for schema in document.schemas {
                if case .map(let value) = schema.kind {
                    switch value {
                    case .string, .integer, .double, .bool, .array(.string): break
                    default:
                        diagnostics.error(
                            "unsupported schema construct: the map '\(schema.name)' may hold strings, numbers, booleans or arrays of strings only",
                            at: schema.location)
                    }
                }
                if case .object(let properties) = schema.kind {
                    let externalNames = Set(document.externalReferences.map(\.name))
                    for property in properties {
                        checkType(property.type, of: property, in: local, externalNames: externalNames)
                    }
                    if !schema.packageOnly {
                        for property in properties {
                            if let hidden = property.type.referencedNames.first(where: {
                                local[$0]?.packageOnly == true
                            }) {
                                diagnostics.error(
                                    "'\(schema.name)' is public, so its field '\(property.wireName)' cannot be of '\(hidden)', which has 'x-access: package' (give '\(schema.name)' 'x-access: package' too)",
                                    at: property.location)
                            }
                        }
                    }
                    if let paths = schema.errorBody { checkErrorBody(paths, of: schema, in: local) }
                    if schema.strictReader {
                        for property in properties where !property.type.isStrictlyReadable(in: local) {
                            diagnostics.error(
                                "'\(schema.name)' has 'x-strict-reader', so its field '\(property.wireName)' must be a string, an integer (no format), a boolean, a string enum, an object schema with 'x-strict-reader', or an array or map of those",
                                at: property.location)
                        }
                    }
                }
                if let existing = merged[schema.name] {
                    if !existing.isEquivalent(to: schema) {
                        diagnostics.error(
                            "schema '\(schema.name)' is defined differently in another document (\(existing.location))",
                            at: schema.location)
                    }
                } else {
                    merged[schema.name] = schema
                    order.append(schema.name)
                }
            }
        }
        for document in documents {
            for operation in document.operations {
                guard let wide = operation.emulatorResponse, let narrow = operation.response,
                    merged[wide.name] != nil, merged[narrow.name] != nil
                else { continue }
                if let gap = widening(
                    of: .reference(narrow.name, narrow.location), by: .reference(wide.name, wide.location), in: merged,
                    at: "")
                {
                    diagnostics.error(
                        "'x-emulator-response-body' of '\(operation.id)' must answer every field of '\(narrow.name)' as it is: \(gap)",
                        at: wide.location)
                }
            }
        }
        return order.compactMap { merged[$0] }
    }

    /// Why `wide` is not `narrow` with extra fields (nil when it is): the
    /// first field of `narrow` that `wide` lacks or types differently, by
    /// its dotted path. Objects are compared field by field, recursively.
    private func widening(of narrow: TypeRef, by wide: TypeRef, in schemas: [SwiftName: Schema], at path: String)
        -> String?
    {
        switch (narrow, wide) {
        case (.reference(let a, _), .reference(let b, _)):
            if a == b { return nil }
            guard case .object(let fields)? = schemas[a]?.kind, case .object(let wider)? = schemas[b]?.kind else {
                return "'\(path.isEmpty ? b.bare : path)' is '\(b)', not '\(a)'"
            }
            for field in fields {
                let fieldPath = path.isEmpty ? field.wireName : path + "." + field.wireName
                guard let match = wider.first(where: { $0.wireName == field.wireName }) else {
                    return "'\(fieldPath)' is missing"
                }
                if let gap = widening(of: field.type, by: match.type, in: schemas, at: fieldPath) { return gap }
            }
            return nil
        case (.array(let a), .array(let b)), (.map(let a), .map(let b)):
            return widening(of: a, by: b, in: schemas, at: path)
        default:
            return narrow == wide ? nil : "'\(path)' has another type"
        }
    }

    private func checkType(
        _ type: TypeRef, of property: Property, in schemas: [SwiftName: Schema], externalNames: Set<SwiftName> = [],
        inArray: Bool = false
    ) {
        switch type {
        case .reference(let name, let location):
            // An unresolved reference into another document was reported already.
            if schemas[name] == nil, !externalNames.contains(name) {
                diagnostics.error("unknown reference '#/components/schemas/\(name)'", at: location)
            }
        case .array(let element):
            if inArray {
                diagnostics.error(
                    "unsupported schema construct: nested arrays in property '\(property.wireName)'",
                    at: property.location)
            }
            checkType(element, of: property, in: schemas, externalNames: externalNames, inArray: true)
        case .int32, .int64, .dateTime:
            if inArray {
                diagnostics.error(
                    "unsupported schema construct: arrays of int32, int64 or date-time in property '\(property.wireName)'",
                    at: property.location)
            }
        case .string, .integer, .double, .bool, .json:
            break
        case .map(let value):
            // A map holds plain JSON values (identities, claims): no proto3
            // helper or enum check reaches inside it.
            switch value {
            case .string, .integer, .double, .bool, .array(.string), .json: break
            case .reference(let name, let location):
                // Flat records (a trigger by event): no enum or nested
                // object inside, so nothing a server check must reach.
                guard let schema = schemas[name] else {
                    if !externalNames.contains(name) {
                        diagnostics.error("unknown reference '#/components/schemas/\(name)'", at: location)
                    }
                    break
                }
                let isFlat: Bool
                if case .object(let fields) = schema.kind {
                    isFlat = fields.allSatisfy { field in
                        switch field.type {
                        case .string, .integer, .double, .bool, .int32, .int64, .dateTime: return true
                        default: return false
                        }
                    }
                } else {
                    isFlat = false
                }
                if !isFlat {
                    diagnostics.error(
                        "unsupported schema construct: the map in property '\(property.wireName)' holds '\(name)', which must be an object of strings, numbers, booleans and date-times only",
                        at: property.location)
                }
            default:
                diagnostics.error(
                    "unsupported schema construct: a map in property '\(property.wireName)' may hold strings, numbers, booleans, arrays of strings or flat objects only",
                    at: property.location)
            }
        }
    }

    private func checkErrorBody(_ paths: ErrorBodyPaths, of schema: Schema, in schemas: [SwiftName: Schema]) {
        for (role, path) in [("message", paths.message), ("detail", paths.detail ?? [])]
            + paths.reasons.map({ ("reasons", $0) }) where !path.isEmpty
        {
            var current: Schema? = schema
            var arrays = 0
            var endsAtString = false
            for (index, segment) in path.enumerated() {
                let isArray = segment.hasSuffix("[]")
                let name = isArray ? String(segment.dropLast(2)) : segment
                guard case .object(let properties)? = current?.kind,
                    let property = properties.first(where: { $0.wireName == name })
                else {
                    diagnostics.error(
                        "x-error-body \(role) path '\(path.joined(separator: "."))' has no property '\(name)'",
                        at: paths.location)
                    break
                }
                var type = property.type
                if isArray {
                    guard case .array(let element) = type else {
                        diagnostics.error(
                            "x-error-body \(role) path marks '\(name)' as an array, but it is not one",
                            at: paths.location)
                        break
                    }
                    arrays += 1
                    type = element
                }
                if case .reference(let target, _) = type { current = schemas[target] } else { current = nil }
                endsAtString = index == path.count - 1 && type == .string
            }
            if !endsAtString {
                diagnostics.error(
                    "x-error-body \(role) path '\(path.joined(separator: "."))' must end at a string property",
                    at: paths.location)
            }
            if role != "reasons" && arrays > 0 || role == "reasons" && arrays > 1 {
                diagnostics.error(
                    "x-error-body \(role) path may cross \(role == "reasons" ? "at most one" : "no") array",
                    at: paths.location)
            }
        }
    }
}

extension TypeRef {
    /// Whether a form field can carry it: a form has no nesting, and its
    /// values are text, which the proto3 JSON decoders read as strings and
    /// integers (never as booleans or doubles).
    func isFormScalar(enums schemas: [SwiftName: Schema]) -> Bool {
        switch self {
        case .string, .int32, .int64: return true
        case .reference(let name, _):
            if case .stringEnum? = schemas[name]?.kind { return true }
            return false
        case .integer, .double, .bool, .dateTime, .array, .map, .json: return false
        }
    }

    /// Whether a strict reader reads it as `init(from:)` decodes it: JSON
    /// strings, numbers without a proto3 format, booleans, string enums
    /// read by name only, objects that have a strict reader themselves, and
    /// arrays and maps of those.
    func isStrictlyReadable(in schemas: [SwiftName: Schema]) -> Bool {
        switch self {
        case .string, .integer, .bool: return true
        case .reference(let name, _):
            switch schemas[name]?.kind {
            case .stringEnum(let values)?: return values.allSatisfy { $0.number == nil }
            case .object?: return schemas[name]?.strictReader == true
            case .map(let value)?: return value.isStrictlyReadable(in: schemas)
            case nil: return false
            }
        case .array(let element), .map(let element): return element.isStrictlyReadable(in: schemas)
        case .int32, .int64, .double, .dateTime, .json: return false
        }
    }
}
